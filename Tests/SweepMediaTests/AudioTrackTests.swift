import Foundation
import SweepImaging
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepMedia

/// A 4 s clip whose audio is silent for 2 s, then a 440 Hz tone: the tone's onset shows
/// where a cut landed. `audio` is the ffmpeg arguments for its codec; `video` adds a picture.
/// `audioOffset` seconds delays the audio stream's timestamps (its own start time).
private func clip(_ name: String, audio: [String], rate: Int = 48_000, video: Bool = true, audioOffset: Double = 0) throws -> String {
    let path = Scratch.path(name)
    let tone = "aevalsrc='if(gte(t,2),0.8*sin(2*PI*440*t),0)':s=\(rate):d=4"
    var args = ["-y", "-itsoffset", String(audioOffset), "-f", "lavfi", "-i", tone]
    if video { args += ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=4", "-c:v", "libx264", "-preset", "ultrafast"] }
    _ = try SoundReader.run("ffmpeg", args + audio + [path])
    return path
}

/// Where the tone starts in `path`'s first audio stream, in seconds after the first video
/// frame (after time 0 without video), as a player lines them up.
private func toneOnset(_ path: String) throws -> Double {
    Double(try #require(try SoundReader.timeline(path).firstIndex { abs(Int($0)) > 13_000 })) / 48_000
}

/// Writes `seconds` of 64×48 grey frames at 25 fps with `audio`, returning the path.
private func render(_ out: String, codec: VideoCodec = .h264, container: String? = nil, seconds: Double, audio: AudioInput) throws
    -> String
{
    let path = Scratch.path(out)
    let w = try VideoWriter(path: path, width: 64, height: 48, fps: 25, codec: codec, container: container, audio: audio)
    let grey = RGBAImage(width: 64, height: 48, fill: RGBA8(r: 128, g: 128, b: 128))
    for _ in 0..<Int((seconds * 25).rounded()) { try w.add(grey) }
    try w.finish()
    return path
}

@Suite("Audio is carried into videos: copied or re-encoded, cut and in sync")
struct AudioTrackTests {
    /// Each case: the input's audio codec and container, the output's, and the codec the
    /// output's audio must have. A codec the container takes is copied; others re-encoded.
    @Test(
        "One audio stream of the right codec, as long as the video, the cut in the right place",
        arguments: [
            ("AAC in MP4 into MP4: copied", "in.mp4", ["-c:a", "aac"], 48_000, "out.mp4", VideoCodec.h264, "aac", 1024),
            ("AAC in MP4 into MKV: copied", "in.mp4", ["-c:a", "aac"], 48_000, "out.mkv", .h264, "aac", 1024),
            ("Opus in WebM into WebM: copied", "in.webm", ["-c:a", "libopus"], 48_000, "out.webm", .vp9, "opus", 960),
            ("PCM in MOV into MP4: re-encoded to AAC", "in.mov", ["-c:a", "pcm_s16le"], 44_100, "out.mp4", .h264, "aac", 1024),
            ("PCM in MOV into WebM: re-encoded to Opus", "in.mov", ["-c:a", "pcm_s16le"], 48_000, "out.webm", .vp9, "opus", 960),
            (
                "PCM at 44.1 kHz in MOV into WebM: re-encoded to Opus at 48 kHz", "in.mov", ["-c:a", "pcm_s16le"], 44_100, "out.webm", .vp9,
                "opus", 960
            ),
            (
                "MP3 in MKV into WebM: re-encoded to Opus at 48 kHz", "in.mkv", ["-c:a", "libmp3lame"], 44_100, "out.webm", .vp9, "opus",
                960
            ),
        ])
    func carried(
        _ label: String, _ input: String, _ inArgs: [String], _ rate: Int, _ output: String, _ codec: VideoCodec,
        _ expected: String, _ frame: Int
    ) throws {
        let source = try clip(input, audio: inArgs, rate: rate, video: !input.hasSuffix(".webm"))
        #expect(AudioProbe.hasAudio(path: source))
        // Output time 0 is input time 1.5, so the tone (input 2 s) starts at 0.5 s.
        let path = try render(
            output, codec: codec, container: output.hasSuffix("mkv") ? "matroska" : nil, seconds: 2,
            audio: AudioInput(path: source, start: 1.5, duration: 2))
        let found = try SoundReader.streams(path)
        let audio = found.filter { $0.type == "audio" }
        #expect(audio.count == 1, "\(label): \(found)")
        #expect(audio.first?.codec == expected, "\(label)")
        #expect(found.filter { $0.type == "video" }.count == 1, "\(label)")
        // Timestamps start at 0: a copy cut at a packet may start up to one frame late, and
        // an Opus stream starts its pre-skip (6.5 ms) early, as Opus in WebM always does.
        let frameSeconds = Double(frame) / Double(codec == .vp9 ? 48_000 : rate)
        let start = try #require(audio.first?.start)
        #expect(abs(start) < frameSeconds, "\(label): audio starts at \(start)")
        // Decoded samples count from the first timestamp (or from 0 when that is later).
        let samples = try SoundReader.samples(path)
        let seconds = Double(samples.count) / 48_000 + min(start, 0)
        #expect(abs(seconds - 2) <= frameSeconds, "\(label): audio lasts \(seconds) s, the video 2 s")
        // Sync: the tone starts 1.5 s earlier than in the input as decoded (whose own codec
        // delay, e.g. MP3's in Matroska, stays: the output shows what the input shows).
        // FFmpeg places Opus in WebM 7 ms late by its timestamps (see SoundSource.byTimestamps):
        // the source's tone is taken from the decoder's own order.
        let plain = try SoundReader.samples(source, byTimestamps: false)
        let onset = try toneOnset(path)
        let inputOnset =
            label.hasPrefix("Opus") ? Double(try #require(plain.firstIndex { abs(Int($0)) > 13_000 })) / 48_000 : try toneOnset(source)
        // Opus copied from a cut mid-stream is 6 ms early (its pre-skip; see AudioSyncTests).
        let slack = label.hasPrefix("Opus") ? 0.007 : 0.002
        #expect(abs(onset - (inputOnset - 1.5)) < slack, "\(label): the tone starts at \(onset) s, not \(inputOnset - 1.5) s")
    }

    @Test(
        "Audio that starts later than its file keeps its place, copied or re-encoded",
        arguments: [("AAC copied", ["-c:a", "aac"]), ("PCM re-encoded", ["-c:a", "pcm_s16le"])])
    func lateAudio(_ label: String, _ codec: [String]) throws {
        // The audio stream starts at 0.8 s of the file, so its tone plays at 2.8 s: 1.3 s after the cut.
        let source = try clip("late.mkv", audio: codec, audioOffset: 0.8)
        let path = try render("late.mp4", seconds: 2, audio: AudioInput(path: source, start: 1.5, duration: 2))
        let onset = try toneOnset(path)
        #expect(abs(onset - 1.3) < 0.002, "\(label): the tone starts at \(onset) s, not 1.3 s")
        let seconds = Double(try SoundReader.samples(path).count) / 48_000
        #expect(abs(seconds - 2) <= 1024.0 / 48_000, "\(label): audio lasts \(seconds) s")
    }

    @Test(
        "Audio is written as the frames arrive, not at the end",
        arguments: [("copied", "in.mp4", "out.mp4"), ("re-encoded", "in.mp4", "out.webm")])
    func keepsPace(_ label: String, _ input: String, _ output: String) throws {
        let source = try clip(input, audio: ["-c:a", "aac"])
        let path = Scratch.path(output)
        let codec = VideoCodec.forExtension(String(output.split(separator: ".").last!))!
        let w = try VideoWriter(path: path, width: 64, height: 48, fps: 25, codec: codec, audio: AudioInput(path: source, duration: 3))
        let grey = RGBAImage(width: 64, height: 48, fill: RGBA8(r: 128, g: 128, b: 128))
        // AAC and Opus packets last about 20 ms: 1 s of video brings about 50 of them.
        for second in 1...3 {
            for _ in 0..<25 { try w.add(grey) }
            #expect(abs(w.audioPacketsWritten - 48 * second) < 8, "\(label): \(w.audioPacketsWritten) packets after \(second) s")
        }
        try w.finish()
    }

    @Test("Audio that turns out corrupt part-way is a data error naming the input and the time")
    func corrupt() throws {
        let good = try clip("good.mkv", audio: ["-c:a", "aac"], video: false)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        // 3 kB of fixed noise (a linear congruential sequence) over the middle of the file.
        var x: UInt32 = 12_345
        for i in bytes.count / 2..<bytes.count / 2 + 3000 {
            x = x &* 1_103_515_245 &+ 12_345
            bytes[i] = UInt8(truncatingIfNeeded: x >> 16)
        }
        let bad = Scratch.path("bad.mkv")
        try bytes.write(to: URL(fileURLWithPath: bad))
        // WebM cannot take AAC, so the audio is decoded (a copy would not look inside the packets).
        let error = try #require(throws: SweepError.self) {
            _ = try render("out.webm", codec: .vp9, seconds: 4, audio: AudioInput(path: bad, duration: 4))
        }
        #expect(error.code == .dataError && error.subject == bad, "\(error)")
        #expect(error.message.contains(" s"), "\(error)")
    }

    @Test("Audio stops with the last video frame when the duration asked for is longer")
    func endsWithVideo() throws {
        let source = try clip("long.mov", audio: ["-c:a", "pcm_s16le"])
        let path = try render("short.mp4", seconds: 1, audio: AudioInput(path: source, start: 0, duration: 3))
        let seconds = Double(try SoundReader.samples(path).count) / 48_000
        #expect(abs(seconds - 1) <= 1024.0 / 48_000, "audio lasts \(seconds) s")
    }

    @Test(
        "Audio shorter than the span just ends; a span past its end leaves the audio out, and the file stays valid",
        arguments: [("copied", ["-c:a", "aac"], "a.m4a"), ("re-encoded", ["-c:a", "pcm_s16le"], "a.mov")])
    func shortAudio(_ label: String, _ codec: [String], _ name: String) throws {
        let source = try clip(name, audio: codec, video: false)
        let short = try render("short.mp4", seconds: 2, audio: AudioInput(path: source, start: 3, duration: 2))
        let seconds = Double(try SoundReader.samples(short).count) / 48_000
        #expect(abs(seconds - 1) <= 1024.0 / 48_000, "\(label): audio lasts \(seconds) s")
        let past = try render("past.mp4", seconds: 1, audio: AudioInput(path: source, start: 5, duration: 1))
        // Nothing to carry: MP4 leaves the empty track out, and the video is whole.
        #expect(try SoundReader.streams(past).filter { $0.type == "audio" }.isEmpty, "\(label)")
        #expect(try VideoReader(path: past, keepFrames: false).frameCount == 25, "\(label)")
    }

    @Test("An input without audio: the probe says so, and asking for its audio is a usage error with nothing written")
    func noAudio() throws {
        let silent = Scratch.path("silent.mp4")
        _ = try SoundReader.run(
            "ffmpeg",
            ["-y", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast", silent])
        #expect(!AudioProbe.hasAudio(path: silent))
        #expect(!AudioProbe.hasAudio(path: Scratch.path("missing.mp4")))
        let path = Scratch.path("out.mp4")
        let error = try #require(throws: SweepError.self) {
            _ = try VideoWriter(path: path, width: 64, height: 48, fps: 25, audio: AudioInput(path: silent, duration: 1))
        }
        #expect(error.code == .usage && error.field == .audio && error.subject == silent, "\(error)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("A container that holds no audio (animated WebP, APNG) is a usage error naming the output", arguments: [VideoCodec.webp, .apng])
    func containerWithoutAudio(codec: VideoCodec) throws {
        let source = try clip("a.m4a", audio: ["-c:a", "aac"], video: false)
        let path = Scratch.path("out." + codec.container)
        let error = try #require(throws: SweepError.self) {
            _ = try VideoWriter(path: path, width: 64, height: 48, fps: 25, codec: codec, audio: AudioInput(path: source, duration: 1))
        }
        #expect(error.code == .usage && error.field == .audio && error.subject == path, "\(error)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("A muxer's refusal is not a disk problem: exit 69 naming the container; a full disk stays exit 74")
    func writeFailures() {
        // AVERROR(e) is -e.
        let refused = #expect(throws: SweepError.self) {
            try FFmpegCall.checkWrite(-EINVAL, "writing failed", subject: "o.mp4", container: "mp4")
        }
        #expect(
            refused?.code == .unavailable && refused?.message.contains("mp4 container refused") == true, "\(String(describing: refused))")
        #expect(refused?.fix?.contains("disk") == false)
        for (errno, fix) in [(ENOSPC, "disk"), (EFBIG, "limit"), (EIO, "disk")] {
            let full = #expect(throws: SweepError.self) {
                try FFmpegCall.checkWrite(-errno, "writing failed", subject: "o.mp4", container: "mp4")
            }
            #expect(full?.code == .ioError && full?.fix?.contains(fix) == true, "\(String(describing: full))")
        }
    }

    @Test("A playlist or concat list is never opened for its sound: only local files in the containers sweep reads (#48)")
    func untrustedOpen() throws {
        let source = try clip("listed.m4a", audio: ["-c:a", "aac"], video: false)
        #expect(AudioProbe.hasAudio(path: source))
        // Each would make FFmpeg open another file (or a URL) that the user never named.
        let playlist = Scratch.path("list.m3u8"), concat = Scratch.path("list.ffconcat")
        try "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n\(source)\n#EXT-X-ENDLIST\n".write(
            toFile: playlist, atomically: true, encoding: .utf8)
        try "ffconcat version 1.0\nfile '\(source)'\n".write(toFile: concat, atomically: true, encoding: .utf8)
        for list in [playlist, concat] {
            #expect(!AudioProbe.hasAudio(path: list), "\(list)")
            let out = Scratch.path("listed.mp4")
            let error = #expect(throws: SweepError.self) {
                _ = try render("listed.mp4", seconds: 1, audio: AudioInput(path: list, duration: 1))
            }
            #expect(error?.code == .dataError && error?.subject == list, "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
