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
            // Matroska reads its cues at the first seek, a transport stream lists probed
            // packets: neither seeks ahead, and both give the same frames.
            ("mkv", ["-g", "10"]),
            ("ts", ["-g", "10"]),
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
        #expect(jumped.seeks == (ext == "mp4" ? 3 : 0), "only an MP4's index lists its key frames when it opens")
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

    @Test("A trimmed MP4 (an edit list starting past its key frame) skips to the frames playing through shows")
    func trimmed() throws {
        let path = Scratch.path("seek-ahead-untrimmed.mp4"), cut = Scratch.path("seek-ahead-trimmed.mp4")
        try ClipMaker.counter(path, fps: 10, seconds: 20, extra: ["-g", "10", "-bf", "2", "-qp", "10", "-sc_threshold", "0"])
        try ClipMaker.ffmpeg(["-ss", "2.45", "-i", path, "-c", "copy", cut])
        // The cut starts at the frame at 2.5 s (its edit list drops those from the key frame
        // at 2 s): the key frames from 3 s on show from 0.5 s, as ffprobe reads them. Unshifted
        // by the B-frames' delay, the index would put them two frames early.
        let keys = try VideoDecoder(path: cut).keyFrameTimes
        #expect(keys.count >= 15 && zip(keys, 0...).allSatisfy { abs($0 - (0.5 + Double($1))) < 0.001 }, "\(keys)")
        let times = [0.0, 0.1, 6.05, 6.2, 13.0]
        let jumped = try counters(cut, times)
        let through = try counters(cut, stride(from: 0.0, through: 13.01, by: 0.05).map { $0 })
        #expect(times.map { through.read[Int(($0 * 20).rounded())] } == jumped.read, "\(jumped.read)")
        #expect(jumped.seeks == 2)
    }

    @Test("A clip off a steady grid (frames jittering by a few ms) decodes on: a frame just due may be held back")
    func offGrid() throws {
        let path = Scratch.path("seek-ahead-jitter.mp4")
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=96x64:r=30:d=10", "-vf",
            "format=gray,\(ClipMaker.counterFilter()),format=yuv420p,settb=1/90000,setpts='(N/30+0.004*mod(N\\,3))/TB'",
            "-vsync", "passthrough", "-enc_time_base", "1/90000", "-c:v", "libx264", "-qp", "0", "-g", "30", path,
        ])
        #expect(try VideoDecoder(path: path).keyFrameTimes.isEmpty)
        let times = [0.0, 0.05, 4.3, 8.6]
        let jumped = try counters(path, times)
        let through = try counters(path, stride(from: 0.0, through: 8.61, by: 0.05).map { $0 })
        #expect(times.map { through.read[Int(($0 * 20).rounded())] } == jumped.read && jumped.seeks == 0, "\(jumped)")
    }
}
