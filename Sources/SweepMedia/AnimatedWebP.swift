/// FFmpeg 5.1 cannot decode animated WebP, so the first frame is re-wrapped as a still
/// WebP (its VP8/VP8L bitstream, with its alpha chunk) that the decoder does read.
package enum AnimatedWebP {
    /// The first frame as a still WebP file, or `nil` when `b` is not an animated WebP.
    package static func firstFrame(_ b: [UInt8]) -> [UInt8]? {
        guard b.count >= 30, Array(b[0..<4]) == Array("RIFF".utf8), Array(b[8..<12]) == Array("WEBP".utf8),
            Array(b[12..<16]) == Array("VP8X".utf8), b[20] & 0x02 != 0
        else { return nil }
        func le32(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 }
        func le24(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 }
        var i = 12
        while i + 8 <= b.count {
            let size = le32(i + 4)
            let body = i + 8
            guard size >= 0, body + size <= b.count else { return nil }
            if Array(b[i..<i + 4]) == Array("ANMF".utf8), size >= 16 {
                let width = le24(body + 6) + 1, height = le24(body + 9) + 1
                let frame = Array(b[(body + 16)..<(body + size)])
                let hasAlpha = frame.count >= 4 && Array(frame[0..<4]) == Array("ALPH".utf8)
                var out = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)
                if hasAlpha {
                    // VP8X with the alpha flag and the frame's size, then ALPH + VP8.
                    out += Array("VP8X".utf8) + le(10, 4) + [0x10, 0, 0, 0] + le(width - 1, 3) + le(height - 1, 3)
                }
                out += frame
                let riff = le(out.count - 8, 4)
                out.replaceSubrange(4..<8, with: riff)
                return out
            }
            i = body + size + (size & 1)
        }
        return nil
    }

    static func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8((v >> (8 * $0)) & 0xff) } }
}
