import Foundation
import SweepTestSupport
import Testing

/// Clips FFmpeg 5.1 reads only in part, or not at all, on real files and files shaped like
/// them (#58): encrypted MP4s are refused as encrypted, Dolby Vision is drawn from a base layer
/// a player can show (or refused when there is none), a spatial video's base view is drawn and
/// said so, a motion photo is read as its photo, and an AVI with B-frames shows every frame
/// FFmpeg decodes. FFmpeg (ffprobe) is the oracle of what each file holds.
@Suite("What sweep does with encrypted, Dolby Vision, spatial, motion-photo and AVI media", .serialized)
struct MediaLimitsTests {
    static let media = RealMediaMatrixTests.folder

    /// A generated file that is not shaped as the test needs.
    struct Unshaped: Error, CustomStringConvertible {
        let description: String
    }

    /// The line an encrypted clip gives, after "sweep: FILE: ".
    static let encryptedLine = "the clip is encrypted (DRM, scheme cenc); sweep cannot decrypt it"

    /// A small HEVC MP4 (moov after mdat, as FFmpeg writes it) of `frames` frames of testsrc2.
    static func hevc(_ path: String, frames: Int = 6, extra: [String] = []) throws {
        try ClipMaker.ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc2=s=128x96:r=10", "-frames:v", "\(frames)", "-c:v", "libx265", "-preset", "ultrafast",
                "-x265-params", "log-level=error", "-tag:v", "hvc1",
            ] + extra + [path])
    }

    /// Puts `box` (type and body) at the end of the first video sample entry of the MP4 at
    /// `path`, growing every box around it, as a camera that writes it does. The file's
    /// `moov` must follow its `mdat` (no chunk offset moves).
    static func insert(_ type: String, _ body: [UInt8], intoSampleEntryOf path: String) throws {
        var b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func be32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        func put32(_ i: Int, _ v: Int) { for k in 0..<4 { b[i + k] = UInt8(truncatingIfNeeded: v >> (24 - 8 * k)) } }
        func find(_ name: String, from: Int, to end: Int) -> Int? {
            var i = from
            while i + 8 <= end {
                if b[(i + 4)..<(i + 8)].elementsEqual(name.utf8) { return i }
                let size = be32(i)
                guard size >= 8 else { return nil }
                i += size
            }
            return nil
        }
        guard let moov = find("moov", from: 0, to: b.count), let mdat = find("mdat", from: 0, to: b.count), mdat < moov else {
            throw Unshaped(description: "\(path): no moov after mdat")
        }
        // moov > trak > mdia > minf > stbl > stsd (full box, entry count) > first entry.
        var chain = [moov]
        for (name, skip) in [("trak", 8), ("mdia", 8), ("minf", 8), ("stbl", 8), ("stsd", 8), ("", 16)] {
            let parent = chain.last!
            let start = parent + skip
            let found = name.isEmpty ? start : find(name, from: start, to: parent + be32(parent))
            guard let at = found else { throw Unshaped(description: "\(path): no \(name)") }
            chain.append(at)
        }
        let entry = chain.last!
        let added = [UInt8](repeating: 0, count: 4) + Array(type.utf8) + body
        let end = entry + be32(entry)
        b.insert(contentsOf: added, at: end)
        put32(end, added.count)
        for box in chain { put32(box, be32(box) + added.count) }
        try Data(b).write(to: URL(fileURLWithPath: path))
    }

    /// A Dolby Vision configuration record (`dvcC`/`dvvC` body, 24 bytes).
    static func doviRecord(profile: Int, level: Int = 4, compatibility: Int) -> [UInt8] {
        let rpu = 1, el = 0, bl = 1
        return [1, 0, UInt8(profile << 1 | level >> 5), UInt8((level & 0x1F) << 3 | rpu << 2 | el << 1 | bl), UInt8(compatibility << 4)]
            + [UInt8](repeating: 0, count: 19)
    }

    /// ffprobe's value of `key` in the first video stream's side data (the oracle of the shape).
    static func probed(_ path: String, _ key: String) throws -> String? {
        let text = try RealMediaMatrixTests.text("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", path])
        return text.split(separator: "\n").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// Renders `input` against itself to `output` with `--json`; the exit code, stderr and summary.
    static func render(_ input: String, _ output: String, _ more: [String] = []) throws -> (
        code: Int32, stderr: String, json: [String: Any]?
    ) {
        let r = try runSweep(["render", input, input, "-o", output, "--json", "--size", "64x48"] + more)
        let json = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        return (r.code, r.stderr, json)
    }

    // MARK: Encryption

    @Test("An encrypted MP4 (CENC, made by FFmpeg, and a ClearKey fragment) is named as such: exit 65, one line, every path")
    func encrypted() throws {
        let dir = try Scratch.folder("drm")
        let made = dir + "/cenc.mp4"
        try Self.hevc(
            made,
            extra: [
                "-encryption_scheme", "cenc-aes-ctr", "-encryption_key", "76a6c65c5ea762046bd749a2e632ccbb",
                "-encryption_kid", "a7e61c373e219033c21091fa607bf3b8",
            ])
        // The oracle: FFmpeg reads the packets as encrypted, and decodes them as garbage.
        let packets = try RealMediaMatrixTests.text(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_packets", "-read_intervals", "%+#1", made])
        #expect(packets.contains("side_data_type=Encryption info"), "\(packets)")
        for input in [made, Self.media + "/clearkey-drm.mp4"] {
            // A clip, a still (`preview`), a GIF decoded in sweep's own process, a first frame.
            for (command, output, more) in [
                ("render", "clip.mp4", []), ("preview", "still.png", []), ("render", "gif.gif", ["--decode", "in-process"]),
                ("render", "first.mp4", ["--first-frame"]),
            ] {
                let r = try runSweep([command, input, input, "-o", dir + "/" + output] + more)
                #expect(r.code == 65, "\(input) → \(output): exit \(r.code): \(r.stderr)")
                let lines = r.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].hasPrefix("sweep: \(input): \(Self.encryptedLine)"), "\(r.stderr)")
                #expect(lines.first?.contains("use the unencrypted original") == true, "\(r.stderr)")
                #expect(!FileManager.default.fileExists(atPath: dir + "/" + output))
            }
            // A clip beside a photo, the encrypted one after: the same line.
            let photo = dir + "/photo.png"
            try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x48", "-frames:v", "1", photo])
            let r = try runSweep(["render", photo, input, "-o", dir + "/mixed.mp4", "--json"])
            #expect(r.code == 65 && r.stderr.contains(Self.encryptedLine), "\(r.stderr)")
            let error = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["error"] as? [String: Any]
            #expect(error?["exit"] as? Int == 65 && (error?["message"] as? String)?.hasPrefix(Self.encryptedLine) == true, "\(r.stdout)")
        }
    }

    // MARK: Dolby Vision

    @Test("Dolby Vision 8.4 (a real iPhone clip) is drawn from its HLG base layer, and says so")
    func dolbyVisionIPhone() throws {
        let dir = try Scratch.folder("dovi-real")
        let input = Self.media + "/dv84-hlg-iphone.mov"
        #expect(try Self.probed(input, "dv_profile") == "8")
        #expect(try Self.probed(input, "dv_bl_signal_compatibility_id") == "4")
        let r = try Self.render(input, dir + "/o.mp4")
        #expect(r.code == 0, "\(r.stderr)")
        let notes = try #require(r.json?["notes"] as? [String], "\(String(describing: r.json))")
        let note = "the before clip is Dolby Vision (profile 8.4): drawn from its HLG base layer, without the Dolby Vision metadata"
        #expect(notes.contains(note), "\(notes)")
        #expect(notes.contains("the before clip is HDR (HLG): tone-mapped to SDR BT.709"), "\(notes)")
    }

    @Test(
        "Dolby Vision with a base layer a player shows (8.1, 8.2, 9) is drawn from it; without one (5, 10.0) it is refused",
        arguments: [
            (8, 1, "dvvC", "HDR10"), (8, 2, "dvvC", "SDR"), (9, 2, "dvvC", "SDR"), (5, 0, "dvcC", nil), (10, 0, "dvvC", nil),
        ] as [(Int, Int, String, String?)])
    func dolbyVisionShaped(profile: Int, compatibility: Int, box: String, base: String?) throws {
        let dir = try Scratch.folder("dovi")
        let plain = dir + "/plain.mp4", dovi = dir + "/dovi.mp4"
        // An HDR10 base layer is tagged PQ, as a camera's is.
        let tags = compatibility == 1 ? ["-color_trc", "smpte2084", "-color_primaries", "bt2020", "-colorspace", "bt2020nc"] : []
        try Self.hevc(plain, extra: tags)
        try FileManager.default.copyItem(atPath: plain, toPath: dovi)
        try Self.insert(box, Self.doviRecord(profile: profile, compatibility: compatibility), intoSampleEntryOf: dovi)
        // The oracle: FFmpeg 5.1 exports the record as the stream's DOVI side data.
        #expect(try Self.probed(dovi, "dv_profile") == "\(profile)")
        #expect(try Self.probed(dovi, "dv_bl_signal_compatibility_id") == "\(compatibility)")
        let r = try Self.render(dovi, dir + "/dovi-out.mp4")
        guard let base else {
            #expect(r.code == 65, "\(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(
                lines.count == 1
                    && lines[0].hasPrefix(
                        "sweep: \(dovi): the clip is Dolby Vision profile \(profile) with no base layer a player without Dolby Vision can show"
                    ),
                "\(r.stderr)")
            #expect(lines.first?.contains("its colours would be wrong") == true, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/dovi-out.mp4"))
            return
        }
        #expect(r.code == 0, "\(r.stderr)")
        let name = profile == 8 ? "8.\(compatibility)" : "\(profile)"
        let notes = r.json?["notes"] as? [String] ?? []
        #expect(
            notes.contains(
                "the before clip is Dolby Vision (profile \(name)): drawn from its \(base) base layer, without the Dolby Vision metadata"),
            "\(notes)")
        // The base layer is the picture: the same frames as the clip without the record.
        let p = try Self.render(plain, dir + "/plain-out.mp4")
        #expect(p.code == 0, "\(p.stderr)")
        #expect(!(p.json?["notes"] as? [String] ?? []).contains { $0.contains("Dolby Vision") })
        let ours = try RealMediaMatrixTests.frames(dir + "/dovi-out.mp4", size: (64, 48), filters: [])
        let theirs = try RealMediaMatrixTests.frames(dir + "/plain-out.mp4", size: (64, 48), filters: [])
        #expect(ours.count == 6 && ours == theirs, "\(ours.count) frames")
    }

    // MARK: Spatial video

    @Test("Spatial video (MV-HEVC, a real file) draws its base view, FFmpeg's, and says which eye")
    func spatialReal() throws {
        let dir = try Scratch.folder("mvhevc")
        let input = Self.media + "/mvhevc-spatial.mov"
        let r = try Self.render(input, dir + "/o.mp4", ["--size", "96x108", "--no-handle", "--no-labels", "--hard-edge"])
        #expect(r.code == 0, "\(r.stderr)")
        let notes = r.json?["notes"] as? [String] ?? []
        #expect(notes.contains("the before clip is spatial video (MV-HEVC): only its base view, the left eye, is drawn"), "\(notes)")
        // The picture is FFmpeg's decode (its base view), first frame to last.
        let ours = try RealMediaMatrixTests.frames(dir + "/o.mp4", size: (96, 108), filters: [])
        let theirs = try RealMediaMatrixTests.frames(input, size: (96, 108), filters: [])
        try #require(!ours.isEmpty && !theirs.isEmpty)
        #expect(RealMediaMatrixTests.psnr(ours[0], theirs[0]) >= 30)
        #expect(RealMediaMatrixTests.psnr(ours[ours.count - 1], theirs[theirs.count - 1]) >= 30)
    }

    @Test("A spatial clip whose views are swapped (stri) says its base view is the right eye; a plain HEVC clip says nothing")
    func spatialShaped() throws {
        let dir = try Scratch.folder("mvhevc-shaped")
        let plain = dir + "/plain.mp4", spatial = dir + "/spatial.mp4"
        try Self.hevc(plain)
        try FileManager.default.copyItem(atPath: plain, toPath: spatial)
        // vexu > eyes > stri (full box; flags: views reversed, right and left eye present).
        let stri: [UInt8] = [0, 0, 0, 13] + Array("stri".utf8) + [0, 0, 0, 0, 0x0B]
        let eyes: [UInt8] = [0, 0, 0, UInt8(8 + stri.count)] + Array("eyes".utf8) + stri
        try Self.insert("vexu", eyes, intoSampleEntryOf: spatial)
        let s = try Self.render(spatial, dir + "/s.mp4")
        #expect(s.code == 0, "\(s.stderr)")
        #expect(
            (s.json?["notes"] as? [String] ?? []).contains(
                "the before clip is spatial video (MV-HEVC): only its base view, the right eye, is drawn"), "\(s.stderr)")
        let p = try Self.render(plain, dir + "/p.mp4")
        #expect(p.code == 0 && !(p.json?["notes"] as? [String] ?? []).contains { $0.contains("MV-HEVC") }, "\(p.stderr)")
    }

    // MARK: AVI

    /// The counters (``ClipMaker``) of every frame of `path` as FFmpeg decodes it (each once).
    static func counters(_ path: String) throws -> [Int] {
        try RealMediaMatrixTests.frames(path, size: (96, 64), filters: []).map { rgb in
            (0..<8).reduce(0) { n, band in rgb[(Int((Double(band) + 0.5) * 8) * 96 + 24) * 3] > 128 ? n | 1 << band : n }
        }
    }

    @Test(
        "An AVI with B-frames shows every frame FFmpeg decodes, once, in order, from the start or from --start",
        arguments: [
            ["-c:v", "libxvid", "-bf", "2"], ["-c:v", "libx264", "-bf", "2"], ["-c:v", "mpeg4", "-bf", "2"], ["-c:v", "mpeg4", "-bf", "0"],
        ])
    func aviFrames(codec: [String]) throws {
        let dir = try Scratch.folder("avi")
        let input = dir + "/counter.avi"
        // 60 frames at 29.97 fps: DTS-only timestamps, empty chunks for the encoder's delay
        // (Xvid's packed B-frames), FFmpeg's last frames without a time.
        try ClipMaker.ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=black:s=96x64:r=30000/1001", "-frames:v", "60", "-vf",
                "format=gray,\(ClipMaker.counterFilter()),format=yuv420p",
            ]
                + codec + ["-q:v", "2", input])
        let theirs = try Self.counters(input)
        let probed = try RealMediaMatrixTests.text(
            "ffprobe",
            ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", input])
        #expect(Int(probed.trimmingCharacters(in: .whitespacesAndNewlines)) == theirs.count, "\(probed)")
        for (start, skipped) in [(nil, 0), ("0.5", 15), ("1", 30)] as [(String?, Int)] {
            let out = dir + "/out-\(start ?? "0").mp4"
            let r = try runSweep(
                [
                    "render", input, input, "-o", out, "--size", "96x64", "--no-handle", "--no-labels", "--hard-edge", "--crf", "1",
                    "--quiet",
                ]
                    + (start.map { ["--start", $0] } ?? []))
            #expect(r.code == 0, "\(r.stderr)")
            let ours = try Self.counters(out)
            #expect(ours == Array(theirs.dropFirst(skipped)), "\(codec) from \(start ?? "0") s: \(ours) against FFmpeg's \(theirs)")
        }
    }

    @Test(
        "An AVI cut mid-GOP (packets before the first key frame give no frame) plays FFmpeg's frames, in order, from its first",
        arguments: [0, 2])
    func aviMidGOP(bframes: Int) throws {
        let dir = try Scratch.folder("avi-gop")
        let input = dir + "/cut\(bframes).avi"
        // The first 5 packets dropped: FFmpeg decodes from the next key frame.
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=96x64:r=25", "-frames:v", "100", "-vf",
            "format=gray,\(ClipMaker.counterFilter()),format=yuv420p", "-c:v", "libx264", "-bf", "\(bframes)", "-g", "25", "-qp", "0",
            "-bsf:v", "noise=drop=lt(n\\,5)", input,
        ])
        let theirs = try Self.counters(input)
        try #require((theirs.first ?? 0) >= 5, "\(theirs)")  // from the first key frame after the cut
        let out = dir + "/o.mp4"
        let r = try runSweep(
            ["render", input, input, "-o", out, "--size", "96x64", "--no-handle", "--no-labels", "--hard-edge", "--crf", "1", "--quiet"])
        #expect(r.code == 0, "\(r.stderr)")
        let ours = try Self.counters(out)
        #expect(ours.first == theirs.first && ours == ours.sorted() && Set(ours) == Set(theirs), "\(ours) against \(theirs)")
    }

    @Test("An empty chunk part-way through an AVI (a dropped frame) holds the frame before it, as FFmpeg's times say")
    func aviDroppedFrame() throws {
        let dir = try Scratch.folder("avi-drop")
        let input = dir + "/drop.avi"
        // Frame 20 left out: the AVI muxer writes an empty chunk in its place.
        try ClipMaker.ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=black:s=96x64:r=30", "-frames:v", "40", "-vf",
                "format=gray,\(ClipMaker.counterFilter()),format=yuv420p,select='not(eq(n\\,20))'", "-fps_mode", "passthrough",
                "-c:v", "mpeg4", "-bf", "0", "-q:v", "2", input,
            ])
        let decoded = try Self.counters(input)
        let times = try RealMediaMatrixTests.text(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp", "-of", "csv=p=0", input]
        ).split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
        try #require(times.count == decoded.count && !times.contains(20) && times.contains(21), "\(times)")
        // Each frame time shows the last frame due by then.
        let expected = (0...times.max()!).map { t in decoded[times.lastIndex { $0 <= t }!] }
        let out = dir + "/o.mp4"
        let r = try runSweep(
            ["render", input, input, "-o", out, "--size", "96x64", "--no-handle", "--no-labels", "--hard-edge", "--crf", "1", "--quiet"])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(try Self.counters(out) == expected)
    }

    @Test("The real AVI whose header counts an empty chunk: FFmpeg's 58 frames, each once")
    func aviReal() throws {
        let dir = try Scratch.folder("avi-real")
        let input = Self.media + "/h264-mp3-long-header.avi"
        let probed = try RealMediaMatrixTests.text(
            "ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames,nb_frames", "-of",
                "csv=p=0", input,
            ])
        #expect(probed.trimmingCharacters(in: .whitespacesAndNewlines) == "59,58", "header, decoded: \(probed)")
        let out = dir + "/o.mp4"
        let r = try runSweep(
            ["render", input, input, "-o", out, "--size", "128x72", "--no-handle", "--no-labels", "--hard-edge", "--crf", "10", "--json"])
        #expect(r.code == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect(json?["frames"] as? Int == 58, "\(String(describing: json))")
        let ours = try RealMediaMatrixTests.frames(out, size: (128, 72), filters: [])
        let theirs = try RealMediaMatrixTests.frames(input, size: (128, 72), filters: [])
        try #require(ours.count == 58 && theirs.count == 58, "\(ours.count) frames against FFmpeg's \(theirs.count)")
        for i in ours.indices {
            let own = RealMediaMatrixTests.psnr(ours[i], theirs[i])
            #expect(own >= 30, "frame \(i): \(own) dB")
            if i + 1 < ours.count {
                #expect(own >= RealMediaMatrixTests.psnr(ours[i], theirs[i + 1]) - 0.5, "frame \(i) is closer to FFmpeg's next")
            }
        }
    }

    // MARK: Motion photos

    @Test("A motion photo (a JPEG with MotionPhoto XMP and an MP4 appended) is read as its photo; the guide's command extracts the clip")
    func motionPhoto() throws {
        let dir = try Scratch.folder("motion-photo")
        let jpeg = dir + "/still.jpg", clip = dir + "/source.mp4", photo = dir + "/PXL_motion.jpg"
        try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120", "-frames:v", "1", "-q:v", "3", jpeg])
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=0.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", clip,
        ])
        let still = [UInt8](try Data(contentsOf: URL(fileURLWithPath: jpeg)))
        let video = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip)))
        // XMP as a Pixel writes it: the video's offset from the end, after the JPEG's SOI.
        let xmp =
            "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description xmlns:GCamera=\"http://ns.google.com/photos/1.0/camera/\" GCamera:MotionPhoto=\"1\" "
            + "GCamera:MotionPhotoVersion=\"1\" GCamera:MicroVideo=\"1\" GCamera:MicroVideoOffset=\"\(video.count)\"/>"
            + "</rdf:RDF></x:xmpmeta>"
        let segment = Array(xmp.utf8)
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((segment.count + 2) >> 8), UInt8((segment.count + 2) & 0xFF)] + segment
        let motion = Array(still[0..<2]) + app1 + Array(still[2...]) + video
        try Data(motion).write(to: URL(fileURLWithPath: photo))

        // The oracle: FFmpeg decodes the motion photo as the same picture as the plain JPEG.
        let theirs = try RealMediaMatrixTests.frames(photo, size: (160, 120), filters: [])
        let jpegs = try RealMediaMatrixTests.frames(jpeg, size: (160, 120), filters: [])
        #expect(theirs.count >= 1 && theirs.first == jpegs.first)

        for (command, ext) in [("preview", "png"), ("render", "mp4")] {
            let a = try runSweep([command, photo, photo, "-o", dir + "/motion.\(ext)", "--json", "--size", "160x120"])
            #expect(a.code == 0, "\(a.stderr)")
            let notes = (try? JSONSerialization.jsonObject(with: Data(a.stdout.utf8)) as? [String: Any])?["notes"] as? [String] ?? []
            #expect(!notes.contains { $0.contains("corrupt") || $0.contains("truncated") }, "\(notes)")
            #expect(!a.stderr.contains("corrupt"), "\(a.stderr)")
            let b = try runSweep([command, jpeg, jpeg, "-o", dir + "/plain.\(ext)", "--json", "--size", "160x120"])
            #expect(b.code == 0, "\(b.stderr)")
            let ours = try RealMediaMatrixTests.frames(dir + "/motion.\(ext)", size: (160, 120), filters: [])
            let plain = try RealMediaMatrixTests.frames(dir + "/plain.\(ext)", size: (160, 120), filters: [])
            #expect(!ours.isEmpty && ours == plain, "\(ext): the motion photo's render differs from its still's")
        }

        // The guide's one-line extraction gives the appended MP4, byte for byte.
        let guide = try String(
            contentsOf: ReadmeExamplesTests.root.appendingPathComponent("docs/guide/clips-and-sound.md"), encoding: .utf8)
        let command = try #require(
            guide.split(separator: "\n").first { $0.hasPrefix("tail -c +") && $0.contains("photo.jpg") },
            "no extraction command in the guide")
        try FileManager.default.copyItem(atPath: photo, toPath: dir + "/photo.jpg")
        let sh = Process()
        sh.executableURL = URL(fileURLWithPath: "/bin/sh")
        sh.currentDirectoryURL = URL(fileURLWithPath: dir)
        sh.arguments = ["-c", String(command.split(separator: "#")[0])]
        try sh.run()
        sh.waitUntilExit()
        #expect(sh.terminationStatus == 0)
        let extracted = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/clip.mp4")))
        #expect(extracted == video, "\(extracted.count) bytes extracted of \(video.count)")
    }
}
