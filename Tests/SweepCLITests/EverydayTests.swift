import Foundation
import SweepGIF
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTestSupport
import SweepTimeline
import Testing

@testable import SweepCLI
@testable import SweepRequest

/// A folder with `before.png` and `after.png` (two colours, 90×60) and `wide.png` (2000×100).
func everydayInputs() throws -> String {
    let dir = try scratchDir()
    try StillEncoder.write(RGBAImage(width: 90, height: 60, fill: RGBA8(r: 200, g: 60, b: 40)), to: dir + "/before.png", format: .png)
    try StillEncoder.write(RGBAImage(width: 90, height: 60, fill: RGBA8(r: 40, g: 90, b: 210)), to: dir + "/after.png", format: .png)
    try StillEncoder.write(RGBAImage(width: 2000, height: 100, fill: RGBA8(r: 120, g: 120, b: 120)), to: dir + "/wide.png", format: .png)
    return dir
}

@Suite("Everyday use: one meaning per option (issue 15)")
struct EverydayParsingTests {
    @Test("--duration is one pass, holds included; the sweep takes what is left")
    func durationIsThePass() throws {
        let a = try parse(["--duration", "4"]).spec.animation
        #expect(a.passDuration == 4)
        #expect(a.state(at: 0.5).position == 1 && a.state(at: 3.5).position == 0)
        #expect(abs(a.state(at: 2).position - 0.5) < 1e-9)
        // Holds never take more than half the pass.
        let short = try parse(["--duration", "1", "--hold", "2"]).spec.animation
        #expect(short.passDuration == 1 && short.state(at: 0.25).position == 1 && short.state(at: 0.75).position == 0)
        #expect(try parse([]).spec.animation.passDuration == 4)
    }

    @Test(
        "Sizes as people write them",
        arguments: [
            ("1080x1080", 1080, 1080), ("1080×1080", 1080, 1080), ("1080X720", 1080, 720), ("1080", 1080, 1080),
            ("640x", 640, nil), ("x480", nil, 480),
        ] as [(String, Int?, Int?)])
    func sizes(text: String, width: Int?, height: Int?) throws {
        let o = try parse(["--size", text])
        #expect(o.spec.width == width && o.spec.height == height)
    }

    @Test("Malformed sizes are refused", arguments: ["x", "", "axb", "1x2x3", "1", "20000"])
    func badSizes(text: String) {
        #expect(usageError(["--size", text])?.subject == "--size")
    }

    @Test("--max-bytes 1KB is a range error that says the minimum, not a syntax error; too large says the maximum")
    func smallByteCap() throws {
        let e = try #require(usageError(["--max-bytes", "1KB"]))
        #expect(e.message.contains("out of range") && !e.message.contains("not a count"))
        #expect(e.fix?.contains("1 KiB") == true)
        #expect(try parse(["--max-bytes", "2KB"]).spec.maxBytes == 2000)
        // Too large says the maximum, not the minimum.
        let big = try #require(usageError(["--max-bytes", "9223372036854775807"]))
        #expect(big.message.contains("out of range") && big.fix?.contains("at most 1 TB") == true, "\(big)")
        #expect(try parse(["--max-bytes", "1000000MB"]).spec.maxBytes == 1_000_000_000_000)
    }

    @Test("The ETA waits for 3 frames and 0.5 s, and moves smoothly")
    func eta() {
        #expect(ProgressBar.eta(frames: 1, seconds: 2, remaining: 100, previous: nil) == nil)
        #expect(ProgressBar.eta(frames: 10, seconds: 0.2, remaining: 100, previous: nil) == nil)
        #expect(ProgressBar.eta(frames: 10, seconds: 1, remaining: 100, previous: nil) == 10)
        // One slow stretch moves the shown number a third of the way, not all of it.
        #expect(ProgressBar.eta(frames: 10, seconds: 4, remaining: 100, previous: 10) == 20)
    }

    @Test("The summary: stills say so, merged GIF frames are explained, the pass shows its split")
    func summaryLine() {
        func result(_ json: String) -> RenderResult { try! JSONDecoder().decode(RenderResult.self, from: Data(json.utf8)) }
        let still = result(
            #"{"output": "og.png", "format": "png", "bytes": 5000, "width": 1200, "height": 630, "frames": 1, "framesWritten": 1, "fps": 0, "duration": 0, "seconds": 0.1, "notes": []}"#
        )
        let line = SweepCommand.summary(still, split: nil)
        #expect(line.contains("still") && !line.contains("frames") && !line.contains("0.00 s)"))
        let gif = result(
            #"{"output": "x.gif", "format": "gif", "bytes": 5000, "width": 64, "height": 48, "frames": 120, "framesWritten": 91, "fps": 30, "duration": 4, "seconds": 1, "notes": []}"#
        )
        let g = SweepCommand.summary(gif, split: (0.5, 3))
        #expect(g.contains("91 frames stored, 120 rendered (identical neighbours merged)"))
        #expect(g.contains("4.00 s: 0.5 s hold, 3.0 s sweep, 0.5 s hold"))
    }
}

@Suite("Everyday use: the binary (issue 15)", .serialized)
struct EverydayBinaryTests {
    @Test("--duration gives the same pass on the command line, in a format file and over a format")
    func durationEverywhere() throws {
        let dir = try everydayInputs()
        let format = dir + "/f.json"
        try #"{"version": 1, "size": "32x24", "fps": 10, "duration": 2, "extension": "gif", "codec": "gif"}"#
            .write(toFile: format, atomically: true, encoding: .utf8)
        let runs = [
            ["--size", "32x24", "--fps", "10", "--duration", "2"], ["--format", format],
            ["--format", "github-readme", "--duration", "2", "--fps", "10", "--size", "32x24"],
        ]
        for (i, extra) in runs.enumerated() {
            let out = dir + "/d\(i).gif"
            let r = try runSweep(["render", dir + "/before.png", dir + "/after.png", "-o", out] + extra)
            #expect(r.code == 0, "\(extra): \(r.stderr)")
            #expect(try GIFReader(path: out).delays.reduce(0, +) == 200, "\(extra)")
            #expect(r.stdout.contains("2.00 s: 0.5 s hold, 1.0 s sweep, 0.5 s hold"), "\(r.stdout)")
        }
        let video = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/d.mp4", "--fps", "10", "--duration", "2", "--quiet",
        ])
        #expect(video.code == 0)
        #expect(try VideoReader(path: dir + "/d.mp4", keepFrames: false).frameCount == 20)
    }

    @Test("PNG sequences and stills are fitted like video by default, with the same note")
    func defaultSizes() throws {
        let dir = try everydayInputs()
        let seq = try runSweep([
            "render", dir + "/wide.png", dir + "/wide.png", "--look", "noir", "-o", dir + "/f-%02d.png",
            "--fps", "2", "--duration", "1", "--no-labels",
        ])
        #expect(seq.code == 0, "\(seq.stderr)")
        let frame = try ImageDecoder.decode(path: dir + "/f-00.png")
        #expect(frame.width == 1920 && frame.height == 96)
        #expect(seq.stderr.contains("fitted within 1920 px"))
        let still = try runSweep(["preview", dir + "/wide.png", "--look", "noir", "-o", dir + "/p.jpg"])
        #expect(still.code == 0 && still.stderr.contains("fitted within 1920 px"))
        #expect(try ImageDecoder.decode(path: dir + "/p.jpg").width == 1920)
    }

    @Test("Silent no-ops and mismatches are refused (64) or noted")
    func noSilentSurprises() throws {
        let dir = try everydayInputs()
        let b = dir + "/before.png", a = dir + "/after.png"
        // The same picture on both sides renders, with a note.
        let same = try runSweep(["render", b, b, "-o", dir + "/same.gif", "--size", "32x24", "--fps", "5", "--duration", "1"])
        #expect(same.code == 0 && same.stderr.contains("same picture"))
        let photo = try runSweep(["preview", b, "-o", dir + "/same.png"])
        #expect(photo.code == 0 && photo.stderr.contains("same picture"))
        let graded = try runSweep(["preview", b, "--look", "noir", "-o", dir + "/noir.png"])
        #expect(graded.code == 0 && !graded.stderr.contains("same picture"))
        // --position on render without a poster; a GIF named .mov.
        let position = try runSweep(["render", b, a, "-o", dir + "/x.gif", "--position", "0.3"])
        #expect(position.code == 64 && position.stderr.contains("--position"))
        let mov = try runSweep(["render", b, a, "-o", dir + "/c.mov", "--codec", "gif"])
        #expect(mov.code == 64 && mov.stderr.contains(".mov"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.gif") && !FileManager.default.fileExists(atPath: dir + "/c.mov"))
        // Posters for clip.mp4 and clip.gif are two files, each its own output's size.
        for (ext, size) in [("mp4", "40x30"), ("gif", "32x24")] {
            let r = try runSweep([
                "render", b, a, "-o", dir + "/clip." + ext, "--size", size, "--fps", "5", "--duration", "1", "--poster", "--quiet",
            ])
            #expect(r.code == 0, "\(r.stderr)")
        }
        #expect(try ImageDecoder.decode(path: dir + "/clip.mp4.poster.jpg").width == 40)
        #expect(try ImageDecoder.decode(path: dir + "/clip.gif.poster.jpg").width == 32)
        // A heavy crop is noted.
        let crop = try runSweep([
            "render", dir + "/wide.png", "--look", "noir", "-o", dir + "/crop.gif", "--size", "40x40", "--fps", "5", "--duration", "1",
        ])
        #expect(crop.code == 0 && crop.stderr.contains("cropped by 95 %"))
    }

    @Test("With --fit fit the tags sit on the picture, not on the letterbox bars")
    func letterboxedTags() throws {
        let dir = try everydayInputs()
        let white = dir + "/white.png"
        try StillEncoder.write(RGBAImage(width: 200, height: 50, fill: .white), to: white, format: .png)
        let r = try runSweep([
            "preview", white, "--look", "noir", "-o", dir + "/fit.png", "--size", "200x200", "--fit", "fit",
            "--no-handle", "--position", "0.5", "--ui-scale", "1",
        ])
        #expect(r.code == 0, "\(r.stderr)")
        let img = try ImageDecoder.decode(path: dir + "/fit.png")
        // The picture fills rows 75..<125; the bars stay pure black (no capsule on them)…
        let barRows = Array(0..<74) + Array(126..<200)
        #expect(barRows.allSatisfy { y in (0..<200).allSatisfy { x in img[x, y].r < 8 && img[x, y].g < 8 && img[x, y].b < 8 } })
        // …and the before tag's capsule darkens part of the white picture.
        #expect((75..<125).contains { y in (0..<100).contains { x in img[x, y].r < 200 } })
    }

    @Test("Options win over a format: --codec gif with a video format, with a note")
    func optionsWinOverFormat() throws {
        let dir = try everydayInputs()
        let r = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/sq.gif", "--format", "instagram-square",
            "--codec", "gif", "--size", "32x32", "--fps", "5", "--duration", "1",
        ])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr.contains("instagram-square") && r.stderr.contains("no longer apply"))
        let gif = try GIFReader(path: dir + "/sq.gif")
        #expect(gif.width == 32 && gif.delays.reduce(0, +) == 100)
        // An extension alone also wins.
        let ext = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/sq2.gif", "--format", "instagram-square",
            "--size", "32x32", "--fps", "5", "--duration", "1", "--quiet",
        ])
        #expect(ext.code == 0)
        #expect(try GIFReader(path: dir + "/sq2.gif").width == 32)
        // No extension: --codec picks it.
        let bare = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/sq3", "--format", "instagram-square",
            "--codec", "gif", "--size", "32x32", "--fps", "5", "--duration", "1", "--quiet",
        ])
        #expect(bare.code == 0, "\(bare.stderr)")
        #expect(try GIFReader(path: dir + "/sq3.gif").width == 32)
    }

    @Test("Every subcommand has its own help; bare sweep prints usage on stderr and exits 64")
    func help() throws {
        var texts: [String: String] = [:]
        for command in ["render", "preview", "demo", "plan", "presets", "batch"] {
            let r = try runSweep([command, "--help"])
            #expect(r.code == 0 && r.stdout.contains("sweep \(command)"), "\(command)")
            texts[command] = r.stdout
            // Each option is explained once: no entry (an option in the entries' column) starts
            // with an option another entry started with.
            let starts = r.stdout.split(separator: "\n").compactMap { line in
                line.firstMatch(of: /^(?:  -\w, |      )(--[a-z-]+)/).map { String($0.1) }
            }
            #expect(Set(starts).count == starts.count, "\(command): \(starts.sorted())")
        }
        #expect(Set(texts.values).count == texts.count)
        #expect(texts["preview"]!.contains("--position P") && texts["preview"]!.contains("shows BEFORE"))
        let bare = try runSweep([])
        #expect(bare.code == 64 && bare.stdout.isEmpty && bare.stderr.contains("usage:"))
        // Laid out as --help lays it out: lines, not escaped `\n` sequences.
        let help = try runSweep(["--help"])
        #expect(bare.stderr == help.stdout && !bare.stderr.contains("\\n") && bare.stderr.split(separator: "\n").count > 5)
    }

    @Test("--json: the summary and the error follow the schemas in docs/")
    func jsonSchemas() throws {
        let dir = try everydayInputs()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        func schema(_ name: String) throws -> [String: Any] {
            try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("docs/" + name))) as? [String: Any])
        }
        let summarySchema = try schema("summary.schema.json")
        let r = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/j.gif", "--size", "32x24", "--fps", "5", "--duration", "1",
            "--json",
        ])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        // A GIF's summary has every field, its palette size (the one optional field) too.
        #expect(Set(summary.keys) == Set(summarySchema["required"] as! [String]).union(["colors"]))
        // Only `sound`, `cutShort` and `capAdvice` are left out: they are for videos, clips and
        // size caps that take fewer colours or frames.
        #expect(
            Set(summary.keys).union(["sound", "cutShort", "capAdvice"]) == Set((summarySchema["properties"] as! [String: Any]).keys))
        let video = try runSweep([
            "render", dir + "/before.png", dir + "/after.png", "-o", dir + "/j.mp4", "--size", "32x24", "--fps", "5", "--duration", "1",
            "--json",
        ])
        let videoSummary = try #require(try JSONSerialization.jsonObject(with: Data(video.stdout.utf8)) as? [String: Any])
        let sound = try #require(videoSummary["sound"] as? [String: Any])
        #expect(sound["action"] as? String == "none" && sound["reason"] as? String == "the inputs are pictures", "\(sound)")
        #expect((summary["colors"] as? Int).map { (1...255).contains($0) } == true)
        let errorSchema = try schema("error.schema.json")
        let inner = ((errorSchema["properties"] as! [String: Any])["error"] as! [String: Any])["required"] as! [String]
        let e = try runSweep(["render", dir + "/before.png", "-o", dir + "/j.gif", "--fps", "0", "--json"])
        #expect(e.code == 64)
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(e.stdout.utf8)) as? [String: Any])
        let error = try #require(obj["error"] as? [String: Any])
        #expect(Set(error.keys) == Set(inner))
        #expect(error["exit"] as? Int == 64 && error["code"] as? String == "usage" && error["subject"] as? String == "--fps")
        // The README names every field.
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        for key in Set(summary.keys).union(videoSummary.keys) { #expect(readme.contains("`\(key)`"), "\(key)") }
    }

    @Test("A binary copied anywhere has its presets; an unknown one says where sweep looked")
    func binaryWorksAnywhere() throws {
        let dir = try everydayInputs()
        try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try sweepBinary(), toPath: dir + "/bin/sweep")
        var env = ProcessInfo.processInfo.environment
        env["SWEEP_PRESETS"] = nil
        let exe = dir + "/bin/sweep"
        let list = try runIn(dir, ["presets", "list"], exe: exe, environment: env)
        #expect(
            list.code == 0 && list.stdout.contains("noir") && list.stdout.contains("instagram-square") && list.stdout.contains("reveal"))
        let look = try runIn(
            dir, ["render", "before.png", "--look", "noir", "-o", "n.gif", "--size", "32x24", "--fps", "5", "--duration", "1", "--quiet"],
            exe: exe, environment: env)
        #expect(look.code == 0, "\(look.stderr)")
        let format = try runIn(
            dir,
            ["render", "before.png", "after.png", "-o", "g.gif", "--format", "github-readme", "--size", "32x24", "--fps", "5", "--quiet"],
            exe: exe, environment: env)
        #expect(format.code == 0, "\(format.stderr)")
        // A folder overrides a built-in look by name.
        try FileManager.default.createDirectory(atPath: dir + "/mine/looks", withIntermediateDirectories: true)
        try #"{"version": 1, "description": "mine", "saturation": 0.5}"#.write(
            toFile: dir + "/mine/looks/noir.json", atomically: true, encoding: .utf8)
        env["SWEEP_PRESETS"] = dir + "/mine"
        let shown = try runIn(dir, ["presets", "show", "noir"], exe: exe, environment: env)
        #expect(shown.stdout.contains("mine"))
        let unknown = try runIn(dir, ["render", "before.png", "--look", "sepia", "-o", "s.gif"], exe: exe, environment: env)
        #expect(unknown.code == 64 && unknown.stderr.contains(dir + "/mine/looks") && unknown.stderr.contains("built-in"))
    }

    @Test("Paths print as given; the demo stays within the 800 px GIF default")
    func smallThings() throws {
        let dir = try everydayInputs()
        let r = try runIn(
            dir, ["render", "before.png", "after.png", "-o", "clip.mp4", "--size", "32x24", "--fps", "5", "--duration", "1", "--poster"])
        #expect(r.code == 0)
        #expect(r.stdout.contains("wrote clip.mp4 (") && r.stdout.contains("wrote clip.mp4.poster.jpg ("), "\(r.stdout)")
        let demo = try runIn(dir, ["demo", "-o", "demo", "--fps", "1", "--quiet"])
        #expect(demo.code == 0)
        let gif = try GIFReader(path: dir + "/demo/demo.gif")
        #expect(max(gif.width, gif.height) <= 800)
        let list = try runSweep(["presets", "list"])
        #expect(!list.stdout.contains("seed"))
    }
}

@Suite("Help, man page and install (issue 15)")
struct HelpAndManPageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("Every option render, preview and demo take is explained in their help")
    func everyOptionHelped() {
        let help = SweepCommand.renderHelp.render(width: 80) + SweepCommand.previewHelp.render(width: 80)
        for option in RenderRequest.common { #expect(help.contains("--" + option.name), "--\(option.name)") }
    }

    @Test("The man page's options are written from the option table (SWEEP_WRITE_MAN=1 or make man rewrites them)")
    func manOptionsFromTable() throws {
        let url = Self.root.appendingPathComponent("docs/sweep.1")
        let man = try String(contentsOf: url, encoding: .utf8)
        let begin = try #require(man.range(of: ".\\\" BEGIN OPTIONS"))
        let beginLine = try #require(man[begin.upperBound...].firstIndex(of: "\n"))
        let end = try #require(man.range(of: ".\\\" END OPTIONS"))
        let written = String(man[man.index(after: beginLine)..<end.lowerBound])
        let made = OptionHelp.manual() + "\n"
        if ProcessInfo.processInfo.environment["SWEEP_WRITE_MAN"] == "1" {
            try (man[...beginLine] + made + man[end.lowerBound...]).write(to: url, atomically: true, encoding: .utf8)
        } else {
            #expect(written == made, "docs/sweep.1 is out of date: run make man")
        }
        // Every option, under its section, with its own paragraph; roff's hyphens escaped.
        for d in OptionTable.declarations { #expect(made.contains("\\fB" + OptionHelp.escape("--" + d.name) + "\\fR"), "--\(d.name)") }
        #expect(!made.split(separator: "\n").contains { $0.hasPrefix("'") })
        #expect(!made.contains(" --"), "an unescaped option name")
    }

    @Test("One table: the splitter, batch keys, scope rules, error spellings and help all come from it")
    func oneTable() throws {
        let names = OptionTable.declarations.map(\.name)
        #expect(Set(names).count == names.count, "an option declared twice")
        let shorts = OptionTable.declarations.compactMap(\.short)
        #expect(Set(shorts).count == shorts.count, "a short option used twice")
        #expect(RenderRequest.common.map(\.name) == names)
        // A batch job takes every option but the output (its own key) and the decoder's place.
        #expect(Set(RequestKeys.options.keys) == Set(names).subtracting(["output", "decode"]))
        // Each field library errors name is spelled as its option.
        for d in OptionTable.declarations { if let f = d.field { #expect(OptionNames.flag(f) == "--" + d.name) } }
        // The scope check reads the table: --colors is a GIF's, and named as such on a video.
        let misfit = try #require(OptionScope.misfits(["colors"], output: .video).first)
        #expect(misfit.subject == "--colors" && misfit.message.contains("a GIF"))
        // Help: every option in render's, the still's options in preview's (line widths: HelpLayoutTests).
        let (render, preview) = (SweepCommand.renderHelp.render(width: 80), SweepCommand.previewHelp.render(width: 80))
        for d in OptionTable.declarations {
            #expect(render.contains("--" + d.name + (d.placeholder.map { " " + $0 } ?? "")), "--\(d.name)")
        }
        #expect(preview.contains("--position P") && !preview.contains("--colors"))
        // A repeatable option keeps every value; another, the last.
        let o = try RenderRequest.interpret(
            ArgumentSplitter(RenderRequest.common).split(["--codec-opt", "a=1", "--codec-opt", "b=2", "--fps", "10", "--fps", "12"]))
        #expect(o.spec.videoOptions.map(\.0) == ["a", "b"] && o.spec.fps == 12)
    }

    @Test("docs/sweep.1 is a man page for every subcommand, and make install installs it with the presets")
    func manPage() throws {
        let man = try String(contentsOf: Self.root.appendingPathComponent("docs/sweep.1"), encoding: .utf8)
        #expect(man.contains(".TH SWEEP 1"))
        for command in ["render", "preview", "plan", "demo", "presets", "batch"] { #expect(man.contains(".B sweep \(command)")) }
        for section in ["NAME", "SYNOPSIS", "OPTIONS", "ENVIRONMENT", "EXIT STATUS"] { #expect(man.contains(".SH \(section)")) }
        // Every option of render and batch, and every kind of output, is in it.
        for option in RenderRequest.common.map(\.name) + BatchCommand.options.map(\.name) {
            #expect(man.contains("\\-\\-" + option.replacingOccurrences(of: "-", with: "\\-")), "--\(option)")
        }
        #expect(man.contains(".B .html"))
        // The install recipe, as make would run it (dry run: nothing is built or copied).
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/make")
        p.currentDirectoryURL = Self.root
        p.arguments = ["-n", "-W", ".build/release/sweep", "install", "PREFIX=/opt/sweep-test"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = Pipe()
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(text.contains("/opt/sweep-test/bin/sweep"))
        #expect(text.contains("/opt/sweep-test/share/man/man1/sweep.1"))
        #expect(text.contains("/opt/sweep-test/share/sweep/presets/"))
    }

    @Test("Small things: a still named without an extension, a page over its byte cap, a label that is not UTF-8")
    func smallThings() throws {
        let dir = try everydayInputs()
        let noExt = try runSweep(["preview", dir + "/before.png", dir + "/after.png", "-o", dir + "/p"])
        #expect(noExt.code == 64 && noExt.stderr.contains("no extension") && noExt.stderr.contains(dir + "/p.png"), "\(noExt.stderr)")
        let page = try runSweep(["render", dir + "/before.png", dir + "/after.png", "-o", dir + "/p.html", "--max-bytes", "2KB"])
        #expect(page.code == 65 && page.stderr.contains("(2000 bytes)"), "\(page.stderr)")
        let size = try #require(page.stderr.firstMatch(of: /output is [^(]+\((\d+) bytes\)/).map { Int($0.1)! })
        #expect(size > 2000 && !FileManager.default.fileExists(atPath: dir + "/p.html"))
        // Swift reads bytes that are not UTF-8 as U+FFFD; the note says what it means.
        let label = try runSweep(["render", dir + "/before.png", dir + "/after.png", "-o", dir + "/l.gif", "--before-label", "a\u{FFFD}b"])
        #expect(label.code == 0 && label.stderr.contains("not UTF-8"), "\(label.stderr)")
    }
}
