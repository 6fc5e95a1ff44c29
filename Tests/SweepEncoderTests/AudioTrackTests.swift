import Foundation
import SweepImaging
import SweepSupport
import Testing

@testable import SweepMedia

/// Runs `tool` (ffmpeg or ffprobe) and returns its standard output; a failure is a test error.
private func runTool(_ tool: String, _ args: [String]) throws -> Data {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
    p.arguments = ["-v", "error"] + args
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw SweepError(.internalError, "\(tool) failed", subject: args.joined(separator: " ")) }
    return data
}

/// A 4 s clip whose audio is silent for 2 s, then a 440 Hz tone: the tone's onset shows
/// where a cut landed. `audio` is the ffmpeg arguments for its codec; `video` adds a picture.
private func clip(_ name: String, audio: [String], rate: Int = 48_000, video: Bool = true) throws -> String {
    let path = tempPath(name)
    let tone = "aevalsrc='if(gte(t,2),0.8*sin(2*PI*440*t),0)':s=\(rate):d=4"
    var args = ["-y", "-f", "lavfi", "-i", tone]
    if video { args += ["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=4", "-c:v", "libx264", "-preset", "ultrafast"] }
    _ = try runTool("ffmpeg", args + audio + [path])
    return path
}

/// The output's streams as ffprobe sees them: codec type, codec name, start time.
private func streams(_ path: String) throws -> [(type: String, codec: String, start: Double)] {
    let json = try runTool("ffprobe", ["-show_streams", "-of", "json", path])
    let root = try #require(JSONSerialization.jsonObject(with: json) as? [String: Any])
    let list = try #require(root["streams"] as? [[String: Any]])
    return list.map {
        (($0["codec_type"] as? String) ?? "", ($0["codec_name"] as? String) ?? "", Double(($0["start_time"] as? String) ?? "") ?? .nan)
    }
}

/// The first audio stream decoded as a player would (edit lists applied, a late start
/// padded with silence from time 0), mono at 48 kHz.
private func decodedAudio(_ path: String) throws -> [Int16] {
    let raw = try runTool(
        "ffmpeg", ["-i", path, "-map", "0:a:0", "-af", "aresample=48000:async=1:first_pts=0", "-ac", "1", "-f", "s16le", "-"])
    return raw.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
}

/// Writes `seconds` of 64×48 grey frames at 25 fps with `audio`, returning the path.
private func render(_ out: String, codec: VideoCodec = .h264, container: String? = nil, seconds: Double, audio: AudioInput) throws
    -> String
{
    let path = tempPath(out)
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
        let found = try streams(path)
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
        let samples = try decodedAudio(path)
        let seconds = Double(samples.count) / 48_000 + min(start, 0)
        #expect(abs(seconds - 2) <= frameSeconds, "\(label): audio lasts \(seconds) s, the video 2 s")
        // Sync: the tone starts 1.5 s earlier than in the input as decoded (whose own codec
        // delay, e.g. MP3's in Matroska, stays: the output shows what the input shows).
        let onset = Double(try #require(samples.firstIndex { abs(Int($0)) > 13_000 })) / 48_000 + min(start, 0)
        let inputStart = try #require(try streams(source).first { $0.type == "audio" }?.start)
        let inputOnset = Double(try #require(try decodedAudio(source).firstIndex { abs(Int($0)) > 13_000 })) / 48_000 + min(inputStart, 0)
        #expect(abs(onset - (inputOnset - 1.5)) < 0.002, "\(label): the tone starts at \(onset) s, not \(inputOnset - 1.5) s")
    }

    @Test("Audio stops with the last video frame when the duration asked for is longer")
    func endsWithVideo() throws {
        let source = try clip("long.mov", audio: ["-c:a", "pcm_s16le"])
        let path = try render("short.mp4", seconds: 1, audio: AudioInput(path: source, start: 0, duration: 3))
        let seconds = Double(try decodedAudio(path).count) / 48_000
        #expect(abs(seconds - 1) <= 1024.0 / 48_000, "audio lasts \(seconds) s")
    }

    @Test("An input without audio: the probe says so, and asking for its audio is a usage error with nothing written")
    func noAudio() throws {
        let silent = tempPath("silent.mp4")
        _ = try runTool(
            "ffmpeg",
            ["-y", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast", silent])
        #expect(!AudioProbe.hasAudio(path: silent))
        #expect(!AudioProbe.hasAudio(path: tempPath("missing.mp4")))
        let path = tempPath("out.mp4")
        let error = try #require(throws: SweepError.self) {
            _ = try VideoWriter(path: path, width: 64, height: 48, fps: 25, audio: AudioInput(path: silent, duration: 1))
        }
        #expect(error.code == .usage && error.field == .audio && error.subject == silent, "\(error)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("A container that holds no audio (animated WebP, APNG) is a usage error naming the output", arguments: [VideoCodec.webp, .apng])
    func containerWithoutAudio(codec: VideoCodec) throws {
        let source = try clip("a.m4a", audio: ["-c:a", "aac"], video: false)
        let path = tempPath("out." + codec.container)
        let error = try #require(throws: SweepError.self) {
            _ = try VideoWriter(path: path, width: 64, height: 48, fps: 25, codec: codec, audio: AudioInput(path: source, duration: 1))
        }
        #expect(error.code == .usage && error.field == .audio && error.subject == path, "\(error)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
