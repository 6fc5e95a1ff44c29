import Foundation
import SweepMedia
import SweepTestSupport
import Testing

/// One file of the real-media matrix (Tests/Fixtures/media; its README names each file's
/// source and licence).
struct MediaRow: Sendable, CustomStringConvertible {
    /// The file's name in Tests/Fixtures/media.
    let file: String
    /// What the file stands for.
    let what: String
    /// The picture's upright size, as a player shows it.
    let shown: (width: Int, height: Int)
    /// The sound's codec as ffprobe names it; nil for a file without sound.
    var sound: String? = nil
    /// HDR: the oracle is FFmpeg's tone-mapping chain (sweep's own reference).
    var hdr = false
    /// FFmpeg's filters that turn the stored picture upright, with its autorotation off:
    /// FFmpeg 5.1 turns but does not mirror, so a reflected display matrix is applied by hand.
    var upright: String? = nil
    /// AVI: the frames carry decode times only, which FFmpeg 5.1 gives the frames late by the
    /// decoder's delay (and none to the last); the oracle of the length is FFmpeg's count of
    /// decoded frames (`ffprobe -count_frames`), one frame time each.
    var decodeTimesOnly = false

    var description: String { "\(file) (\(what))" }

    /// A quarter of the shown size (half, for pictures under 1280 px), even: small enough to
    /// render fast, large enough to tell frames, turns and colours apart.
    var size: (width: Int, height: Int) {
        let part = max(shown.width, shown.height) >= 1280 ? 8 : 4
        return (max(2, shown.width / part * 2), max(2, shown.height / part * 2))
    }
}

/// Real files, from phones and public test suites (#58): each rendered by the `sweep` binary
/// and checked against FFmpeg, the reference decoder: the clip's length in frames, its first
/// and last pictures (PSNR against FFmpeg's decode, turned and tone-mapped as a player
/// would), and what became of its sound. Files sweep cannot play give one line and exit 65
/// or 66.
@Suite("Real media matrix", .serialized)
struct RealMediaMatrixTests {
    static let folder = ReadmeExamplesTests.root.appendingPathComponent("Tests/Fixtures/media").path

    static let rows: [MediaRow] = [
        MediaRow(
            file: "dv84-hlg-iphone.mov", what: "iPhone HDR, Dolby Vision 8.4 (HLG), HEVC, turned, edit list", shown: (720, 1280),
            sound: "aac", hdr: true),
        MediaRow(file: "mvhevc-spatial.mov", what: "spatial video, MV-HEVC (base view)", shown: (1934, 2160)),
        MediaRow(file: "editlist-shift.mp4", what: "edit list, video starting 1 s after the sound", shown: (1920, 1080), sound: "aac"),
        MediaRow(file: "editlist-bframes.mp4", what: "edit list, B-frames, 1 fps", shown: (704, 576)),
        MediaRow(file: "av1.mp4", what: "AV1 in MP4", shown: (1080, 720), sound: "aac"),
        MediaRow(file: "av1-hlg.mkv", what: "AV1 in Matroska, HLG, portrait", shown: (720, 1280), hdr: true),
        MediaRow(
            file: "av1-pq-hdr10.mp4", what: "AV1 HDR10 (PQ, mastering metadata), 59.94 fps", shown: (1920, 1080), sound: "aac", hdr: true),
        MediaRow(file: "h264-ac3.mkv", what: "AC-3 in Matroska", shown: (1080, 720), sound: "ac3"),
        MediaRow(file: "h264-vorbis.mkv", what: "Vorbis in Matroska", shown: (1080, 720), sound: "vorbis"),
        MediaRow(file: "g-vp9-vorbis51.webm", what: "5.1 Vorbis in WebM (generated)", shown: (320, 180), sound: "vorbis"),
        MediaRow(file: "g-h264-eac3.mp4", what: "5.1 E-AC-3 (public packets, generated picture)", shown: (320, 180), sound: "eac3"),
        MediaRow(file: "g-h264-alac.mov", what: "ALAC (public packets, generated picture)", shown: (320, 180), sound: "alac"),
        MediaRow(file: "h264-mp2.ts", what: "MPEG-TS, MP2 sound, starting at 1.47 s", shown: (640, 426), sound: "mp2"),
        MediaRow(file: "h264-pcm-twos.mp4", what: "big-endian PCM (twos)", shown: (1080, 720), sound: "pcm_s16be"),
        MediaRow(file: "hevc.ts", what: "HEVC in MPEG-TS", shown: (854, 480)),
        MediaRow(file: "h264-aac.flv", what: "FLV, 1 ms packet durations", shown: (1080, 720), sound: "aac"),
        MediaRow(
            file: "h264-mp3-long-header.avi", what: "AVI whose header counts more frames than it holds", shown: (256, 144), sound: "mp3",
            decodeTimesOnly: true),
        MediaRow(file: "h263.3gp", what: "3GP, H.263", shown: (176, 144)),
        MediaRow(
            file: "transposed.mp4", what: "display matrix with a reflection (transpose)", shown: (720, 1080), sound: "aac",
            upright: "transpose=cclock_flip"),
        MediaRow(file: "fragmented-bogus-length.mp4", what: "fragmented MP4, header length 143 165 s", shown: (1080, 720), sound: "aac"),
        MediaRow(file: "slow-motion-vfr.mp4", what: "phone slow motion, variable rate", shown: (320, 240), sound: "aac"),
        MediaRow(
            file: "g-motion-photo-two-tracks.mp4", what: "motion photo: a clip and a still in two HEVC tracks (generated)",
            shown: (512, 384)),
    ]

    /// Runs `tool` and returns its standard output as text.
    static func text(_ tool: String, _ args: [String]) throws -> String {
        String(decoding: try SoundReader.run(tool, args), as: UTF8.self)
    }

    /// The decoded frames' presentation times of the file's first video stream, by ffprobe,
    /// the stream's start and its stated length.
    static func frameTimes(_ path: String) throws -> (times: [Double], start: Double?, stated: Double?) {
        let times = try text(
            "ffprobe", ["-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time", "-of", "csv=p=0", path]
        ).split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
        let fields = try text("ffprobe", ["-select_streams", "v:0", "-show_entries", "stream=start_time,duration", "-of", "csv=p=0", path])
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map { Double($0) }
        return (times, fields.first ?? nil, fields.count > 1 ? fields[1] : nil)
    }

    /// Every frame of `path`'s first video stream as RGB at `size`, as FFmpeg decodes it
    /// (each frame once, whatever its time), after `filters`, filling `size` as sweep's
    /// default fit does (centred, cropped); through 4:2:0 at `size`, as a video that size holds it.
    static func frames(_ path: String, size: (width: Int, height: Int), filters: [String], autorotate: Bool = true) throws -> [[UInt8]] {
        let fill = "scale=\(size.width):\(size.height):force_original_aspect_ratio=increase:flags=bicubic,crop=\(size.width):\(size.height)"
        let chain = (filters + [fill, "format=yuv420p", "format=rgb24"]).joined(separator: ",")
        let data = try SoundReader.run(
            "ffmpeg",
            (autorotate ? [] : ["-noautorotate"]) + [
                "-i", path, "-map", "0:v:0", "-vf", chain, "-fps_mode", "passthrough", "-f", "rawvideo", "-",
            ])
        let bytes = [UInt8](data), step = size.width * size.height * 3
        return stride(from: 0, to: bytes.count - step + 1, by: step).map { Array(bytes[$0..<($0 + step)]) }
    }

    /// Peak signal-to-noise ratio of two RGB pictures, in dB.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var sum = 0.0
        for i in a.indices {
            let d = Double(a[i]) - Double(b[i])
            sum += d * d
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    @Test("Each file renders every frame, the right picture first and last, and its sound", arguments: rows)
    func plays(row: MediaRow) throws {
        let dir = try Scratch.folder("media")
        let input = Self.folder + "/" + row.file
        let out = dir + "/out.mp4"
        let size = row.size
        let r = try runIn(
            dir,
            [
                "render", input, input, "-o", out, "--json", "--no-handle", "--no-labels", "--hard-edge", "--size",
                "\(size.width)x\(size.height)", "--crf", "10",
            ])
        try #require(r.code == 0, "\(row): exit \(r.code): \(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let fps = try #require(json["fps"] as? Double), frames = try #require(json["frames"] as? Int)

        // Length: from the stream's start to the end of its last decoded frame (each frame lasts
        // the clip's usual interval), or the length the stream states when within two frames
        // of that (an edit list may end a frame early or hold the last one longer); in output
        // frames, one for each frame time that starts within it.
        let (times, start, stated) = try Self.frameTimes(input)
        try #require(!times.isEmpty)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }.sorted()
        let interval = gaps.isEmpty ? 1 / fps : gaps[gaps.count / 2]
        let origin = min(start ?? times[0], times.min()!)
        let ends = times.max()! + interval - origin
        let span = stated.map { abs($0 - ends) <= 2 * interval + 1e-3 ? $0 : ends } ?? ends
        var expected = Int((span * fps - 1e-3).rounded(.up))
        if row.decodeTimesOnly {
            let counted = try Self.text(
                "ffprobe",
                [
                    "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
                    input,
                ])
            expected = try #require(Int(counted.trimmingCharacters(in: .whitespacesAndNewlines)), "\(counted)")
        }
        #expect(frames == expected, "\(row): \(frames) frames at \(fps) fps; FFmpeg's frames span \(span) s: \(expected)")

        // The first and last pictures against FFmpeg's first and last decoded frames.
        var filters: [String] = []
        if row.hdr { filters.append(ToneMapper.chain) }
        if let upright = row.upright { filters.append(upright) }
        let reference = try Self.frames(input, size: size, filters: filters, autorotate: row.upright == nil)
        let ours = try Self.frames(out, size: size, filters: [])
        try #require(ours.count == frames && reference.count >= 1, "\(row): \(ours.count) frames decoded of \(frames)")
        let floor = row.hdr ? 28.0 : 30.0
        let first = Self.psnr(ours[0], reference[0])
        #expect(first >= floor, "\(row): first frame \(first) dB")
        let last = Self.psnr(ours[ours.count - 1], reference[reference.count - 1])
        #expect(last >= floor, "\(row): last frame \(last) dB against FFmpeg's last")
        if reference.count >= 2 {
            let before = Self.psnr(ours[ours.count - 1], reference[reference.count - 2])
            #expect(
                last >= before - 0.5, "\(row): the last frame is closer to FFmpeg's next to last (\(before) dB) than its last (\(last) dB)")
        }

        // The sound: carried from the input whose codec FFmpeg names, or none when it has none.
        let sound = try #require(json["sound"] as? [String: Any])
        if let codec = row.sound {
            let probed = try SoundReader.streams(input).first { $0.type == "audio" }?.codec
            #expect(probed == codec, "\(row): FFmpeg reads its sound as \(probed ?? "none")")
            #expect((sound["action"] as? String) != "none", "\(row): \(sound)")
            #expect(sound["from"] as? String == codec, "\(row): \(sound)")
            let carried = try SoundReader.streams(out).first { $0.type == "audio" }?.codec
            #expect(carried != nil && carried == sound["codec"] as? String, "\(row): the output's sound is \(carried ?? "none")")
        } else {
            #expect(sound["action"] as? String == "none", "\(row): \(sound)")
        }
    }

    @Test(
        "Files sweep cannot play give one line naming the file and exit 65 or 66",
        arguments: [
            ("ac3-5.1-audio-only.mp4", Int32(65), "the file has no video stream"),
            ("clearkey-drm.mp4", 65, "the clip is encrypted (DRM, scheme cenc); sweep cannot decrypt it"),
            ("vp9-invalid.webm", 65, "the video is corrupt or truncated at 0:00.000"),
            ("no-such-file.mp4", 66, "no-such-file.mp4"),
        ])
    func refuses(file: String, code: Int32, message: String) throws {
        let dir = try Scratch.folder("media-refused")
        let input = Self.folder + "/" + file
        let r = try runIn(dir, ["render", input, input, "-o", dir + "/out.mp4"])
        #expect(r.code == code, "\(file): exit \(r.code): \(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("sweep: \(input): ") && lines[0].contains(message), "\(file): \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.mp4"))
    }
}
