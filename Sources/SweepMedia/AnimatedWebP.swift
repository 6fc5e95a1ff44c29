/// Tells an animated WebP by its header. FFmpeg 5.1 cannot decode one, so its pictures go to
/// libwebp's animation decoder (``AnimatedWebPDecoder``), as a clip or, for a still, its first
/// frame composed on the canvas.
package enum AnimatedWebP {
    /// Whether `b` starts as an animated WebP: a RIFF WEBP file whose VP8X chunk has the
    /// animation flag.
    package static func isAnimated(_ b: [UInt8]) -> Bool {
        b.count >= 30 && Array(b[0..<4]) == Array("RIFF".utf8) && Array(b[8..<12]) == Array("WEBP".utf8)
            && Array(b[12..<16]) == Array("VP8X".utf8) && b[20] & 0x02 != 0
    }
}
