import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTestSupport
import SweepTimeline
import Testing

/// One clip of the conformance matrix, made by FFmpeg's command line as real files are:
/// a container, a time base and a frame rate. The clip carries a burned-in frame counter
/// (``ClipMaker``), the oracle every output frame is checked against.
struct ClipRow: Sendable, CustomStringConvertible {
    let description: String
    /// The file's extension, which picks FFmpeg's muxer.
    let ext: String
    /// The rate as FFmpeg takes it ("30000/1001").
    let rate: String
    /// More output options (codec, time scale).
    var extra: [String] = []
    /// A box type written over the leading `ftyp` (same size, so every offset stays right):
    /// QuickTime files that start with `skip`, `wide` or `free`.
    var firstBox: String? = nil

    /// The rate as a number.
    var fps: Double {
        let parts = rate.split(separator: "/").compactMap { Double($0) }
        return parts.count == 2 ? parts[0] / parts[1] : parts[0]
    }

    /// Writes the 2 s counter clip into `dir`.
    func make(in dir: String) throws -> String {
        let path = dir + "/row." + ext
        try ClipMaker.ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=black:s=96x64:r=\(rate):d=2", "-vf",
                "format=gray,geq=lum='if(bitand(N\\,pow(2\\,floor(Y*8/H)))\\,255\\,0)',format=yuv420p",
                "-c:v", "libx264", "-qp", "0", "-g", "12",
            ] + extra + [path])
        if let firstBox {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            try #require(bytes[4..<8].elementsEqual("ftyp".utf8))
            bytes.replaceSubrange(4..<8, with: Array(firstBox.utf8))
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        return path
    }
}

/// Real-world clips (#46): whatever the container, time base or rate, every output frame
/// shows, from each side, the source frame whose interval holds its instant.
@Suite struct ClipConformanceTests {
    let dir: String

    init() throws {
        dir = try Scratch.folder("conformance")
    }

    static let rows: [ClipRow] = [
        ClipRow(description: "MP4, 30 fps, 1/15360", ext: "mp4", rate: "30"),
        ClipRow(description: "MP4, 29.97 fps, 1/30000", ext: "mp4", rate: "30000/1001", extra: ["-video_track_timescale", "30000"]),
        ClipRow(description: "MP4, 24 fps, 1/90000", ext: "mp4", rate: "24", extra: ["-video_track_timescale", "90000"]),
        ClipRow(description: "MP4, 50 fps, starting with free", ext: "mp4", rate: "50", firstBox: "free"),
        ClipRow(description: "MOV, 23.976 fps, starting with skip", ext: "mov", rate: "24000/1001", firstBox: "skip"),
        ClipRow(description: "MOV, 25 fps, starting with wide", ext: "mov", rate: "25", firstBox: "wide"),
        ClipRow(description: "MKV, 30 fps, 1/1000", ext: "mkv", rate: "30"),
        ClipRow(description: "MKV, 29.97 fps, 1/1000", ext: "mkv", rate: "30000/1001"),
        ClipRow(description: "MKV, 23.976 fps, 1/1000", ext: "mkv", rate: "24000/1001"),
        ClipRow(description: "MKV, 60 fps, 1/1000", ext: "mkv", rate: "60"),
        ClipRow(
            description: "WebM (VP9), 59.94 fps, 1/1000", ext: "webm", rate: "60000/1001", extra: ["-c:v", "libvpx-vp9", "-lossless", "1"]),
        ClipRow(description: "WebM (VP8), 30 fps, 1/1000", ext: "webm", rate: "30", extra: ["-c:v", "libvpx", "-b:v", "2M", "-qmin", "0"]),
        ClipRow(description: "AVI (MPEG-4), 25 fps", ext: "avi", rate: "25", extra: ["-c:v", "mpeg4", "-q:v", "2"]),
        // A time base of one frame: sampled at 25 fps, a frame must not show early.
        ClipRow(description: "AVI (MPEG-4), 10 fps", ext: "avi", rate: "10", extra: ["-c:v", "mpeg4", "-q:v", "2"]),
        ClipRow(description: "MPEG-TS, 59.94 fps, 1/90000", ext: "ts", rate: "60000/1001"),
        ClipRow(description: "3GP, 15 fps", ext: "3gp", rate: "15"),
        ClipRow(description: "FLV, 25 fps, 1/1000", ext: "flv", rate: "25"),
        ClipRow(description: "FLV, 29.97 fps, 1/1000", ext: "flv", rate: "30000/1001"),
    ]

    /// A spec holding the split in the middle, nothing drawn over the pictures.
    func spec(_ before: String, _ after: String?) -> RenderSpec {
        var s = splitSpec(before, after)
        s.width = 96
        s.height = 64
        return s
    }

    /// Renders to PNGs and reads each frame's counters, left (before) and right (after).
    func counters(_ spec: RenderSpec, _ name: String) throws -> (RenderResult, [(Int, Int)]) {
        let pattern = dir + "/\(name)-%04d.png"
        let result = try Renderer.render(spec, to: pattern)
        let sides = try (0..<result.frames).map { i -> (Int, Int) in
            let image = try ImageDecoder.decode(path: String(format: pattern, i))
            return (ClipMaker.read(image, x: 8), ClipMaker.read(image, x: image.width - 8))
        }
        return (result, sides)
    }

    /// The frames of a clip at `fps` that may be on screen at `t`: the one whose interval
    /// holds `t`, and the next when it is due within 1 ms (the decoder's tolerance).
    static func onScreen(at t: Double, fps: Double) -> ClosedRange<Int> {
        let k = Int((t * fps + 1e-9).rounded(.down))
        return Double(k + 1) / fps - t < 0.001 ? k...(k + 1) : k...k
    }

    @Test("Each output frame shows the frame on screen, on both sides", arguments: rows)
    func framesByTime(row: ClipRow) throws {
        let clip = try row.make(in: dir)
        let reference = dir + "/reference.mp4"
        try ClipMaker.counter(reference, fps: 25, seconds: 3)
        // The row's clip before: the output runs at its nominal rate and shows every frame once.
        let (first, sides) = try counters(spec(clip, reference), "a")
        #expect(abs(first.fps - row.fps) < 1e-6, "\(row): output at \(first.fps) fps")
        #expect(first.frames >= Int(2 * row.fps) - 1, "\(row): \(first.frames) frames")
        for (i, s) in sides.enumerated() {
            let t = Double(i) / first.fps
            #expect(s.0 == i, "\(row): frame \(i) shows before frame \(s.0)")
            #expect(Self.onScreen(at: t, fps: 25).contains(s.1), "\(row): frame \(i) shows after frame \(s.1)")
        }
        // The row's clip after, sampled at the reference's 25 fps.
        let (second, other) = try counters(spec(reference, clip), "b")
        #expect(second.fps == 25)
        for (i, s) in other.enumerated() {
            let t = Double(i) / 25
            #expect(s.0 == i, "\(row): frame \(i) shows before frame \(s.0)")
            #expect(Self.onScreen(at: t, fps: row.fps).contains(s.1), "\(row): frame \(i) at \(t) s shows after frame \(s.1)")
        }
    }

    @Test(
        "Rotation tags turn the picture and keep every frame",
        arguments: [(90, "90° clockwise"), (180, "upside down"), (270, "90° counter-clockwise")])
    func rotation(degrees: Int, label: String) throws {
        let path = dir + "/rot.mp4"
        try ClipMaker.counter(path, width: 64, height: 32, fps: 30, seconds: 1)
        try ClipMaker.rotate(path, clockwise: degrees)
        var s = spec(path, nil)
        (s.width, s.height) = (nil, nil)
        let pattern = dir + "/rot-%04d.png"
        let result = try Renderer.render(s, to: pattern)
        #expect(result.frames == 30)
        let turned = degrees != 180
        #expect((result.width, result.height) == (turned ? 32 : 64, turned ? 64 : 32), "\(label): \(result.width)x\(result.height)")
        for i in 0..<result.frames {
            let image = try ImageDecoder.decode(path: String(format: pattern, i))
            // The counter's bands run from the stored top: bit b's band, wherever the turn put it.
            var k = 0
            for bit in 0..<8 {
                let along = (2 * bit + 1) * (turned ? image.width : image.height) / 16
                let (x, y): (Int, Int) =
                    switch degrees {
                    case 90: (image.width - 1 - along, image.height / 2)  // the stored top is now the right edge
                    case 270: (along, image.height / 2)  // … the left edge
                    default: (image.width / 2, image.height - 1 - along)
                    }
                if image[x, y].g > 128 { k |= 1 << bit }
            }
            #expect(k == i, "\(label): frame \(i) reads \(k)")
        }
    }

    @Test("Non-square pixels are drawn square: a 12:11 clip keeps its circles round")
    func pixelAspect() throws {
        // 88×64 stored, 12:11 pixels: 96×64 on screen. The left half of the stored picture is white.
        let path = dir + "/sar.mkv"
        try ClipMaker.ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=black:s=88x64:r=25:d=1", "-vf",
                "format=gray,geq=lum='if(lt(X\\,44)\\,255\\,0)',setsar=12/11,format=yuv420p", "-c:v", "libx264", "-qp", "0", path,
            ])
        var s = spec(path, nil)
        (s.width, s.height) = (nil, nil)
        let result = try Renderer.render(s, to: dir + "/sar-%04d.png")
        #expect((result.width, result.height) == (96, 64))
        let image = try ImageDecoder.decode(path: dir + "/sar-0000.png")
        // The edge sits at 48 of 96 on screen (at 44 it would be were pixels taken as square).
        #expect(image[45, 32].g > 200 && image[46, 32].g > 200, "\(image[45, 32]) \(image[46, 32])")
        #expect(image[50, 32].g < 50 && image[49, 32].g < 60, "\(image[49, 32]) \(image[50, 32])")
        // Fitted into a square frame, the picture keeps its 3:2 shape: bars top and bottom.
        s.width = 96
        s.height = 96
        s.fit = .fit
        _ = try Renderer.render(s, to: dir + "/fit-%04d.png")
        let fitted = try ImageDecoder.decode(path: dir + "/fit-0000.png")
        #expect(fitted[20, 10].g < 20 && fitted[20, 48].g > 200, "\(fitted[20, 10]) \(fitted[20, 48])")
    }

    @Test("A phone clip averaging 14.99 fps plays at its nominal 15 fps: no frame dropped or doubled")
    func nominalRate() throws {
        // 30 frames at 15 fps; the last one comes 0.1 s late, as a phone's recorder leaves it.
        let path = dir + "/phone.mp4"
        try ClipMaker.ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=black:s=96x64:r=15:d=2", "-vf",
                "format=gray,geq=lum='if(bitand(N\\,pow(2\\,floor(Y*8/H)))\\,255\\,0)',format=yuv420p,setpts='N/15/TB+if(eq(N\\,29)\\,0.1/TB\\,0)'",
                "-vsync", "vfr", "-c:v", "libx264", "-qp", "0", "-g", "12", "-video_track_timescale", "15360", path,
            ])
        let decoder = try VideoDecoder(path: path)
        #expect(decoder.frameRate == 15)
        let (result, sides) = try counters(spec(path, path), "phone")
        #expect(result.fps == 15)
        for (i, s) in sides.prefix(29).enumerated() { #expect(s.0 == i && s.1 == i, "frame \(i): \(s)") }
    }

    @Test("A transport stream cut mid-GOP: its sound stays with its frames, counted from the stream's start")
    func cutMidGOP() throws {
        // 6 s at 25 fps, a key frame every 2 s; frame 13 of each second flashes white (0.52 s)
        // and a 10 ms click sounds at 0.50 s. Cut at 1.2 s keeping the frames before the next
        // key frame, which cannot be decoded: the first picture comes 0.8 s after the start.
        let full = dir + "/full.ts", cut = dir + "/cut.ts"
        try ClipMaker.ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=black:s=96x64:r=25:d=6", "-f", "lavfi", "-i",
                "aevalsrc=0.5*sin(2*PI*1000*t)*lt(mod(t\\,1)-0.5\\,0.01)*gte(mod(t\\,1)\\,0.5):s=48000:d=6",
                "-vf", "geq=lum='if(eq(mod(N\\,25)\\,13)\\,255\\,0)':cb=128:cr=128,format=yuv420p",
                "-c:v", "libx264", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0", "-c:a", "aac", "-f", "mpegts", full,
            ])
        try ClipMaker.ffmpeg(["-i", full, "-ss", "1.2", "-copyinkf", "-c", "copy", cut])
        let out = dir + "/cut.mp4"
        let result = try Renderer.render(spec(cut, cut), to: out)
        #expect(result.fps == 25)
        // Each flash, in output frames, against each click, in output samples.
        let gray = try SoundReader.run("ffmpeg", ["-i", out, "-vf", "scale=8:8,format=gray", "-f", "rawvideo", "-"])
        let frames = stride(from: 0, to: gray.count, by: 64).map { gray[$0..<min($0 + 64, gray.count)].reduce(0) { $0 + Int($1) } / 64 }
        let flashes = frames.indices.filter { frames[$0] > 128 }.map { Double($0) / 25 }
        let clicks = SoundReader.onsets(try SoundReader.timeline(out)).map { Double($0) / 48_000 }
        // The flash at 0.32 s cannot be decoded; those at 1.32, 2.32, 3.32 and 4.32 s can: the
        // clip runs to its last frame, 4.8 s from the stream's start.
        #expect(flashes.count == 4 && clicks.count >= 4, "flashes \(flashes), clicks \(clicks)")
        #expect(result.frames == 120, "\(result.frames) frames")
        for flash in flashes {
            // The click 20 ms before its flash, give or take an AAC frame (21 ms) and a video frame.
            let click = clicks.min { abs($0 - flash) < abs($1 - flash) } ?? .nan
            #expect(abs(flash - 0.02 - click) < 0.045, "flash at \(flash) s, nearest click at \(click) s")
        }
    }

    @Test("A clip whose frames change size part-way is drawn whole, letterboxed from then on (#48)")
    func sizeChange() throws {
        // 1 s at 96×64, then 1 s at 48×64, in one MJPEG AVI: under --fit fit the first size
        // fills the 96×64 output, the second leaves bars, which the Y′CbCr fast path cannot draw.
        let wide = dir + "/wide.avi", narrow = dir + "/narrow.avi", list = dir + "/list.txt", clip = dir + "/sizes.avi"
        for (path, width) in [(wide, 96), (narrow, 48)] {
            try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "color=c=white:s=\(width)x64:r=25:d=1", "-c:v", "mjpeg", "-q:v", "2", path])
        }
        try "file '\(wide)'\nfile '\(narrow)'\n".write(toFile: list, atomically: true, encoding: .utf8)
        try ClipMaker.ffmpeg(["-f", "concat", "-safe", "0", "-i", list, "-c", "copy", clip])
        var s = spec(clip, clip)
        s.fit = .fit
        let out = dir + "/sizes.mp4"
        let result = try Renderer.render(s, to: out)
        #expect(result.frames == 50)
        // Mean brightness of the left and middle 8 columns in the first and last frame.
        let gray = try SoundReader.run("ffmpeg", ["-i", out, "-vf", "format=gray", "-f", "rawvideo", "-"])
        let frame = 96 * 64
        #expect(gray.count == 50 * frame)
        func mean(_ k: Int, columns: Range<Int>) -> Int {
            var sum = 0
            for y in 0..<64 { for x in columns { sum += Int(gray[gray.startIndex + k * frame + y * 96 + x]) } }
            return sum / (64 * columns.count)
        }
        #expect(mean(0, columns: 0..<8) > 200 && mean(0, columns: 44..<52) > 200)
        #expect(mean(49, columns: 0..<8) < 40 && mean(49, columns: 44..<52) > 200, "\(mean(49, columns: 0..<8))")
    }

    @Test(
        "A recording whose sound runs past its last frame (a browser's MediaRecorder, OBS) ends with its video (#48)",
        arguments: [
            ("webm", ["-c:v", "libvpx", "-b:v", "500k", "-c:a", "libopus"]), ("mkv", ["-c:v", "libx264", "-c:a", "aac"]),
        ])
    func soundPastVideo(ext: String, codecs: [String]) throws {
        // 3 s of video, 4.5 s of sound; the container says 4.5 s and the video track nothing.
        let clip = dir + "/recording." + ext
        try ClipMaker.ffmpeg(
            ["-f", "lavfi", "-i", "testsrc=s=96x64:r=30:d=3", "-f", "lavfi", "-i", "sine=f=440:d=4.5"] + codecs + [clip])
        let decoder = try VideoDecoder(path: clip)
        #expect(abs(decoder.duration - 3) < 0.05, "\(decoder.duration)")
        let out = dir + "/recording.mp4"
        let result = try Renderer.render(spec(clip, clip), to: out)
        #expect(result.frames == 90, "\(result.frames) frames")
        let streams = try SoundReader.streams(out)
        #expect(streams.map(\.type).sorted() == ["audio", "video"], "\(streams)")
    }
}
