import Foundation
import SweepImaging
import SweepTestSupport
import Testing

@testable import SweepMedia

/// An animated WebP's first frame may cover part of the canvas only, at an offset (encoders
/// crop frames to what changes, and tools write a first frame that way too). Read as a still
/// (a photo side, `--first-frame`), it is the canvas with that frame composed on it, as libwebp
/// and browsers show it, not the frame alone.
@Suite("Animated WebP as a still: the first frame composed on its canvas")
struct AnimatedWebPStillTests {
    /// A 64×48 animated WebP whose first frame is a 64×24 lossless picture at (0, 12), and that
    /// picture as a still WebP.
    static func files() throws -> (animated: String, frame: String) {
        let dir = try Scratch.folder("webp-offset")
        let frame = dir + "/frame.webp"
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=64x24", "-frames:v", "1", "-c:v", "libwebp", "-lossless", "1", frame,
        ])
        let still = Array(try Data(contentsOf: URL(fileURLWithPath: frame)))
        let at = try #require((12..<(still.count - 4)).first { Array(still[$0..<($0 + 4)]) == Array("VP8L".utf8) })
        let bitstream = Array(still[at...])  // the VP8L chunk, header included
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8((v >> (8 * $0)) & 0xff) } }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            Array(type.utf8) + le(body.count, 4) + body + (body.count % 2 == 1 ? [0] : [])
        }
        // X and Y are stored halved; 100 ms; blend off, no disposal.
        let anmf = chunk("ANMF", le(0, 3) + le(12 / 2, 3) + le(64 - 1, 3) + le(24 - 1, 3) + le(100, 3) + [0x02] + bitstream)
        let body =
            Array("WEBP".utf8) + chunk("VP8X", [0x12, 0, 0, 0] + le(64 - 1, 3) + le(48 - 1, 3))
            + chunk("ANIM", [0, 0, 0, 0] + le(0, 2)) + anmf
        let animated = dir + "/animated.webp"
        try Data(Array("RIFF".utf8) + le(body.count, 4) + body).write(to: URL(fileURLWithPath: animated))
        return (animated, frame)
    }

    @Test("a 64×24 first frame at (0, 12) is read as the 64×48 canvas with the frame in its rows 12…35")
    func offsetFirstFrame() throws {
        let (animated, frame) = try Self.files()
        let picture = try ImageDecoder.decode(path: frame)
        #expect(picture.width == 64 && picture.height == 24)
        let still = try ImageDecoder.decode(path: animated, background: .black)
        #expect(still.width == 64 && still.height == 48)
        for y in 0..<48 {
            for x in stride(from: 0, to: 64, by: 7) {
                let expected = (12..<36).contains(y) ? picture[x, y - 12] : RGBA8.black
                #expect(still[x, y] == expected, "(\(x), \(y))")
            }
        }
        // The clip decoder's first frame is the same canvas.
        let clip = try AnimatedWebPDecoder(path: animated)
        #expect(clip.width == 64 && clip.height == 48)
        var drawn = RGBAImage(width: 64, height: 48)
        try clip.draw(into: &drawn, fit: .stretch)
        #expect(drawn.pixels == still.pixels)
    }
}
