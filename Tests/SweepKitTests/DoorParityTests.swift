import Foundation
import SweepImaging
import SweepKit
import SweepMedia
import SweepTestSupport
import Testing

/// Requests that the command line and SweepKit once resolved apart (issue 57): each now gives
/// the same bytes, or the same refusal, through both (and a batch job where it has a key).
@Suite("The same request through the CLI, a batch job and SweepKit")
struct DoorParityTests {
    /// Two pictures and the formats the cases use, in a fresh folder.
    func inputs() throws -> String {
        let dir = try OneRuleTests.pictures("door-parity")
        let formats = [
            "long": #"{"version": 1, "size": "96x72", "fps": 5, "duration": 8, "extension": "gif", "codec": "gif"}"#,
            "card": #"{"version": 1, "size": "200x100", "extension": "png", "still": true, "maxBytes": 1024}"#,
            "h264": #"{"version": 1, "size": "96x72", "fps": 5, "duration": 1, "extension": "mp4", "codec": "h264", "maxBytes": 5000000}"#,
        ]
        for (name, text) in formats { try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/\(name).json")) }
        return dir
    }

    func comparison(_ dir: String) -> Comparison {
        Comparison(before: URL(fileURLWithPath: dir + "/before.png"), after: URL(fileURLWithPath: dir + "/after.png"))
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("A hold under a format's duration: 1.5 s through every door, whichever was set first")
    func holdUnderFormat() throws {
        let dir = try inputs()
        let cli = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/cli.gif", "--format", dir + "/long.json", "--hold", "1.5",
            "-q",
        ])
        #expect(cli.code == 0, "\(cli.stderr)")
        try Data(#"{"before": "before.png", "after": "after.png", "output": "batch.gif", "format": "long.json", "hold": 1.5}"#.utf8)
            .write(to: URL(fileURLWithPath: dir + "/jobs.jsonl"))
        #expect(try runSweep(["batch", dir + "/jobs.jsonl", "--out-dir", dir, "--quiet"]).code == 0)
        let format = try PresetLibrary.locate().format(dir + "/long.json")
        var first = comparison(dir)
        first.timing = SweepTiming(hold: 1.5)
        first.apply(format)
        var second = comparison(dir)
        second.apply(format)
        second.timing = SweepTiming(hold: 1.5)
        let kit = try first.render(to: URL(fileURLWithPath: dir + "/kit.gif"))
        try second.render(to: URL(fileURLWithPath: dir + "/kit2.gif"))
        // The pass is the format's 8 s with the asked holds: 1.5 s, 5 s of sweep, 1.5 s.
        let times = first.animation.position.keyframes.map(\.time)
        #expect(times.count == 4 && abs(times[1] - 1.5) < 1e-9 && abs(times[2] - 6.5) < 1e-9 && abs(kit.duration - 8) < 1e-9, "\(times)")
        let reference = try bytes(dir + "/cli.gif")
        #expect(try bytes(dir + "/batch.gif") == reference)
        #expect(try bytes(dir + "/kit.gif") == reference)
        #expect(try bytes(dir + "/kit2.gif") == reference)
    }

    @Test("Keyframes given before or after the format are stretched to its duration alike")
    func keyframesAndFormat() throws {
        let dir = try inputs()
        let format = try PresetLibrary.locate().format(dir + "/long.json")
        var before = comparison(dir)
        before.animation = Comparison.sweep(duration: 2, hold: 0.25)
        before.apply(format)
        var after = comparison(dir)
        after.apply(format)
        after.animation = Comparison.sweep(duration: 2, hold: 0.25)
        let a = try before.render(to: URL(fileURLWithPath: dir + "/a.gif"))
        let b = try after.render(to: URL(fileURLWithPath: dir + "/b.gif"))
        #expect(abs(a.duration - 8) < 1e-9 && abs(b.duration - 8) < 1e-9 && a.frames == 40, "\(a) / \(b)")
        #expect(try bytes(dir + "/a.gif") == bytes(dir + "/b.gif"))
    }

    @Test("A still format over its cap is refused through both doors, with the same code and words, and nothing written")
    func stillOverCap() throws {
        let dir = try inputs()
        let cli = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/cli", "--format", dir + "/card.json", "-q",
        ])
        var kit = comparison(dir)
        kit.apply(try PresetLibrary.locate().format(dir + "/card.json"))
        let error = try #require(throws: SweepError.self) { try kit.render(to: URL(fileURLWithPath: dir + "/kit")) }
        #expect(cli.code == error.code.exitCode && cli.code != 0, "CLI \(cli.code): \(cli.stderr); kit: \(error)")
        #expect(cli.stderr.contains(error.message), "CLI: \(cli.stderr); kit: \(error.message)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/cli.png") && !FileManager.default.fileExists(atPath: dir + "/kit.png"))
    }

    @Test("A video format written as .gif: the same GIF and the same note through both doors")
    func videoFormatAsGIF() throws {
        let dir = try inputs()
        let cli = try runSweep(["render", dir + "/before.png", dir + "/after.png", "-o", dir + "/cli.gif", "--format", dir + "/h264.json"])
        #expect(cli.code == 0, "\(cli.stderr)")
        var kit = comparison(dir)
        kit.apply(try PresetLibrary.locate().format(dir + "/h264.json"))
        let result = try kit.render(to: URL(fileURLWithPath: dir + "/kit.gif"))
        let note = try #require(result.notes.first { $0.contains("is made for h264; this is gif") }, "\(result.notes)")
        #expect(note.contains("5000000-byte cap is not enforced"))
        #expect((cli.stdout + cli.stderr).contains(note), "CLI said: \(cli.stdout) \(cli.stderr)")
        #expect(try bytes(dir + "/kit.gif") == bytes(dir + "/cli.gif"))
    }

    @Test("A still at a position under a cap: the bytes sweep preview writes, within the cap, through both doors")
    func stillUnderCap() throws {
        let dir = try inputs()
        var kit = comparison(dir)
        kit.size = .exact(width: 320, height: 240)
        try kit.still(at: 0.3, to: URL(fileURLWithPath: dir + "/free.jpg"))
        // A cap two thirds of the still's own size (at least the 1 KiB a cap may be).
        let cap = max(1024, try bytes(dir + "/free.jpg").count * 2 / 3)
        let cli = try runSweep([
            "preview", dir + "/before.png", dir + "/after.png", "-o", dir + "/cli.jpg", "--position", "0.3", "--max-bytes", "\(cap)",
            "--size", "320x240",
        ])
        #expect(cli.code == 0, "\(cli.stderr)")
        kit.maxBytes = cap
        try kit.still(at: 0.3, to: URL(fileURLWithPath: dir + "/kit.jpg"))
        let written = try bytes(dir + "/kit.jpg")
        #expect(written.count <= cap && written.count > 0)
        #expect(try bytes(dir + "/free.jpg").count > cap, "the cap acted")
        #expect(written == (try bytes(dir + "/cli.jpg")))
    }

    @Test("A dissolve GIF under a cap its quality search meets: the same file through the CLI, a batch job and SweepKit")
    func dissolveUnderCap() throws {
        let dir = try inputs()
        var kit = comparison(dir)
        kit.reduceMotion = .dissolve
        try kit.render(to: URL(fileURLWithPath: dir + "/free.gif"))
        // Under 60 % of its own size: the first attempt's pixels say the curve the search reads.
        let cap = try bytes(dir + "/free.gif").count * 6 / 10
        let cli = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/cli.gif", "--reduce-motion", "dissolve", "--max-bytes",
            "\(cap)",
        ])
        #expect(cli.code == 0, "\(cli.stderr)")
        // The quality search's fit (the first attempt's colours with a larger lossy budget would say "lossy LZW").
        #expect(cli.stderr.contains("quality 90 →") && !cli.stderr.contains("lossy LZW"), "\(cli.stderr)")
        try Data(
            #"{"before": "before.png", "after": "after.png", "output": "batch.gif", "reduce-motion": "dissolve", "max-bytes": \#(cap)}"#
                .utf8
        ).write(to: URL(fileURLWithPath: dir + "/jobs.jsonl"))
        #expect(try runSweep(["batch", dir + "/jobs.jsonl", "--out-dir", dir, "--quiet"]).code == 0)
        kit.maxBytes = cap
        let result = try kit.render(to: URL(fileURLWithPath: dir + "/kit.gif"))
        let reference = try bytes(dir + "/cli.gif")
        #expect(reference.count <= cap && result.bytes == reference.count)
        #expect(try bytes(dir + "/batch.gif") == reference)
        #expect(try bytes(dir + "/kit.gif") == reference)
    }

    @Test("Clips under a format: the format's rate, not the clips', through both doors")
    func clipsUnderFormat() throws {
        let dir = try inputs()
        for (name, source) in [("ca.mp4", "testsrc2"), ("cb.mp4", "testsrc")] {
            try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "\(source)=size=96x72:rate=12:duration=2", "-pix_fmt", "yuv420p", dir + "/" + name])
        }
        let cli = try runSweep(["render", dir + "/ca.mp4", dir + "/cb.mp4", "-o", dir + "/cli.gif", "--format", dir + "/long.json", "-q"])
        #expect(cli.code == 0, "\(cli.stderr)")
        var kit = Comparison(before: URL(fileURLWithPath: dir + "/ca.mp4"), after: URL(fileURLWithPath: dir + "/cb.mp4"))
        kit.apply(try PresetLibrary.locate().format(dir + "/long.json"))
        let result = try kit.render(to: URL(fileURLWithPath: dir + "/kit.gif"))
        #expect(abs(result.fps - 5) < 0.01, "\(result.fps)")
        #expect(try bytes(dir + "/kit.gif") == bytes(dir + "/cli.gif"))
    }

    @Test("A timing set and then cleared leaves nothing behind: the format's duration stretches the keyframes")
    func timingCleared() throws {
        let dir = try inputs()
        var plain = comparison(dir)
        plain.apply(try PresetLibrary.locate().format(dir + "/long.json"))
        plain.timing = nil
        try plain.render(to: URL(fileURLWithPath: dir + "/plain.gif"))
        var cleared = comparison(dir)
        cleared.timing = SweepTiming(duration: 2, hold: 0.2)
        cleared.apply(try PresetLibrary.locate().format(dir + "/long.json"))
        cleared.timing = nil
        let result = try cleared.render(to: URL(fileURLWithPath: dir + "/cleared.gif"))
        #expect(result.notes.isEmpty, "\(result.notes)")
        #expect(try bytes(dir + "/cleared.gif") == bytes(dir + "/plain.gif"))
    }

    @Test("A duration kept over the format stays kept whatever timing comes after: 4 s, as --format F --duration 4")
    func keptDuration() throws {
        let dir = try inputs()
        let cli = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/cli.gif", "--format", dir + "/long.json", "--duration", "4",
        ])
        #expect(cli.code == 0, "\(cli.stderr)")
        var kit = comparison(dir)
        kit.apply(try PresetLibrary.locate().format(dir + "/long.json"), keeping: [.duration])
        kit.timing = SweepTiming(duration: 4)
        kit.timing = SweepTiming()  // no duration of its own: the kept one (the default 4 s pass) stands
        try kit.render(to: URL(fileURLWithPath: dir + "/kit.gif"))
        #expect(try bytes(dir + "/kit.gif") == bytes(dir + "/cli.gif"))
    }
}
