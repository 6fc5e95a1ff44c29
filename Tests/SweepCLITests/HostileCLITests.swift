import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepCLI

/// A scratch folder holding `in.png` (a small photo); returns the folder.
func hostileInput(name: String = "in.png") throws -> String {
    let dir = try scratchDir()
    try StillEncoder.write(Resampler.resize(DemoScenes.flatLandscape(), width: 60, height: 80), to: dir + "/" + name, format: .png)
    return dir
}

/// The folder's file names (hidden ones included), sorted, recursively.
func listing(_ dir: String) -> [String] {
    ((FileManager.default.enumerator(atPath: dir)?.allObjects as? [String]) ?? []).sorted()
}

/// Renders that must write nothing but what they are asked to, and fail cleanly otherwise:
/// each case is a class of issue 14's adversarial trial.
@Suite("Hostile options and files", .serialized)
struct HostileCLITests {
    static let small = ["--size", "32x48", "--fps", "5", "--duration", "0.4", "--hold", "0", "--quiet"]

    /// Expects exit `code`, one line on stderr mentioning `mentions`, `in.png` unchanged and
    /// nothing new in the folder.
    func expectRefused(
        _ r: (code: Int32, stdout: String, stderr: String), code: Int32, mentions: String, dir: String,
        before: [String], input: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(r.code == code, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(mentions), "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(listing(dir) == before, sourceLocation: sourceLocation)
        #expect(FileManager.default.contents(atPath: dir + "/in.png").map { [UInt8]($0) } == input, sourceLocation: sourceLocation)
    }

    @Test(
        "Encoder options that name files are refused before anything is written",
        arguments: [
            (["--codec-opt", "x264-params=dump-yuv=IN"], "--codec-opt"),
            (["--codec-opt", "stats=IN"], "--codec-opt"),
            (["--codec-opt", "passlogfile=IN"], "--codec-opt"),
            (["--codec-opt", "x264opts=dump-yuv=IN"], "--codec-opt"),
            (["--codec-opt", #"x264-params=keyint=10\:dump-yuv=IN"#], "--codec-opt"),
            (["--codec-opt", "x264-params=keyint=10:'dump-yuv=IN'"], "--codec-opt"),
            (["--codec", "hevc", "--codec-opt", "x265-params=log-level=error:csv=IN"], "--codec-opt"),
            (["--codec", "hevc", "--codec-opt", "x265-params=analysis-save=IN"], "--codec-opt"),
            (["--codec", "hevc", "--codec-opt", "x265-params=qpfile=IN"], "--codec-opt"),
            (["--codec", "vp9", "--codec-opt", "stats=IN"], "--codec-opt"),
            (["--crf", "0"], "--crf"),
            (["--codec", "vp9", "--crf", "63", "--codec-opt", "crf=70"], "--crf"),
        ])
    func encoderOptions(extra: [String], mentions: String) throws {
        let dir = try hostileInput()
        let before = listing(dir), input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/in.png")))
        let out = dir + "/out." + (extra.contains("vp9") ? "webm" : "mp4")
        let r = try runSweep(
            ["render", dir + "/in.png", "-o", out] + Self.small
                + extra.map { $0.replacingOccurrences(of: "IN", with: dir + "/in.png") })
        expectRefused(r, code: 64, mentions: mentions, dir: dir, before: before, input: input)
    }

    @Test("An output ending in '/' is refused before any frame is rendered", arguments: [["render"], ["preview"]])
    func trailingSlash(command: [String]) throws {
        let dir = try hostileInput()
        let before = listing(dir), input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/in.png")))
        let r = try runSweep(command + [dir + "/in.png", "-o", dir + "/x.gif/", "--size", "32x48", "--quiet"])
        expectRefused(r, code: 64, mentions: "the output ends in '/', so it names a folder", dir: dir, before: before, input: input)
    }

    @Test("Too many frames names the settings in words, not a --duration the user never gave")
    func tooManyFrames() throws {
        let dir = try hostileInput()
        let before = listing(dir), input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/in.png")))
        let r = try runSweep([
            "render", dir + "/in.png", "-o", dir + "/x.mp4", "--loop", "65535", "--fps", "60", "--size", "32x48", "--quiet",
        ])
        expectRefused(r, code: 64, mentions: "lower the frame rate, the duration or the loop count", dir: dir, before: before, input: input)
        #expect(!r.stderr.contains("--duration"), "\(r.stderr)")
    }

    @Test("Allowed encoder options still work, packed ones included")
    func allowedOptions() throws {
        let dir = try hostileInput()
        let r = try runSweep(
            [
                "render", dir + "/in.png", "-o", dir + "/ok.mp4", "--crf", "30", "--codec-opt", "x264-params=keyint=10:bframes=2",
                "--codec-opt", "tune=stillimage",
            ] + Self.small)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(FileBytes.size(dir + "/ok.mp4") > 0)
    }

    @Test("A PNG pattern whose frames would replace an input is refused; its clean-up never removes an input")
    func patternInputs() throws {
        let dir = try hostileInput(name: "f-1.png")
        try FileManager.default.copyItem(atPath: dir + "/f-1.png", toPath: dir + "/in.png")
        let before = listing(dir), input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/in.png")))
        let r = try runSweep(["render", dir + "/f-1.png", "-o", dir + "/f-%d.png"] + Self.small)
        expectRefused(r, code: 64, mentions: "f-1.png", dir: dir, before: before, input: input)
        // 0.4 s at 5 fps: frames 0 and 1; g-2.png, the input, is where an older sequence's
        // clean-up would go on.
        try FileManager.default.copyItem(atPath: dir + "/in.png", toPath: dir + "/g-2.png")
        let ok = try runSweep(["render", dir + "/g-2.png", "-o", dir + "/g-%d.png"] + Self.small)
        #expect(ok.code == 0, "\(ok.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/g-2.png").map { [UInt8]($0) } == input)
        #expect(FileManager.default.fileExists(atPath: dir + "/g-1.png"))
    }

    @Test("--poster is checked like an output before anything is written")
    func poster() throws {
        // The poster of v.mp4 is v.mp4.poster.jpg: here that name is the input photo.
        let dir = try hostileInput(name: "v.mp4.poster.jpg")
        try FileManager.default.copyItem(atPath: dir + "/v.mp4.poster.jpg", toPath: dir + "/in.png")
        let before = listing(dir), input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/v.mp4.poster.jpg")))
        let r = try runSweep(["render", dir + "/v.mp4.poster.jpg", "-o", dir + "/v.mp4", "--poster"] + Self.small)
        #expect(r.code == 64 && r.stderr.contains("v.mp4.poster.jpg"), "\(r.stderr)")
        #expect(listing(dir) == before)
        #expect(FileManager.default.contents(atPath: dir + "/v.mp4.poster.jpg").map { [UInt8]($0) } == input)
    }

    @Test("sweep plan never writes its picture over the photo it was drawn from")
    func planOverInput() throws {
        let dir = try hostileInput()
        let before = listing(dir), input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/in.png")))
        let r = try runSweep(["plan", "reveal", "-o", dir + "/./in.png", dir + "/in.png", "--size", "60x80"])
        expectRefused(r, code: 64, mentions: "in.png", dir: dir, before: before, input: input)
    }

    @Test("Labels, knobs and ui-scale far larger than the frame are shrunk with a note, quickly")
    func hugeOverlay() throws {
        let dir = try hostileInput()
        let start = Date()
        let label = String(repeating: "W", count: 3000)
        let r = try runSweep([
            "preview", dir + "/in.png", "-o", dir + "/p.png", "--size", "200x120", "--ui-scale", "20",
            "--knob-size", "1000", "--label-size", "500", "--before-label", label,
        ])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr.contains("note: the knob was shrunk") && r.stderr.contains("left out"))
        #expect(Date().timeIntervalSince(start) < 30)
        let still = try ImageDecoder.decode(path: dir + "/p.png")
        #expect(still.width == 200 && still.height == 120)
    }

    @Test(
        "Renders over the frame or duration limits are refused before any frame",
        arguments: [
            (["--fps", "240", "--duration", "1000", "-o", "OUT/x.mp4"], "over the limit of 100000"),
            (["--duration", "4000", "-o", "OUT/x.gif"], "--duration"),
            (["--loop", "65535", "--duration", "10", "-o", "OUT/x.mp4"], "over the limit of 100000"),
        ])
    func frameLimits(args: [String], mentions: String) throws {
        let dir = try hostileInput()
        let before = listing(dir), input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/in.png")))
        let r = try runSweep(
            ["render", dir + "/in.png", "--size", "32x32", "--quiet"] + args.map { $0.replacingOccurrences(of: "OUT", with: dir) })
        expectRefused(r, code: 64, mentions: mentions, dir: dir, before: before, input: input)
    }

    @Test("Preset files: a huge number names its line and column; too many keyframes and endless files are refused")
    func presetLimits() throws {
        let dir = try hostileInput()
        try #"{"version": 1e400, "position": [{"time": 0, "value": 1}]}"#.write(
            toFile: dir + "/big.json", atomically: true, encoding: .utf8)
        let keys = Array(repeating: #"{"time": 0, "value": 1}"#, count: 10_001).joined(separator: ",")
        try #"{"version": 1, "position": [\#(keys)]}"#.write(toFile: dir + "/many.json", atomically: true, encoding: .utf8)
        let before = listing(dir), input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/in.png")))
        let big = try runSweep(["render", dir + "/in.png", "-o", dir + "/x.gif", "--preset", dir + "/big.json"] + Self.small)
        expectRefused(big, code: 65, mentions: "1e400 at line 1, column 13", dir: dir, before: before, input: input)
        let many = try runSweep(["render", dir + "/in.png", "-o", dir + "/x.gif", "--preset", dir + "/many.json"] + Self.small)
        expectRefused(many, code: 65, mentions: "10001 keyframes", dir: dir, before: before, input: input)
        let endless = try runSweep(["render", dir + "/in.png", "-o", dir + "/x.gif", "--look", "/dev/zero"] + Self.small)
        expectRefused(endless, code: 65, mentions: "larger than", dir: dir, before: before, input: input)
    }

    @Test("Control characters in names are escaped in messages")
    func escapes() throws {
        let r = try runSweep(["render", "a\u{1B}[2Jb\nc\u{9B}d.png", "-o", "x.gif"])
        #expect(r.code == 66)
        #expect(r.stderr.contains(#"a\u{1b}[2Jb\nc\u{9b}d.png"#) && !r.stderr.contains("\u{1B}"), "\(r.stderr)")
        #expect(!r.stderr.dropLast().contains("\n") && !r.stderr.contains("\u{9B}"))
    }

    @Test("A closed stderr or a broken stdout gives an exit code, not a signal; lost --json output exits 74")
    func closedStreams() throws {
        let dir = try hostileInput()
        let exe = try sweepBinary()
        func sh(_ script: String) throws -> Int32 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/bash")
            p.arguments = ["-c", script, "bash", exe, dir]
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationReason == .exit)
            return p.terminationStatus
        }
        let render = #""$1" render "$2/in.png" --size 32x32 --fps 5 --duration 0.2 --hold 0"#
        #expect(try sh(#""$1" render --frobnicate 2>&-"#) == 64)
        #expect(try sh(#""$1" render --frobnicate 2>&1 >/dev/null | true; exit ${PIPESTATUS[0]}"#) == 64)
        #expect(try sh(render + #" -o "$2/x.gif" --json >/dev/full 2>/dev/null"#) == 74)
        #expect(try sh(render + #" -o "$2/y.gif" --json 2>/dev/null | true; exit ${PIPESTATUS[0]}"#) == 74)
    }
}
