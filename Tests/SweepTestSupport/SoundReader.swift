import Foundation

/// Reads sound back with FFmpeg's command-line tools, the reference decoder: stream facts
/// from `ffprobe`, samples from `ffmpeg` as a player hears them.
public enum SoundReader {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `tool` (ffmpeg or ffprobe) quietly and returns its standard output.
    public static func run(_ tool: String, _ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        p.arguments = ["-v", "error"] + args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw Failure(description: "\(tool) \(args.joined(separator: " ")) failed") }
        return data
    }

    /// A file's streams as ffprobe sees them: codec type, codec name, start time in seconds.
    public static func streams(_ path: String) throws -> [(type: String, codec: String, start: Double)] {
        let json = try run("ffprobe", ["-show_streams", "-of", "json", path])
        guard let root = try JSONSerialization.jsonObject(with: json) as? [String: Any], let list = root["streams"] as? [[String: Any]]
        else { throw Failure(description: "ffprobe gave no streams for \(path)") }
        return list.map {
            (($0["codec_type"] as? String) ?? "", ($0["codec_name"] as? String) ?? "", Double(($0["start_time"] as? String) ?? "") ?? .nan)
        }
    }

    /// The first audio stream decoded as a player would (edit lists and pre-skip applied),
    /// mono at 48 kHz, from time 0: a later start is padded with silence, an earlier one trimmed.
    ///
    /// With `byTimestamps` false, the samples in the order the decoder gives them, from the
    /// first, whatever the timestamps say: a source's own sound, for reference.
    public static func samples(_ path: String, byTimestamps: Bool = true) throws -> [Int16] {
        let placement = byTimestamps ? ["-af", "aresample=48000:async=1:first_pts=0"] : ["-ar", "48000"]
        let raw = try run("ffmpeg", ["-i", path, "-map", "0:a:0"] + placement + ["-ac", "1", "-f", "s16le", "-"])
        return raw.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// The first audio stream's samples (``samples(_:)``) as a player lines them up with the
    /// picture: sample 0 is heard with the first video frame (with no video, at time 0).
    public static func timeline(_ path: String) throws -> [Int16] {
        // ``samples(_:)`` starts at time 0: a later start is padded, an earlier one trimmed.
        let video = try streams(path).first { $0.type == "video" }?.start ?? 0
        let early = video.isFinite ? Int((max(0, video) * 48_000).rounded()) : 0
        let all = try samples(path)
        return Array(all.dropFirst(min(early, all.count)))
    }

    /// Where each burst of sound starts, in samples at 48 kHz: the first sample at `threshold`
    /// or louder after at least `gap` samples below it.
    public static func onsets(_ s: [Int16], threshold: Int = 8_000, gap: Int = 4_800) -> [Int] {
        var found: [Int] = []
        var quiet = gap
        for (i, v) in s.enumerated() {
            if abs(Int(v)) >= threshold {
                if quiet >= gap { found.append(i) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return found
    }
}
