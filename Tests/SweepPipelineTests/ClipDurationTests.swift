import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTestSupport
import Testing

/// A clip's length comes from its frames, not its header (#58): a clip whose header states
/// a bogus length, too long (a fragmented MP4) or too short (Matroska), plays exactly its frames.
@Suite struct ClipDurationTests {
    let dir: String

    init() throws {
        dir = try Scratch.folder("duration")
    }

    /// A 2 s, 29.97 fps fragmented MP4 counter clip (60 frames) whose movie, track and media
    /// headers all state `ticks` of a 30000 Hz clock, as a recorder that never finished its
    /// header leaves them (0xFFFFFFFF: "unknown", read as 143,165 s).
    func fragmented(stating ticks: UInt32) throws -> String {
        let path = dir + "/frag-\(ticks).mp4"
        try ClipMaker.counter(
            path, width: 64, height: 32, fps: 30000.0 / 1001, seconds: 2.002,
            extra: ["-video_track_timescale", "30000", "-movflags", "frag_keyframe+empty_moov"])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func box(_ name: String) throws -> Int {
            let i = (0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual(name.utf8) }
            return try #require(i, "no \(name) box")
        }
        func put(_ value: UInt32, at offset: Int) {
            for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
        }
        // Version 0 boxes: mvhd and mdhd hold times (8 bytes), timescale and duration after the
        // version and flags; tkhd holds times, track id and a reserved word before its duration.
        let mvhd = try box("mvhd"), tkhd = try box("tkhd"), mdhd = try box("mdhd")
        put(30000, at: mvhd + 16)
        put(ticks, at: mvhd + 20)
        put(ticks, at: tkhd + 24)
        put(ticks, at: mdhd + 20)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The stream's duration as ffprobe reads it.
    static func probedDuration(_ path: String) throws -> Double {
        let text = try SoundReader.run("ffprobe", ["-show_entries", "stream=duration", "-of", "csv=p=0", path])
        return Double(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
    }

    /// The container's duration as ffprobe reads it.
    static func probedFormatDuration(_ path: String) throws -> Double {
        let text = try SoundReader.run("ffprobe", ["-show_entries", "format=duration", "-of", "csv=p=0", path])
        return Double(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
    }

    /// Frames FFmpeg decodes from `path`.
    static func decodedFrames(_ path: String) throws -> Int {
        let text = try SoundReader.run(
            "ffprobe", ["-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return Int(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test("A fragmented MP4 whose header states 143,165 s renders its 60 frames and says where they end")
    func bogusLongHeader() throws {
        let clip = try fragmented(stating: 0xFFFF_FFFE)
        // The header's length, as FFmpeg reads it; the frames, as FFmpeg decodes them.
        #expect(try Self.probedDuration(clip) > 143_000)
        #expect(try Self.decodedFrames(clip) == 60)
        let out = dir + "/long-%04d.png"
        let run = try runSweep(["render", clip, "-o", out, "--json", "--no-handle", "--no-labels"])
        #expect(run.code == 0, "\(run.stderr)")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        #expect(summary["frames"] as? Int == 60, "\(summary)")
        let cuts = try #require(summary["cutShort"] as? [[String: Any]], "\(summary)")
        #expect(cuts.count == 1 && cuts[0]["side"] as? String == "before")
        #expect(abs((cuts[0]["framesEnd"] as? Double ?? 0) - 2.002) < 0.002, "\(cuts)")
        #expect((cuts[0]["stated"] as? Double ?? 0) > 143_000, "\(cuts)")
        // Every frame once, in order.
        for i in 0..<60 {
            let image = try ImageDecoder.decode(path: String(format: out, i))
            #expect(ClipMaker.read(image, x: 8) == i, "frame \(i)")
        }
    }

    @Test("A Matroska clip whose header states 1 s of its 2 s plays all of them")
    func bogusShortHeader() throws {
        let clip = dir + "/short.mkv"
        try ClipMaker.counter(clip, width: 64, height: 32, fps: 30, seconds: 2)
        // The segment's Duration (ID 0x4489, an 8-byte float of milliseconds) made 1000.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip)))
        let at = try #require((0..<(bytes.count - 11)).first { bytes[$0] == 0x44 && bytes[$0 + 1] == 0x89 && bytes[$0 + 2] == 0x88 })
        withUnsafeBytes(of: (1000.0).bitPattern.bigEndian) { bytes.replaceSubrange((at + 3)..<(at + 11), with: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: clip))
        #expect(abs(try Self.probedFormatDuration(clip) - 1) < 0.01)
        #expect(try Self.decodedFrames(clip) == 60)
        let decoder = try VideoDecoder(path: clip)
        #expect(abs(decoder.duration - 2) < 0.002, "\(decoder.duration)")
        #expect(decoder.statedEnd == nil)
        let result = try Renderer.render(splitSpec(clip), to: dir + "/short-%04d.png")
        #expect(result.frames == 60)
        #expect(result.cutShort == nil)
        let last = try ImageDecoder.decode(path: dir + "/short-0059.png")
        #expect(ClipMaker.read(last, x: 8) == 59)
    }
}
