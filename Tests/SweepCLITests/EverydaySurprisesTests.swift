import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTestSupport
import Testing

/// Issue 49's surprises, each run as the user ran it.
@Suite("Everyday surprises (issue 49)")
struct EverydaySurprisesTests {
    @Test("render -o x.jpg points to sweep preview, as .png does; nothing is written", arguments: ["x.jpg", "x.jpeg", "x.png"])
    func stillNameForAnimation(name: String) throws {
        let dir = try everydayInputs()
        let r = try runIn(dir, ["render", "before.png", "after.png", "-o", name])
        #expect(r.code == 64 && r.stderr.contains("sweep preview"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: dir + "/" + name))
    }

    @Test("--ease spring --duration 10: the split moves for the whole 9 s sweep, as the summary says", arguments: ["spring", "bouncy"])
    func springFillsTheSweep(ease: String) throws {
        let dir = try everydayInputs()
        let r = try runIn(
            dir, ["render", "before.png", "after.png", "-o", "s.gif", "--ease", ease, "--duration", "10", "--fps", "10", "--json"])
        #expect(r.code == 0, "\(r.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        // Identical neighbours are stored once: a split that rests after 0.3 s stores about 10
        // frames; one that moves for 9 s at 10 fps stores one per pixel step it takes, about
        // half of 90 on a 90-pixel picture (the spring's tail moves less than a pixel a frame).
        let stored = try #require(summary["framesWritten"] as? Int)
        #expect(stored > 40, "\(stored) frames stored of \(summary["frames"] ?? 0)")
        let text = try runIn(dir, ["render", "before.png", "after.png", "-o", "t.gif", "--ease", ease, "--duration", "10", "--fps", "10"])
        #expect(text.stdout.contains("0.5 s hold, 9.0 s sweep, 0.5 s hold"), "\(text.stdout)")
    }

    @Test("Reduced motion is told as it shows: a cross-fade, or a cut, not a sweep")
    func reducedMotionSummary() throws {
        let dir = try everydayInputs()
        for (mode, told) in [("dissolve", "0.5 s hold, 3.0 s cross-fade, 0.5 s hold"), ("cut", "4.00 s: cut at 0.5 s (reduced motion)")] {
            let r = try runIn(dir, ["render", "before.png", "after.png", "-o", mode + ".gif", "--reduce-motion", mode, "--fps", "5"])
            #expect(r.code == 0 && r.stdout.contains(told) && !r.stdout.contains("s sweep"), "\(mode): \(r.stdout)")
        }
    }

    @Test(
        ".mov is H.264 as phones write it; HEVC and ProRes when asked",
        arguments: [([String](), "h264", "avc1"), (["--codec", "hevc"], "hevc", "hvc1"), (["--codec", "prores"], "prores", "apch")])
    func movIsPhoneStyle(extra: [String], codec: String, tag: String) throws {
        let dir = try everydayInputs()
        let r = try runIn(dir, ["render", "before.png", "after.png", "-o", "m.mov", "--fps", "10", "--duration", "1", "--quiet"] + extra)
        #expect(r.code == 0, "\(r.stderr)")
        let v = try VideoReader(path: dir + "/m.mov", keepFrames: false)
        #expect(v.codecName == codec && v.codecTag == tag, "\(v.codecName) \(v.codecTag)")
    }

    @Test(
        "An option that cannot act on the output is refused with exit 64, naming what it is for and what does it here",
        arguments: [
            (["render", "-o", "q.mp4", "--quality", "20"], "--quality", "use --crf"),
            (["render", "-o", "g.gif", "--crf", "40"], "--crf", "use --quality"),
            (["render", "-o", "g.gif", "--bitrate", "100k"], "--bitrate", "use --max-bytes"),
            (["render", "-o", "v.mp4", "--colors", "16"], "--colors", "a GIF"),
            (["render", "-o", "v.mp4", "--dither", "none"], "--dither", "a GIF"),
            (["render", "-o", "g.gif", "--encoder-preset", "fast"], "--encoder-preset", "a video"),
            (["render", "-o", "v.mp4", "--retina"], "--retina", "an HTML page"),
            (["render", "-o", "v.mp4", "--fragment"], "--fragment", "an HTML page"),
            (["render", "-o", "g.gif", "--page-images", "png"], "--page-images", "an HTML page"),
            (["render", "-o", "g.gif", "--audio", "before"], "--audio", "a video"),
            (["render", "-o", "w.webp", "--audio", "before"], "--audio", "holds no sound"),
            (["preview", "-o", "p.png", "--fps", "10"], "--fps", "a still"),
            (["preview", "-o", "p.png", "--duration", "2"], "--duration", "use --position"),
            (["preview", "-o", "p.png", "--quality", "50"], "--quality", "lossless"),
            (["render", "-o", "w.webp", "--crf", "30"], "--crf", "use --quality for webp"),
            (["render", "-o", "v.webm", "--encoder-preset", "fast"], "--encoder-preset", "not on vp9"),
            (["render", "-o", "h.html", "--fps", "4"], "--fps", "an HTML page"),
            (["render", "-o", "f-%03d.png", "--poster"], "--poster", "a PNG sequence"),
        ])
    func optionsThatCannotAct(args: [String], option: String, says: String) throws {
        let dir = try everydayInputs()
        let r = try runIn(dir, [args[0], "before.png", "after.png"] + args.dropFirst())
        #expect(r.code == 64 && r.stderr.hasPrefix("sweep: \(option): ") && r.stderr.contains(says), "\(args): \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["after.png", "before.png", "wide.png"])
    }

    @Test("--bitrate acts on H.264 (the default CRF gives way) and --quality on an animated WebP", arguments: ["mp4", "webp"])
    func ratesThatAct(ext: String) throws {
        let dir = try everydayInputs()
        let option = ext == "mp4" ? ["--bitrate", "4k"] : ["--quality", "10"]
        var sizes: [Int] = []
        for extra in [[], option] {
            let r = try runIn(
                dir,
                ["render", "before.png", "wide.png", "-o", "o\(sizes.count).\(ext)", "--size", "160x120", "--fps", "10", "--quiet"] + extra)
            #expect(r.code == 0, "\(r.stderr)")
            sizes.append(try #require(FileManager.default.attributesOfItem(atPath: dir + "/o\(sizes.count).\(ext)")[.size] as? Int))
        }
        #expect(sizes[1] < sizes[0] * 3 / 4, "\(option): \(sizes)")
    }

    @Test("--quality sets a JPEG still's quality; in a batch job an option that cannot act is a note, and the job renders")
    func qualityOnStillsAndBatchNotes() throws {
        let dir = try everydayInputs()
        var sizes: [Int] = []
        for q in ["20", "95"] {
            let r = try runIn(
                dir, ["preview", "before.png", "wide.png", "-o", "p\(q).jpg", "--quality", q, "--size", "200x150", "--quiet"])
            #expect(r.code == 0, "\(r.stderr)")
            sizes.append(try #require(FileManager.default.attributesOfItem(atPath: dir + "/p\(q).jpg")[.size] as? Int))
        }
        #expect(sizes[0] < sizes[1], "\(sizes)")
        try #"{"before": "before.png", "after": "after.png", "output": "v.mp4", "quality": 20, "duration": 1, "fps": 5}"#
            .write(toFile: dir + "/jobs.jsonl", atomically: true, encoding: .utf8)
        let b = try runIn(dir, ["batch", "jobs.jsonl", "--quiet"])
        #expect(b.code == 0, "\(b.stderr)")
        let results = try String(contentsOfFile: dir + "/jobs.results.jsonl", encoding: .utf8)
        #expect(results.contains("\"ok\"") && results.contains("--quality acts on webp video, not on h264"), "\(results)")
    }

    @Test("A batch job's bytes are its output's, on a first run and on --resume alike (a poster beside it or not)")
    func batchBytesOnResume() throws {
        let dir = try everydayInputs()
        try #"{"before": "before.png", "after": "after.png", "output": "v.gif", "poster": true, "duration": 1, "fps": 5}"#
            .write(toFile: dir + "/jobs.jsonl", atomically: true, encoding: .utf8)
        var counted: [Int] = []
        for extra in [[], ["--resume"]] {
            let b = try runIn(dir, ["batch", "jobs.jsonl", "--quiet"] + extra)
            #expect(b.code == 0, "\(b.stderr)")
            let line = try String(contentsOfFile: dir + "/jobs.results.jsonl", encoding: .utf8)
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            counted.append(try #require(record["bytes"] as? Int))
        }
        let size = try #require(FileManager.default.attributesOfItem(atPath: dir + "/v.gif")[.size] as? Int)
        #expect(counted == [size, size], "\(counted) vs \(size)")
        #expect(FileManager.default.fileExists(atPath: dir + "/v.gif.poster.jpg"))
    }

    @Test("With --fit fit each tag sits on its own picture: the after tag at the after picture's top, not the before's")
    func tagsOnTheirOwnPictures() throws {
        let dir = try everydayInputs()
        try StillEncoder.write(RGBAImage(width: 200, height: 50, fill: .white), to: dir + "/wide.png", format: .png)
        try StillEncoder.write(RGBAImage(width: 200, height: 100, fill: .white), to: dir + "/half.png", format: .png)
        let r = try runIn(
            dir,
            [
                "preview", "wide.png", "half.png", "-o", "fit.png", "--size", "200x200", "--fit", "fit", "--no-handle", "--position",
                "0.5", "--ui-scale", "1",
            ])
        #expect(r.code == 0, "\(r.stderr)")
        let img = try ImageDecoder.decode(path: dir + "/fit.png")
        func dark(_ xs: Range<Int>, _ ys: Range<Int>) -> Bool { ys.contains { y in xs.contains { x in img[x, y].r < 200 } } }
        func black(_ xs: Range<Int>, _ ys: Range<Int>) -> Bool {
            ys.allSatisfy { y in xs.allSatisfy { x in img[x, y].r < 8 && img[x, y].g < 8 && img[x, y].b < 8 } }
        }
        // The before picture fills rows 75..<125 on the left, the after rows 50..<150 on the right.
        #expect(black(0..<100, 0..<74) && black(100..<200, 0..<49), "a tag on a letterbox bar")
        #expect(dark(0..<100, 75..<100), "the before tag is not on its picture")
        #expect(dark(100..<200, 50..<75), "the after tag is not at its own picture's top")
    }

    @Test("A crop note calls a clip a video")
    func cropNoteSaysVideo() throws {
        let dir = try everydayInputs()
        try ClipMaker.counter(dir + "/wide.mp4", fps: 10, seconds: 1)
        try StillEncoder.write(RGBAImage(width: 400, height: 40, fill: .white), to: dir + "/strip.png", format: .png)
        let r = try runIn(dir, ["render", "strip.png", "wide.mp4", "-o", "v.mp4", "--size", "64x64", "--fps", "5"])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr.contains("the before image (400x40) is cropped"), "\(r.stderr)")
        let clipSide = try runIn(dir, ["render", "wide.mp4", "--look", "noir", "-o", "w.mp4", "--size", "20x200", "--fps", "5"])
        #expect(clipSide.stderr.contains("the before video ("), "\(clipSide.stderr)")
    }

    @Test(
        "Byte counts read as sizes, three digits, decimal units as --max-bytes takes them",
        arguments: [
            (999, "999 bytes"), (1000, "1.00 KB"), (2048, "2.05 KB"), (93_412, "93.4 KB"), (99_960, "100 KB"),
            (999_499, "999 KB"), (999_500, "1.00 MB"), (650_000_000, "650 MB"), (5_000_000_000, "5.00 GB"),
        ])
    func byteCounts(bytes: Int, text: String) {
        #expect(ByteCount.text(bytes) == text)
    }

    @Test("A social format's frame rate applies to a clip, with a note; a picture enlarged over 1.5x is noted")
    func formatRateOnClips() throws {
        let dir = try everydayInputs()
        try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "1", "-c:v", "libx264", dir + "/c25.mp4"])
        let r = try runIn(dir, ["render", "c25.mp4", "--look", "noir", "-o", "x.mp4", "--format", "x-post"])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr.contains("the clip runs at 25 fps; the output runs at 30 fps, as the format x-post asks"), "\(r.stderr)")
        #expect(r.stderr.contains("the before video (640x360) is enlarged 2.0× to 1280x720"), "\(r.stderr)")
        #expect(abs(try VideoReader(path: dir + "/x.mp4", keepFrames: false).frameRate - 30) < 0.01)
        // The user's own --fps is no surprise: no note; a picture at its own size is not enlarged.
        let own = try runIn(dir, ["render", "c25.mp4", "--look", "noir", "-o", "y.mp4", "--fps", "30", "--size", "640x360"])
        #expect(own.code == 0 && !own.stderr.contains("fps") && !own.stderr.contains("enlarged"), "\(own.stderr)")
    }

    @Test("--before-start lines up an excerpt with its original; --start/--end count on the output's timeline")
    func clipsLinedUpByHand() throws {
        let dir = try scratchDir()
        try ClipMaker.counter(dir + "/original.mp4", fps: 10, seconds: 4)
        // The excerpt: the original from 2 s on (its first frame shows 20).
        try ClipMaker.ffmpeg([
            "-i", dir + "/original.mp4", "-vf", "select=gte(n\\,20),setpts=PTS-STARTPTS", "-c:v", "libx264", "-qp", "0",
            dir + "/excerpt.mp4",
        ])
        let r = try runIn(
            dir,
            [
                "render", "original.mp4", "excerpt.mp4", "-o", "out.mp4", "--before-start", "0:02", "--start", "0.5", "--end", "1.5",
                "--from", "0.5", "--to", "0.5", "--no-handle", "--no-labels", "--quiet",
            ])
        #expect(r.code == 0, "\(r.stderr)")
        let video = try VideoReader(path: dir + "/out.mp4")
        let before = video.frames.map { ClipMaker.read($0, x: $0.width / 4) }
        let after = video.frames.map { ClipMaker.read($0, x: $0.width * 3 / 4) }
        #expect(before == Array(25..<35) && after == before, "before \(before), after \(after)")
        // With two pictures a start trims nothing: refused; in a batch job, a note.
        let photos = try everydayInputs()
        let refused = try runIn(photos, ["render", "before.png", "after.png", "-o", "x.gif", "--after-start", "3"])
        #expect(
            refused.code == 64 && refused.stderr.hasPrefix("sweep: --after-start: ") && refused.stderr.contains("picture"),
            "\(refused.stderr)")
        // Each setting that cannot act is named: an offset for a picture side, or the after side of one clip.
        for (args, named) in [
            (["render", "before.png", "c.mp4", "--before-start", "1"], "--before-start"),
            (["render", "c.mp4", "--look", "noir", "--after-start", "1"], "--after-start"),
            (["render", "before.png", "after.png", "--end", "2"], "--end"),
            (["render", "before.png", "after.png", "--audio", "after"], "--audio"),
        ] {
            try ClipMaker.counter(photos + "/c.mp4", fps: 10, seconds: 1)
            let r = try runIn(photos, args + ["-o", "z.mp4", "--quiet"])
            #expect(r.code == 64 && r.stderr.hasPrefix("sweep: \(named): "), "\(args): \(r.stderr)")
        }
        // Times are decimal seconds or m:ss: no hexadecimal, no 61 seconds after a colon.
        for bad in ["0x10", "0:61", "1e2", "-1"] {
            let r = try runIn(photos, ["render", "c.mp4", "c.mp4", "-o", "t.mp4", "--before-start", bad])
            #expect(r.code == 64 && r.stderr.contains("is not a time") || r.stderr.contains("out of range"), "\(bad): \(r.stderr)")
        }
        try #"{"before": "before.png", "after": "after.png", "output": "y.gif", "start": 1, "duration": 1, "fps": 5}"#
            .write(toFile: photos + "/jobs.jsonl", atomically: true, encoding: .utf8)
        let batch = try runIn(photos, ["batch", "jobs.jsonl", "--quiet"])
        let record = try String(contentsOfFile: photos + "/jobs.results.jsonl", encoding: .utf8)
        #expect(batch.code == 0 && record.contains("\"ok\"") && record.contains("the inputs are pictures"), "\(record)")
    }

    @Test("--loop acts on an animated WebP and APNG (their own play count, one pass of frames); a video's passes are told")
    func loopsOfWebPAndAPNG() throws {
        let dir = try everydayInputs()
        func chunk(_ file: String, _ tag: String, at offset: Int, _ bytes: Int, bigEndian: Bool) throws -> Int {
            let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + file)))
            let i = try #require((0..<(data.count - 4)).first { data[$0..<($0 + 4)].elementsEqual(tag.utf8) })
            let field = data[(i + offset)..<(i + offset + bytes)]
            return (bigEndian ? Array(field) : field.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }
        let base = ["before.png", "after.png", "--duration", "1", "--fps", "5", "--quiet"]
        for (loop, plays) in [("once", 1), ("3", 3), ("forever", 0)] {
            #expect(try runIn(dir, ["render"] + base + ["-o", "l.webp", "--loop", loop]).code == 0)
            #expect(try runIn(dir, ["render"] + base + ["-o", "l.apng", "--loop", loop]).code == 0)
            // WebP's ANIM loop count (after the chunk size, 4 bytes of background) and APNG's acTL plays.
            #expect(try chunk("l.webp", "ANIM", at: 12, 2, bigEndian: false) == plays, "webp --loop \(loop)")
            #expect(try chunk("l.apng", "acTL", at: 8, 4, bigEndian: true) == plays, "apng --loop \(loop)")
            #expect(try chunk("l.apng", "acTL", at: 4, 4, bigEndian: true) == 5, "apng frames, --loop \(loop)")
        }
        let video = try runIn(dir, ["render", "before.png", "after.png", "-o", "l.mp4", "--loop", "3", "--duration", "1", "--fps", "5"])
        #expect(video.stdout.contains("15 frames, 3.00 s"), "\(video.stdout)")
    }

    @Test("--max-bytes on a JPEG or WebP still gives up quality to fit, and says so; too small a cap says how far off")
    func stillSizeCap() throws {
        let dir = try everydayInputs()
        // Noise: a picture whose bytes follow its quality (flat colours cost almost nothing).
        var rng = SeededGenerator(seed: 7)
        var noise = RGBAImage(width: 160, height: 120)
        for i in 0..<noise.pixels.count where i % 4 != 3 { noise.pixels[i] = UInt8.random(in: 0...255, using: &rng) }
        for i in stride(from: 3, to: noise.pixels.count, by: 4) { noise.pixels[i] = 255 }
        try StillEncoder.write(noise, to: dir + "/noise.png", format: .png)
        for ext in ["jpg", "webp"] {
            let free = try runIn(dir, ["preview", "noise.png", "--look", "noir", "-o", "free.\(ext)", "--size", "160x120", "--json"])
            let bytes = try #require((try JSONSerialization.jsonObject(with: Data(free.stdout.utf8)) as? [String: Any])?["bytes"] as? Int)
            let cap = bytes * 3 / 4
            let r = try runIn(
                dir, ["preview", "noise.png", "--look", "noir", "-o", "c.\(ext)", "--size", "160x120", "--max-bytes", "\(cap)"])
            #expect(r.code == 0 && r.stderr.contains("quality 90 → "), "\(ext): \(r.stderr)")
            let written = try #require(FileManager.default.attributesOfItem(atPath: dir + "/c.\(ext)")[.size] as? Int)
            #expect(written <= cap, "\(ext): \(written) > \(cap)")
            let tiny = try runIn(
                dir, ["preview", "noise.png", "--look", "noir", "-o", "t.\(ext)", "--size", "160x120", "--max-bytes", "1024"])
            #expect(tiny.code == 65 && tiny.stderr.contains("even at quality 1"), "\(ext): \(tiny.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/t.\(ext)"))
        }
    }

    @Test("preview --format story gives a story-sized still (a .png when the name has no extension)")
    func previewOfVideoFormat() throws {
        let dir = try everydayInputs()
        for (out, written) in [("p.png", "p.png"), ("q", "q.png"), ("r.jpg", "r.jpg")] {
            let r = try runIn(dir, ["preview", "before.png", "after.png", "-o", out, "--format", "story", "--quiet"])
            #expect(r.code == 0, "\(out): \(r.stderr)")
            let still = try ImageDecoder.decode(path: dir + "/" + written)
            #expect(still.width == 1080 && still.height == 1920, "\(out): \(still.width)x\(still.height)")
        }
    }
}
