import Foundation
import SweepImaging
import SweepPipeline
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepMedia

/// One variable-rate clip: its frames' times as an FFmpeg `setpts` expression of N.
struct TimingRow: Sendable, CustomStringConvertible {
    let description: String
    /// The presentation time of frame N, in seconds.
    let pts: String
    /// Frames in the clip.
    let frames: Int
    /// The output rate expected: the highest rate frames steadily come at.
    let rate: ClosedRange<Double>
}

/// Clips whose frames do not come at one rate (#58): the output runs at the rate the frames
/// steadily come at, every source frame shows, each for its own time, as FFmpeg times them.
@Suite struct VariableRateClipTests {
    let dir: String

    init() throws {
        dir = try Scratch.folder("vfr")
    }

    static let rows: [TimingRow] = [
        // A motion photo's clip: 30 and 24 fps in turn (average 26.7).
        TimingRow(
            description: "alternating 30 and 24 fps", pts: "floor(N/2)*(1/30+1/24)+mod(N\\,2)/30", frames: 58, rate: 30...30),
        // A phone lowering its rate in the dark: from 30 to 24 fps over 60 frames.
        TimingRow(description: "drifting from 30 to 24 fps", pts: "N/30+N*(N-1)/2*(1/24-1/30)/59", frames: 60, rate: 30...30),
        // 30 fps with a 0.5 s pause after frame 20.
        TimingRow(description: "jumping 0.5 s after frame 20", pts: "N/30+gte(N\\,20)*0.5", frames: 60, rate: 30...30),
        // 30 fps, each frame on time, 4 or 8 ms late in turn.
        TimingRow(description: "jittering 0–8 ms about 30 fps", pts: "N/30+0.004*mod(N\\,3)", frames: 60, rate: 30...41),
    ]

    /// The clip's frame times (seconds from the first) as FFmpeg reads them.
    static func oracleTimes(_ path: String) throws -> [Double] {
        let text = String(
            decoding: try SoundReader.run(
                "ffprobe", ["-select_streams", "v", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path]), as: UTF8.self)
        let times = text.split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.sorted()
        return times.map { $0 - (times.first ?? 0) }
    }

    @Test("Every frame of a variable-rate clip shows, for its own time", arguments: rows)
    func everyFrame(row: TimingRow) throws {
        for ext in ["mp4", "mkv"] {
            let clip = dir + "/vfr.\(ext)"
            try ClipMaker.ffmpeg([
                "-f", "lavfi", "-i", "color=c=black:s=96x64:r=30:d=3", "-vf",
                "format=gray,\(ClipMaker.counterFilter()),format=yuv420p,settb=1/90000,setpts='(\(row.pts))/TB'",
                "-vsync", "passthrough", "-enc_time_base", "1/90000", "-frames:v", "\(row.frames)", "-c:v", "libx264", "-qp", "0",
                "-g", "12", clip,
            ])
            let times = try Self.oracleTimes(clip)
            try #require(times.count == row.frames, "\(row) in \(ext): FFmpeg reads \(times.count) frames")
            let pattern = dir + "/\(ext)-%04d.png"
            let result = try Renderer.render(splitSpec(clip), to: pattern)
            #expect(row.rate.contains(result.fps), "\(row) in \(ext): output at \(result.fps) fps")
            let shown = try (0..<result.frames).map { ClipMaker.read(try ImageDecoder.decode(path: String(format: pattern, $0)), x: 8) }
            #expect(shown == shown.sorted(), "\(row) in \(ext): frames out of order: \(shown)")
            #expect(Set(shown) == Set(0..<row.frames), "\(row) in \(ext): missing \(Set(0..<row.frames).subtracting(shown).sorted())")
            // Each frame shows within an output frame of its time, for as many output frames
            // as its time on screen fills, give or take one.
            let fps = result.fps
            for k in 0..<row.frames {
                guard let first = shown.firstIndex(of: k) else { continue }
                #expect(
                    abs(Double(first) - times[k] * fps) < 1.01, "\(row) in \(ext): frame \(k) due at \(times[k]) s first shows at \(first)")
                guard k + 1 < row.frames else { continue }
                let count = shown.filter { $0 == k }.count
                let due = (times[k + 1] - times[k]) * fps
                #expect(abs(Double(count) - due) < 1.01, "\(row) in \(ext): frame \(k) shows \(count) times for \(due) frames' time")
            }
        }
    }

    @Test("The steady rate: alternating, drifting, pausing and jittering frames")
    func steadyTiming() {
        func timing(_ times: [Double], _ tolerance: Double = 0.001) -> (rate: Double, onGrid: Bool)? {
            VideoDecoder.steadyTiming(times, tolerance: tolerance)
        }
        let pair = 1.0 / 30 + 1.0 / 24
        let alternating: [Double] = (0..<58).map { (n: Int) -> Double in
            let first = Double(n / 2) * pair
            return n % 2 == 0 ? first : first + 1.0 / 30
        }
        #expect(timing(alternating)?.rate == 30 && timing(alternating)?.onGrid == false)
        // Milliseconds (Matroska): 33 and 34 ms intervals are 30 fps, on its grid.
        let millis: [Double] = (0..<60).map { (Double($0) * 1000 / 30).rounded() / 1000 }
        #expect(timing(millis)?.rate == 30 && timing(millis)?.onGrid == true)
        // A pause of 16 frames keeps the grid.
        let paused: [Double] = (0..<60).map { (n: Int) -> Double in Double(n + (n >= 20 ? 16 : 0)) / 30 }
        #expect(timing(paused)?.rate == 30 && timing(paused)?.onGrid == true)
        // 29.97 fps stays 29.97; 30.5 fps is not rounded down to 30 (frames would fall between).
        let ntsc: [Double] = (0..<60).map { Double($0) * 1001 / 30000 }
        #expect(timing(ntsc, 0.001 / 90)?.rate == 30000.0 / 1001)
        let fast: [Double] = (0..<60).map { Double($0) / 30.5 }
        #expect(abs((timing(fast, 0.00001)?.rate ?? 0) - 30.5) < 1e-6)
        // One glitch (a frame 0.5 ms after another) among 30 fps frames is not a rate.
        var glitch: [Double] = (0..<60).map { Double($0) / 30 }
        glitch.append(glitch[30] + 0.0005)
        #expect(timing(glitch)?.rate == 30)
        #expect(timing([0, 1]) == nil)
    }
}
