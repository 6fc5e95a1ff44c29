import Foundation
import SweepImaging
import SweepTestSupport
import Testing

/// Video inputs from the command line (#16): the README's examples, sound, and the exit
/// codes of clips that cannot be played.
@Suite("Video inputs on the command line")
struct VideoInputCLITests {
    /// Seconds of the stream of `type` ("video" or "audio") in `path`, by ffprobe.
    static func duration(_ path: String, _ type: String) throws -> Double? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = [
            "-v", "error", "-select_streams", type == "video" ? "v:0" : "a:0", "-show_entries", "stream=duration",
            "-of", "default=nw=1:nk=1", path,
        ]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// A counter clip with a tone, and one without sound (3 s, or `seconds`).
    static func clips(in dir: String, seconds: Double = 3) throws {
        try ClipMaker.counter(
            dir + "/talk.mp4", fps: 25, seconds: seconds,
            inputs: ["-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)"], extra: ["-c:a", "aac", "-shortest"])
        try ClipMaker.counter(dir + "/mute.mp4", fps: 30, seconds: seconds)
    }

    @Test("The README's video examples run as written")
    func readmeExamples() throws {
        let readme = try String(contentsOf: ReadmeExamplesTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "### Video inputs"))
        let open = try #require(readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex))
        let close = try #require(readme.range(of: "```", range: open.upperBound..<readme.endIndex))
        let examples = readme[open.upperBound..<close.lowerBound].split(separator: "\n").map { line in
            (line.range(of: " #").map { String(line[..<$0.lowerBound]) } ?? String(line)).trimmingCharacters(in: .whitespaces)
        }.filter { $0.hasPrefix("sweep ") }
        #expect(examples.count >= 4)
        let dir = try scratchDir()
        try Self.clips(in: dir, seconds: 16)  // the trimming example runs from 5 s to 15 s
        for (name, from) in [
            ("log.mp4", "mute.mp4"), ("graded.mp4", "talk.mp4"), ("before.mp4", "mute.mp4"), ("clip.mp4", "talk.mp4"),
            ("timelapse.mp4", "mute.mp4"), ("original.mp4", "talk.mp4"),
        ] {
            try FileManager.default.copyItem(atPath: dir + "/" + from, toPath: dir + "/" + name)
        }
        try ClipMaker.ffmpeg(["-ss", "5", "-i", dir + "/talk.mp4", "-c:v", "libx264", "-c:a", "aac", dir + "/excerpt.mp4"])
        try ClipMaker.ffmpeg(["-i", dir + "/talk.mp4", "-c:v", "prores_ks", "-c:a", "pcm_s16le", dir + "/after.mov"])
        try FileManager.default.copyItem(
            atPath: ReadmeExamplesTests.root.appendingPathComponent("Tests/Fixtures/images/jpeg-baseline.jpg").path,
            toPath: dir + "/photo.jpg")
        for example in examples {
            let args = example.split(separator: " ").map(String.init).dropFirst() + ["--size", "64x48"]
            let r = try runIn(dir, Array(args))
            #expect(r.code == 0, "\(example): \(r.stderr)")
            let out = try #require(args.firstIndex(of: "-o").map { args[$0 + 1] })
            #expect(FileManager.default.fileExists(atPath: dir + "/" + out), "\(example)")
        }
    }

    @Test("Sound is copied or re-encoded, as long as the video")
    func soundLastsAsLongAsTheVideo() throws {
        let dir = try scratchDir()
        try Self.clips(in: dir)
        for (out, extra) in [
            ("a.mp4", [String]()), ("b.webm", []), ("c.mp4", ["--start", "0.5", "--end", "2.2"]),
            ("d.mkv", ["--audio", "after"]),
        ] {
            let before = extra.contains("after") ? "mute.mp4" : "talk.mp4", after = extra.contains("after") ? "talk.mp4" : "mute.mp4"
            let r = try runIn(dir, ["render", before, after, "-o", out, "--size", "64x48", "--quiet"] + extra)
            #expect(r.code == 0, "\(out): \(r.stderr)")
            let video = try Self.duration(dir + "/" + out, "video") ?? VideoReader(path: dir + "/" + out, keepFrames: false).duration
            let audio = try Self.duration(dir + "/" + out, "audio") ?? Self.containerAudioDuration(dir + "/" + out)
            // Within one audio frame (1024 samples of AAC at 44.1 kHz; 20 ms of Opus).
            #expect(abs(audio - video) <= 1024 / 44100.0 + 1e-3, "\(out): audio \(audio) s, video \(video) s")
        }
        let none = try runIn(dir, ["render", "talk.mp4", "mute.mp4", "-o", "n.mp4", "--size", "64x48", "--audio", "none", "--quiet"])
        #expect(none.code == 0)
        #expect(try Self.duration(dir + "/n.mp4", "audio") == nil)
    }

    /// Matroska/WebM stores no per-stream duration: decode the audio and count.
    static func containerAudioDuration(_ path: String) throws -> Double {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let ends = text.split(separator: "\n").compactMap { line -> Double? in
            let f = line.split(separator: ",").compactMap { Double($0) }
            return f.count == 2 ? f[0] + f[1] : nil
        }
        return ends.max() ?? 0
    }

    @Test("A slideshow clip at 2 fps gives a 10 fps output, each of its frames held, with a note")
    func rateFloor() throws {
        let dir = try scratchDir()
        try ClipMaker.counter(dir + "/slides.mp4", fps: 2, seconds: 3)
        let r = try runIn(dir, ["render", "slides.mp4", "slides.mp4", "-o", "out.mp4", "--no-handle", "--no-labels"])
        #expect(r.code == 0 && r.stderr.contains("the clip runs at 2 fps; the output runs at 10 fps"), "\(r)")
        let video = try VideoReader(path: dir + "/out.mp4")
        #expect(abs(video.frameRate - 10) < 1e-6 && video.frameCount == 30, "\(video.frameRate) \(video.frameCount)")
        // The burned-in counter: output frame k shows the clip's frame k / 5.
        let shown = video.frames.map { ClipMaker.read($0, x: $0.width / 4) }
        #expect(shown == (0..<30).map { $0 / 5 }, "\(shown)")
    }

    @Test("Sound of 64 channels, which has no layout to mix down, is exit 65 naming --audio; without sound it renders")
    func manyChannels() throws {
        let dir = try scratchDir()
        let labels = (0..<64).map { "[a\($0)]" }.joined()
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "color=c=gray:s=96x64:r=10:d=1", "-f", "lavfi", "-i", "sine=f=440:d=1",
            "-filter_complex", "[1:a]asplit=64\(labels);\(labels)amerge=inputs=64[a]", "-map", "0:v", "-map", "[a]",
            "-c:v", "libx264", "-c:a", "pcm_s16le", dir + "/ch64.mkv",
        ])
        let r = try runIn(dir, ["render", "ch64.mkv", "ch64.mkv", "-o", "out.mp4", "--quiet"])
        #expect(r.code == 65, "\(r)")
        #expect(
            r.stderr
                == "sweep: ch64.mkv: the sound has 64 channels in no layout sweep can mix down; leave the sound out, or give a file with stereo sound (--audio)\n",
            "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.mp4"))
        let mute = try runIn(dir, ["render", "ch64.mkv", "ch64.mkv", "-o", "out.mp4", "--audio", "none", "--quiet"])
        #expect(mute.code == 0, "\(mute)")
    }

    @Test("Sound at 8 Hz is never silently lost: left out when not asked for, exit 65 naming --audio when it was")
    func tinySampleRate() throws {
        let dir = try scratchDir()
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "color=c=gray:s=96x64:r=10:d=2", "-f", "lavfi", "-i", "sine=f=1:sample_rate=8:d=2",
            "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-c:a", "pcm_s16le", dir + "/hz8.mkv",
        ])
        let auto = try runIn(dir, ["render", "hz8.mkv", "hz8.mkv", "-o", "auto.mp4", "--json"])
        #expect(
            auto.code == 0 && auto.stdout.contains(#""sound":{"action":"none","reason":"the inputs' sound is below 1000 samples a second"#),
            "\(auto)")
        #expect(try Self.duration(dir + "/auto.mp4", "audio") == nil)
        let asked = try runIn(dir, ["render", "hz8.mkv", "hz8.mkv", "-o", "asked.mp4", "--audio", "before", "--quiet"])
        #expect(asked.code == 65 && asked.stderr.contains("8 Hz") && asked.stderr.contains("(--audio)"), "\(asked)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/asked.mp4"))
    }

    @Test("Clips that cannot be played exit with their code and leave the old output")
    func refusals() throws {
        let dir = try scratchDir()
        try Self.clips(in: dir)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: dir + "/out.mp4"))
        let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/mute.mp4"))
        try ClipMaker.ffmpeg(["-i", dir + "/mute.mp4", "-c", "copy", "-movflags", "+faststart", dir + "/fast.mp4"])
        let fast = try Data(contentsOf: URL(fileURLWithPath: dir + "/fast.mp4"))
        try fast.prefix(fast.count / 2).write(to: URL(fileURLWithPath: dir + "/cut.mp4"))
        #expect(whole.count > 0)
        let cases: [([String], Int32, String)] = [
            (["talk.mp4", "mute.mp4", "--audio", "after"], 64, "no audio"),
            (["photo-less.mp4"], 66, "no such file"),
            (["talk.mp4", "--start", "2", "--end", "1"], 64, "not after the start"),
            (["talk.mp4", "--start", "9"], 64, "nothing is left from 9 s on"),
        ]
        for (args, code, text) in cases {
            let r = try runIn(dir, ["render"] + args + ["-o", "out.mp4", "--size", "64x48"])
            #expect(r.code == code, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(text), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): one line: \(r.stderr)")
            #expect(try String(contentsOfFile: dir + "/out.mp4", encoding: .utf8) == "keep")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "\(leftovers)")
        // A clip cut short is not refused: it plays to its last whole frame, said on the summary line.
        let cut = try runIn(dir, ["render", "cut.mp4", "talk.mp4", "-o", "cut-out.mp4", "--size", "64x48"])
        #expect(cut.code == 0 && cut.stdout.contains("the before clip's frames end at 0:0"), "\(cut)")
    }
}
