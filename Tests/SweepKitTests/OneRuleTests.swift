import Foundation
import SweepImaging
import SweepKit
import SweepMedia
import SweepTestSupport
import Testing

/// The command line, a batch job and SweepKit share every rendering rule: the same spec
/// gives the same bytes through each.
@Suite("One rule in one place (issue 47)")
struct OneRuleTests {
    /// Two pictures and a format file (a GIF of 2.5 s at 12 fps, 160x120, with safe insets)
    /// in a fresh folder.
    func inputs() throws -> String {
        let dir = try Self.pictures("one-rule")
        try Data(
            #"{"version": 1, "size": "160x120", "fps": 12, "duration": 2.5, "extension": "gif", "codec": "gif", "maxBytes": 50000000, "safeInsets": {"top": 0.1}}"#
                .utf8
        ).write(to: URL(fileURLWithPath: dir + "/fmt.json"))
        try Data(
            #"{"version": 1, "size": "200x100", "extension": "png", "still": true}"#.utf8
        ).write(to: URL(fileURLWithPath: dir + "/card.json"))
        return dir
    }

    /// A fresh folder named from `prefix` holding before.png and after.png, two 320x240
    /// landscapes (a flat and a graded one).
    static func pictures(_ prefix: String) throws -> String {
        let dir = try Scratch.folder(prefix)
        try StillEncoder.write(Resampler.resize(DemoScenes.flatLandscape(), width: 320, height: 240), to: dir + "/before.png", format: .png)
        try StillEncoder.write(
            Resampler.resize(DemoScenes.gradedLandscape(), width: 320, height: 240), to: dir + "/after.png", format: .png)
        return dir
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("A format with a hold and an ease: the CLI, a batch job and SweepKit write the same GIF")
    func sameGIF() throws {
        let dir = try inputs()
        let cli = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/cli.gif", "--format", dir + "/fmt.json",
            "--hold", "0.3", "--ease", "spring", "-q",
        ])
        #expect(cli.code == 0, "\(cli.stderr)")
        try Data(
            #"{"before": "before.png", "after": "after.png", "output": "batch.gif", "format": "fmt.json", "hold": 0.3, "ease": "spring"}"#
                .utf8
        ).write(to: URL(fileURLWithPath: dir + "/jobs.jsonl"))
        let batch = try runSweep(["batch", dir + "/jobs.jsonl", "--out-dir", dir, "--quiet"])
        #expect(batch.code == 0, "\(batch.stderr)")

        var comparison = Comparison(before: URL(fileURLWithPath: dir + "/before.png"), after: URL(fileURLWithPath: dir + "/after.png"))
        comparison.animation = Comparison.sweep(hold: 0.3, curve: try #require(Curve.named["spring"]))
        comparison.apply(try PresetLibrary.locate().format(dir + "/fmt.json"))
        let kit = try comparison.render(to: URL(fileURLWithPath: dir + "/kit.gif"))
        #expect(kit.frames == 30 && kit.width == 160 && kit.height == 120 && abs(kit.duration - 2.5) < 1e-9)

        let reference = try bytes(dir + "/cli.gif")
        #expect(try bytes(dir + "/batch.gif") == reference)
        #expect(try bytes(dir + "/kit.gif") == reference)
        // The pass is the format's 2.5 s with the asked holds: 0.3 s, 1.9 s of sweep, 0.3 s.
        let p = comparison.animation.position.keyframes.map(\.time)
        #expect(p.count == 4 && abs(p[1] - 0.3) < 1e-9 && abs(p[2] - 2.2) < 1e-9 && abs(p[3] - 2.5) < 1e-9)
    }

    @Test("A still format: the CLI and SweepKit write the same still, named with the format's extension")
    func sameStill() throws {
        let dir = try inputs()
        let cli = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/cli", "--format", dir + "/card.json", "-q",
        ])
        #expect(cli.code == 0, "\(cli.stderr)")
        var comparison = Comparison(before: URL(fileURLWithPath: dir + "/before.png"), after: URL(fileURLWithPath: dir + "/after.png"))
        comparison.apply(try PresetLibrary.locate().format(dir + "/card.json"))
        let kit = try comparison.render(to: URL(fileURLWithPath: dir + "/kit"))
        #expect(kit.output == dir + "/kit.png" && kit.width == 200 && kit.height == 100 && kit.frames == 1)
        #expect(try bytes(dir + "/kit.png") == bytes(dir + "/cli.png"))
    }

    @Test("frames(_:) hands over the frames a PNG sequence holds: same count, same pixels")
    func framesThroughTheRenderer() throws {
        let dir = try inputs()
        var comparison = Comparison(before: URL(fileURLWithPath: dir + "/before.png"), after: URL(fileURLWithPath: dir + "/after.png"))
        comparison.fps = 5
        comparison.animation = Comparison.sweep(duration: 2, hold: 0.25)
        let sequence = try comparison.render(to: URL(fileURLWithPath: dir + "/f-%02d.png"))
        var seen: [Int] = []
        let r = try comparison.frames { i, frame in
            // No size given: the before image's, as the sequence has it.
            let written = try ImageDecoder.decode(path: String(format: dir + "/f-%02d.png", i))
            #expect(frame.width == 320 && frame.pixels == written.pixels)
            seen.append(i)
        }
        #expect(seen == Array(0..<sequence.frames) && r.frames == 10 && sequence.frames == 10)
    }
}
