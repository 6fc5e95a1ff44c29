import Foundation
import SweepImaging
import SweepTestSupport
import Testing

@testable import SweepMedia

@Suite("A clip skipped ahead")
struct SeekAheadTests {
    /// The counter each frame shows, read back after `times` (clip seconds) are reached in turn.
    private func counters(_ path: String, _ times: [Double]) throws -> (read: [Int], seeks: Int) {
        let decoder = try VideoDecoder(path: path)
        var image = RGBAImage(width: 96, height: 64)
        var read: [Int] = []
        for t in times {
            try decoder.advance(to: t)
            try decoder.draw(into: &image, fit: .fill)
            read.append(ClipMaker.read(image, x: 48))
        }
        return (read, decoder.seeksAhead)
    }

    @Test(
        "A jump past a key frame seeks to it and shows the frames decoding through would",
        arguments: [
            ("mp4", ["-g", "10"]),  // a key frame a second, no B-frames (-qp 0 with x264's defaults)
            ("mp4", ["-g", "10", "-bf", "2", "-qp", "10"]),  // B-frames: the index holds decode times
            ("mkv", ["-g", "10"]),
        ])
    func jumps(ext: String, extra: [String]) throws {
        let path = Scratch.path("seek-ahead-\(extra.count).\(ext)")
        try ClipMaker.counter(path, fps: 10, seconds: 20, extra: extra)
        // A size cap's sample: runs of frames far apart.
        let times = [0.0, 0.1, 0.2, 7.3, 7.4, 7.5, 15.65, 15.8, 19.9]
        let jumped = try counters(path, times)
        #expect(jumped.read == [0, 1, 2, 73, 74, 75, 156, 158, 199])
        // The same frames as decoding every frame between.
        let through = try counters(path, stride(from: 0.0, through: 19.91, by: 0.1).map { $0 })
        #expect(times.map { through.read[Int(($0 * 10).rounded(.down))] } == jumped.read)
        #expect(through.seeks == 0)
        // 0.2 → 7.3, 7.5 → 15.65 and 15.8 → 19.9 each pass a key frame over a second ahead.
        if ext == "mp4" { #expect(jumped.seeks == 3, "the MP4's index lists its key frames") }
    }

    @Test("A jump without a key frame in between decodes on")
    func noKeyFrame() throws {
        let path = Scratch.path("seek-ahead-long-gop.mp4")
        try ClipMaker.counter(path, fps: 10, seconds: 20, extra: ["-g", "300", "-sc_threshold", "0"])
        let jumped = try counters(path, [0.0, 6.0, 12.5])
        #expect(jumped.read == [0, 60, 125])
        #expect(jumped.seeks == 0)
    }

    @Test(
        "The key frames an MP4's index lists are the clip's times of its key frames, counted from the start",
        arguments: [[], ["-bf", "2", "-qp", "10"]])  // B-frames: the index lists decode times
    func keyFrameTimes(extra: [String]) throws {
        let path = Scratch.path("seek-ahead-keys-\(extra.count).mp4")
        try ClipMaker.counter(path, fps: 10, seconds: 20, extra: ["-g", "10", "-sc_threshold", "0"] + extra)
        let whole = try VideoDecoder(path: path).keyFrameTimes
        #expect(whole.count == 20 && zip(whole, 0..<20).allSatisfy { abs($0 - Double($1)) < 0.001 }, "\(whole)")
        // From 2.5 s on, the key frame at 3 s is the clip's 0.5 s.
        let late = try VideoDecoder(path: path, start: 2.5).keyFrameTimes
        #expect(late.count == 17 && abs(late[0] - 0.5) < 0.001, "\(late)")
    }
}
