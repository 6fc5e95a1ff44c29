import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepCLI

/// Runs `script` with `sh -c`, the sweep binary as `$SWEEP`; returns its exit status and stderr.
/// `signalAfter` sends SIGINT to the shell's process (sweep, by `exec`) after that many seconds.
private func shell(_ script: String, signalAfter: Double? = nil) throws -> (code: Int32, stderr: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", script]
    var env = ProcessInfo.processInfo.environment
    env["SWEEP"] = try sweepBinary()
    p.environment = env
    let err = Pipe()
    p.standardError = err
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    if let signalAfter {
        Thread.sleep(forTimeInterval: signalAfter)
        kill(p.processIdentifier, SIGINT)
    }
    let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return (p.terminationStatus, text)
}

/// Routes an adversarial trial found open (issue 48), each kept shut.
@Suite("Open routes, closed", .serialized)
struct OpenRoutesTests {
    @Test("--results cannot replace the input of a job refused at validation; nothing is written")
    func resultsOverRefusedInput() throws {
        let dir = try hostileInput(name: "in.jpg")
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/in.jpg"))
        let jobs = dir + "/jobs.jsonl"
        try #"{"before": "\#(dir)/in.jpg", "output": "../escape.gif"}"#.write(toFile: jobs, atomically: true, encoding: .utf8)
        let error = #expect(throws: SweepError.self) {
            _ = try BatchCommand.run([jobs, "--results", dir + "/in.jpg", "--quiet", "--out-dir", dir], environment: [:])
        }
        #expect(error?.code == .usage && error?.message.contains("in.jpg") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/in.jpg")) == before)
        #expect(listing(dir) == ["in.jpg", "jobs.jsonl"], "\(listing(dir))")
    }

    @Test("Under a file-size limit a render exits 74 naming the limit, and leaves nothing", arguments: ["x.gif", "x.mp4", "f-%03d.png"])
    func fileSizeLimit(output: String) throws {
        let dir = try everydayInputs()
        let r = try shell(
            #"cd "\#(dir)" && ulimit -f 8 && exec "$SWEEP" render before.png after.png -o '\#(output)' --size 400x300 --quiet"#)
        #expect(r.code == 74 && r.stderr.contains("file-size limit"), "\(r)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(listing(dir) == ["after.png", "before.png", "wide.png"], "\(listing(dir))")
    }

    @Test("Under a file-size limit the output fits in, a render succeeds: the decode worker's memory fits under it too")
    func roomyFileSizeLimit() throws {
        let dir = try everydayInputs()
        let r = try shell(#"cd "\#(dir)" && ulimit -f 4096 && exec "$SWEEP" render before.png after.png -o out.gif --size 90x60 --quiet"#)
        #expect(r.code == 0, "\(r)")
        #expect(try GIFReader(path: dir + "/out.gif").frames.count > 1)
    }

    @Test("A SIGINT ignored by the shell (a background job) stays ignored: the render finishes")
    func inheritedIgnore() throws {
        let dir = try everydayInputs()
        // `trap '' INT` makes sh ignore SIGINT, and exec hands that to sweep, as `cmd &` does.
        let r = try shell(
            #"cd "\#(dir)" && trap '' INT && exec "$SWEEP" render before.png after.png -o out.gif --size 800x600 --fps 30 --quiet"#,
            signalAfter: 0.5)
        #expect(r.code == 0, "\(r)")
        #expect(FileManager.default.fileExists(atPath: dir + "/out.gif"))
        // Not ignored, the same SIGINT stops it with 130 and nothing left behind.
        let stopped = try shell(
            #"cd "\#(dir)" && exec "$SWEEP" render before.png after.png -o out2.gif --size 1200x900 --fps 50 --duration 8 --quiet"#,
            signalAfter: 0.5)
        #expect(stopped.code == 130, "\(stopped)")
        #expect(!listing(dir).contains { $0.contains("out2") }, "\(listing(dir))")
    }

    @Test("Batch inputs stay in the input folder: outside paths fail alike, existing or not, unless allowed")
    func confinedInputs() throws {
        let outside = try hostileInput(name: "secret.png")
        let dir = try hostileInput()
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.png", withDestinationPath: outside + "/secret.png")
        try #"{"version": 1, "saturation": 0}"#.write(toFile: outside + "/look.json", atomically: true, encoding: .utf8)
        let tiny = HostileBatchTests.tiny
        let rel = "../" + URL(fileURLWithPath: outside).lastPathComponent
        let lines = [
            #"{"before": "in.png", "output": "ok.gif", \#(tiny)}"#,
            #"{"before": "\#(outside)/secret.png", "output": "a.gif", \#(tiny)}"#,
            #"{"before": "\#(outside)/missing.png", "output": "b.gif", \#(tiny)}"#,
            #"{"before": "\#(rel)/secret.png", "output": "c.gif", \#(tiny)}"#,
            #"{"before": "link.png", "output": "d.gif", \#(tiny)}"#,
            #"{"before": "in.png", "after": "/etc/hostname", "output": "e.gif", \#(tiny)}"#,
            #"{"before": "in.png", "output": "f.gif", "look": "\#(outside)/look.json", \#(tiny)}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/jobs.jsonl", atomically: true, encoding: .utf8)
        // Inputs are relative to the jobs file's folder (the tests run elsewhere).
        #expect(try BatchCommand.run([dir + "/jobs.jsonl", "--quiet", "--out-dir", dir, "--jobs", "1"], environment: [:]) == 6)
        let results = try resultLines(dir + "/jobs.results.jsonl").sorted { ($0["line"] as! Int) < ($1["line"] as! Int) }
        #expect(results.map { $0["status"] as? String } == ["ok"] + Array(repeating: "failed", count: 6))
        for r in results.dropFirst() {
            // The same code and words whether the file exists or not: a job learns nothing.
            #expect(r["exit"] as? Int == 65, "\(r)")
            let error = r["error"] as? String ?? ""
            #expect(error.contains("leaves the input folder (\(dir))") && error.contains("--in-dir"), "\(error)")
        }
        #expect(!listing(dir).contains { $0.hasPrefix("a.") || $0.hasPrefix("c.") || $0.hasPrefix("f.") })
        // Trusted jobs may read anywhere.
        #expect(try BatchCommand.run([dir + "/jobs.jsonl", "--quiet", "--out-dir", dir, "--allow-absolute"], environment: [:]) == 2)
        let allowed = try resultLines(dir + "/jobs.results.jsonl").filter { $0["status"] as? String == "ok" }.count
        #expect(allowed == 5)  // missing.png is missing, /etc/hostname is not a picture
        // --in-dir moves the folder relative inputs are read from.
        try #"{"before": "secret.png", "output": "g.gif", \#(tiny)}"#.write(toFile: dir + "/more.jsonl", atomically: true, encoding: .utf8)
        #expect(try BatchCommand.run([dir + "/more.jsonl", "--quiet", "--out-dir", dir, "--in-dir", outside], environment: [:]) == 0)
        #expect(FileBytes.size(dir + "/g.gif") > 0)
    }

    @Test("--resume redoes a job whose input changed, or whose output was altered; keeps one that is whole")
    func resumeNoticesChanges() throws {
        let dir = try hostileInput()
        try #"{"before": "in.png", "output": "a.gif", \#(HostileBatchTests.tiny)}"#.write(
            toFile: dir + "/jobs.jsonl", atomically: true, encoding: .utf8)
        let run = { () throws -> String? in
            _ = try BatchCommand.run([dir + "/jobs.jsonl", "--quiet", "--out-dir", dir, "--resume"], environment: [:])
            return try resultLines(dir + "/jobs.results.jsonl").first?["status"] as? String
        }
        #expect(try run() == "ok")
        #expect(try run() == "skipped")
        let first = try GIFReader(path: dir + "/a.gif").frames[0]
        // A new picture under the same name: the old output is stale.
        try StillEncoder.write(Resampler.resize(DemoScenes.gradedLandscape(), width: 60, height: 80), to: dir + "/in.png", format: .png)
        #expect(try run() == "ok")
        #expect(try GIFReader(path: dir + "/a.gif").frames[0].pixels != first.pixels)
        #expect(try run() == "skipped")
        // One byte changed in the output: redone.
        var bytes = try FileBytes.read(dir + "/a.gif", limit: 1 << 20)
        bytes[bytes.count / 2] ^= 0xFF
        try FileBytes.write(bytes, to: dir + "/a.gif", reportAs: "a.gif")
        #expect(try run() == "ok")
        #expect(Sidecar.digest(of: dir + "/a.gif")?.bytes == FileBytes.size(dir + "/a.gif"))
    }

    @Test(
        "A clip exactly at the pixel limit is read, not called corrupt; one pixel row more is refused by the limit",
        arguments: [("gif", ["-c:v", "gif"]), ("avi", ["-c:v", "mjpeg"]), ("mp4", ["-c:v", "libx264", "-pix_fmt", "yuv420p"])])
    func clipAtPixelLimit(ext: String, codec: [String]) throws {
        let dir = try scratchDir()
        // FFmpeg's own cap counts row padding: a 1000×1000 clip under --max-pixels 1000000
        // was refused as "corrupt or truncated".
        for (name, height) in [("at", 1000), ("over", 1002)] {
            try ClipMaker.ffmpeg(
                ["-f", "lavfi", "-i", "testsrc=size=1000x\(height):rate=5", "-frames:v", "3"] + codec + ["\(dir)/\(name).\(ext)"])
        }
        let limit = ["--max-pixels", "1000000", "--size", "64x64", "--quiet"]
        let at = try runSweep(["render", "\(dir)/at.\(ext)", "-o", dir + "/out-at.mp4"] + limit)
        #expect(at.code == 0, "\(at.stderr)")
        #expect(try VideoReader(path: dir + "/out-at.mp4").frames.count >= 3)
        let over = try runSweep(["render", "\(dir)/over.\(ext)", "-o", dir + "/out-over.mp4"] + limit)
        #expect(over.code == 65 && over.stderr.contains("1000×1002 pixels, over the limit of 1000000"), "\(over.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out-over.mp4"))
    }

    @Test("A page's 2x sides over the size limit are refused before any work, naming --size; at the limit it renders")
    func retinaLimit() throws {
        let dir = try hostileInput()
        let over = try runSweep(["render", dir + "/in.png", "-o", dir + "/p.html", "--retina", "--size", "8193x64", "--quiet"])
        #expect(over.code == 64 && over.stderr.hasPrefix("sweep: --size: the page's sides at twice the size"), "\(over.stderr)")
        #expect(over.stderr.contains("16386x128, over the limit of 16384") && !FileManager.default.fileExists(atPath: dir + "/p.html"))
        let at = try runSweep(["render", dir + "/in.png", "-o", dir + "/p.html", "--retina", "--size", "8192x64", "--quiet"])
        #expect(at.code == 0, "\(at.stderr)")
        #expect(try String(contentsOfFile: dir + "/p.html", encoding: .utf8).contains(" 2x\""))
    }

    /// An animated WebP of `frames` one-pixel frames on a `side`² canvas, 40 ms each.
    static func pixelFramesWebP(side: Int, frames: Int) throws -> [UInt8] {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func chunk(_ tag: String, _ body: [UInt8]) -> [UInt8] {
            Array(tag.utf8) + le(body.count, 4) + body + (body.count % 2 == 1 ? [0] : [])
        }
        let pixel = RGBAImage(width: 1, height: 1, fill: RGBA8(r: 200, g: 40, b: 40, a: 255))
        let still = try StillEncoder.encode(pixel, format: .webp, quality: 90, name: "pixel")
        let bitstream = Array(still[12...])  // the VP8/VP8L chunk after "RIFF….WEBP"
        var body = Array("WEBP".utf8) + chunk("VP8X", [0x02, 0, 0, 0] + le(side - 1, 3) + le(side - 1, 3))
        body += chunk("ANIM", [0, 0, 0, 0, 0, 0])
        for i in 0..<frames {
            let at = (i * 2 % side) / 2
            body += chunk("ANMF", le(at, 3) + le(at, 3) + le(0, 3) + le(0, 3) + le(40, 3) + [0] + bitstream)
        }
        return Array("RIFF".utf8) + le(body.count, 4) + body
    }

    @Test("A tiny animated WebP asking for a huge canvas × frames is refused before any compositing; a small one plays its length")
    func webpCanvasFrames() throws {
        let dir = try scratchDir()
        try Data(try Self.pixelFramesWebP(side: 10000, frames: 100)).write(to: URL(fileURLWithPath: dir + "/bomb.webp"))
        #expect(FileBytes.size(dir + "/bomb.webp") < 10_000)
        let bomb = try runSweep(["render", dir + "/bomb.webp", "-o", dir + "/b.mp4", "--size", "64x64", "--quiet"])
        #expect(bomb.code == 65 && bomb.stderr.contains("100 frames on a 10000×10000 canvas, over the limit"), "\(bomb.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/b.mp4"))
        try Data(try Self.pixelFramesWebP(side: 64, frames: 25)).write(to: URL(fileURLWithPath: dir + "/small.webp"))
        let small = try runSweep(["render", dir + "/small.webp", "-o", dir + "/s.mp4", "--size", "64x64", "--fps", "25", "--quiet"])
        #expect(small.code == 0, "\(small.stderr)")
        // 25 frames of 40 ms: 1 s, read from the container without decoding a frame.
        #expect(try VideoReader(path: dir + "/s.mp4").frames.count == 25)
    }

    @Test(
        "A Matroska clip stating 240 fps with three frames 208 s apart runs at the 10 fps floor, not 100 000 frames; a real 240 fps clip keeps its rate"
    )
    func lyingRate() throws {
        let dir = try scratchDir()
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=32x32:rate=240", "-frames:v", "3", "-vf", "setpts=N*208/TB", "-fps_mode", "passthrough",
            "-c:v", "libx264", dir + "/gap.mkv",
        ])
        let gap = try runSweep(["render", dir + "/gap.mkv", "-o", dir + "/gap.mp4", "--size", "32x32"])
        #expect(gap.code == 0, "\(gap.stderr)")
        #expect(gap.stderr.contains("the output runs at 10 fps, its frames held"), "\(gap.stderr)")
        let frames = try VideoReader(path: dir + "/gap.mp4", keepFrames: false).frameCount
        #expect(abs(frames - 4160) <= 1, "\(frames)")
        try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=32x32:rate=240", "-t", "10", "-c:v", "libx264", dir + "/fast.mkv"])
        let fast = try runSweep(["render", dir + "/fast.mkv", "-o", dir + "/fast.mp4", "--size", "32x32", "--json", "--quiet"])
        #expect(fast.code == 0, "\(fast.stderr)")
        #expect(try VideoReader(path: dir + "/fast.mp4", keepFrames: false).frameCount == 2400)
    }

    @Test("A clip whose decoder would need more than its memory budget is refused from its header with exit 65, naming --max-memory")
    func decoderMemoryBudget() throws {
        let dir = try scratchDir()
        // 1280×720 4:4:4 with 16 references: about 2.8 MB a frame, 63 MB for one thread.
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=1280x720:rate=10", "-t", "1", "-pix_fmt", "yuv444p", "-c:v", "libx264",
            "-x264-params", "ref=16", dir + "/hd.mp4",
        ])
        try Data("older".utf8).write(to: URL(fileURLWithPath: dir + "/out.mp4"))
        let small = ["--size", "64x36", "--quiet"]
        let refused = try runSweep(["render", dir + "/hd.mp4", "-o", dir + "/out.mp4", "--max-memory", "100MB"] + small)
        #expect(refused.code == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("decoding needs about") && refused.stderr.contains("over the 50.0 MB a clip may take"))
        #expect(refused.stderr.hasSuffix("(--max-memory)\n"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: dir + "/out.mp4", encoding: .utf8) == "older")
        #expect(listing(dir) == ["hd.mp4", "out.mp4"])
        let fits = try runSweep(["render", dir + "/hd.mp4", "-o", dir + "/out.mp4", "--max-memory", "200MB"] + small)
        #expect(fits.code == 0, "\(fits.stderr)")
        #expect(try VideoReader(path: dir + "/out.mp4", keepFrames: false).frameCount == 10)
        #expect(usageError(["in.mp4", "-o", "x.mp4", "--max-memory", "12"])?.message.contains("out of range") == true)
    }
}
