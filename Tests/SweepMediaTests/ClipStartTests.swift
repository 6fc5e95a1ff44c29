import Foundation
import SweepImaging
import SweepTestSupport
import Testing

@testable import SweepMedia

@Suite("A clip opened at a start")
struct ClipStartTests {
    @Test(
        "A start whose key frame lies more than 10 s in shows the clip's frames from the start on",
        arguments: [14.0, 20.0])
    func farKeyFrame(start: Double) throws {
        // 24 s at 5 fps, a key frame every 12 s (at 0, 12 and 24 s): the seek to the start
        // lands on the one at 12 s.
        let path = Scratch.path("far-key-frames.mp4")
        try ClipMaker.counter(path, fps: 5, seconds: 24, extra: ["-g", "60"])
        let decoder = try VideoDecoder(path: path, start: start)
        #expect(abs(decoder.duration - (24 - start)) < 0.05, "\(decoder.duration)")
        var image = RGBAImage(width: 96, height: 64)
        for t in [0.0, 1.0, 3.0] {
            try decoder.advance(to: t)
            try decoder.draw(into: &image, fit: .fill)
            #expect(ClipMaker.read(image, x: 48) == Int(((start + t) * 5).rounded()), "at \(t) s")
        }
    }
}
