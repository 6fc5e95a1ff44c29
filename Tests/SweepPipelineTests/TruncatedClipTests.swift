import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTestSupport
import Testing

/// A video-only clip cut short (#58) plays to its last good frame, and the render says where
/// that was (summary line and `--json`): no frame is repeated to pad it to its stated length.
@Suite struct TruncatedClipTests {
    let dir: String

    init() throws {
        dir = try Scratch.folder("truncated")
    }

    /// The frame counters FFmpeg decodes from `path`, in order.
    static func oracleCounters(_ path: String) throws -> [Int] {
        let bytes = try SoundReader.run(
            "ffmpeg", ["-i", path, "-vsync", "passthrough", "-pix_fmt", "rgba", "-f", "rawvideo", "-"])
        let size = 96 * 64 * 4
        return stride(from: 0, to: bytes.count - size + 1, by: size).map {
            ClipMaker.read(RGBAImage(width: 96, height: 64, pixels: [UInt8](bytes[$0..<($0 + size)])), x: 48)
        }
    }

    @Test(
        "A clip cut at 60 % plays its whole frames once and says where they end",
        arguments: [
            ("mkv", [String]()), ("webm", ["-c:v", "libvpx", "-b:v", "2M", "-qmin", "0", "-qmax", "4"]),
            ("mp4", ["-movflags", "+faststart"]),
        ])
    func cutAt60Percent(ext: String, codec: [String]) throws {
        // 2 s at 30 fps: 60 frames, a key frame every 12.
        let full = dir + "/full.\(ext)", cut = dir + "/cut.\(ext)"
        try ClipMaker.counter(full, fps: 30, seconds: 2, extra: codec)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: full))
        try bytes.prefix(bytes.count * 6 / 10).write(to: URL(fileURLWithPath: cut))
        let oracle = try Self.oracleCounters(cut)
        let lastWhole = try #require(oracle.last, "FFmpeg decodes nothing from the cut \(ext)")
        #expect(oracle == Array(0...lastWhole), "\(ext): FFmpeg decodes \(oracle)")
        #expect(lastWhole > 10 && lastWhole < 50, "\(ext): FFmpeg decodes \(oracle.count) frames")

        let out = dir + "/\(ext)-%04d.png"
        let run = try runSweep(["render", cut, "-o", out, "--json", "--no-handle", "--no-labels"])
        #expect(run.code == 0, "\(ext): \(run.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        let frames = try #require(summary["frames"] as? Int)
        // The cut frame FFmpeg conceals may be left out; nothing after it, nothing twice.
        #expect(frames == lastWhole + 1 || frames == lastWhole, "\(ext): \(frames) frames, FFmpeg decodes \(lastWhole + 1)")
        let shown = try (0..<frames).map { ClipMaker.read(try ImageDecoder.decode(path: String(format: out, $0)), x: 48) }
        #expect(shown == Array(0..<frames), "\(ext): the output shows \(shown)")
        let cuts = try #require(summary["cutShort"] as? [[String: Any]], "\(ext): \(summary)")
        let end = cuts.first?["framesEnd"] as? Double ?? 0
        #expect(abs(end - Double(frames) / 30) < 0.002, "\(ext): frames end at \(end) s, \(frames) frames shown")
        #expect(abs((cuts.first?["stated"] as? Double ?? 0) - 2) < 0.05, "\(cuts)")
        // The summary line says it too.
        let plain = try runSweep(["render", cut, "-o", dir + "/\(ext)-plain.mp4"])
        #expect(plain.code == 0)
        #expect(
            plain.stdout.contains(String(format: "the before clip's frames end at 0:%06.3f, not at 2.00 s as its file states", end)),
            "\(plain.stdout)")
    }
}
