import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTestSupport
import SweepTimeline
import Testing

/// A spec showing `before` (and `after`) split in the middle, nothing drawn over them, at
/// the before picture's size.
func splitSpec(_ before: String, _ after: String? = nil) -> RenderSpec {
    var s = RenderSpec(
        before: .file(before), after: after.map { .file($0) },
        animation: Animation(
            position: Track(constant: 0.5), before: Track(constant: .identity), after: Track(constant: .identity), loop: .forever))
    s.style.showHandle = false
    s.style.showLabels = false
    return s
}

/// A long clip of the seek matrix: a container, a codec and a key-frame distance.
struct SeekClip: Sendable, CustomStringConvertible {
    let description: String
    /// The file's extension, which picks FFmpeg's muxer.
    let ext: String
    /// The codec's options.
    let codec: [String]
    /// Frames from one key frame to the next.
    let gop: Int

    /// Writes the 60 s, 25 fps counter clip (11 bits: frames 0…1499) into `dir`.
    func make(in dir: String) throws -> String {
        let path = dir + "/seek-\(gop)." + ext
        try ClipMaker.ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=black:s=64x64:r=25:d=\(ClipSeekTests.seconds)", "-vf",
                "format=gray,\(ClipMaker.counterFilter(bits: ClipSeekTests.bits)),format=yuv420p",
            ] + codec + ["-g", "\(gop)", "-keyint_min", "\(gop)", path])
        return path
    }
}

/// Starts, ends and per-clip offsets anywhere in a long clip (#58): each output frame shows
/// the frame FFmpeg's accurate seek (`ffmpeg -ss T -i CLIP`) gives, read from the frame
/// counter burned into it and compared pixel for pixel.
@Suite struct ClipSeekTests {
    static let seconds = 60
    static let fps = 25
    static let bits = 11
    /// Frames rendered from each start.
    static let frames = 8
    let dir: String

    init() throws {
        dir = try Scratch.folder("seek")
    }

    static let x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-sc_threshold", "0"]
    static let vp8 = ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "1M", "-qmin", "0", "-qmax", "8"]
    static let vp9 = ["-c:v", "libvpx-vp9", "-lossless", "1", "-deadline", "realtime", "-cpu-used", "8"]

    static let clips: [SeekClip] = [250, 30].flatMap { gop in
        [
            SeekClip(description: "MP4 (H.264), GOP \(gop)", ext: "mp4", codec: x264, gop: gop),
            SeekClip(description: "MOV (H.264), GOP \(gop)", ext: "mov", codec: x264, gop: gop),
            SeekClip(description: "MKV (H.264), GOP \(gop)", ext: "mkv", codec: x264, gop: gop),
            SeekClip(description: "WebM (VP8), GOP \(gop)", ext: "webm", codec: vp8, gop: gop),
            SeekClip(description: "WebM (VP9), GOP \(gop)", ext: "webm", codec: vp9, gop: gop),
        ]
    }

    /// A 64×64 spec showing `before` (and `after`) split in the middle (``splitSpec(_:_:)``).
    static func spec(_ before: String, _ after: String? = nil) -> RenderSpec {
        var s = splitSpec(before, after)
        (s.width, s.height) = (64, 64)
        return s
    }

    /// Renders `spec` to PNGs and returns the frames.
    func render(_ spec: RenderSpec, _ name: String) throws -> [RGBAImage] {
        let pattern = dir + "/\(name)-%04d.png"
        let result = try Renderer.render(spec, to: pattern)
        return try (0..<result.frames).map { try ImageDecoder.decode(path: String(format: pattern, $0)) }
    }

    /// `count` frames from `seconds` into `clip`, by FFmpeg's accurate seek, as RGBA.
    static func oracle(_ clip: String, from seconds: Double, count: Int) throws -> [RGBAImage] {
        let bytes = try SoundReader.run(
            "ffmpeg",
            [
                "-ss", String(format: "%.3f", seconds), "-i", clip, "-frames:v", "\(count)", "-vsync", "passthrough",
                "-pix_fmt", "rgba", "-f", "rawvideo", "-",
            ])
        let size = 64 * 64 * 4
        return stride(from: 0, to: bytes.count - size + 1, by: size).map {
            RGBAImage(width: 64, height: 64, pixels: [UInt8](bytes[$0..<($0 + size)]))
        }
    }

    /// The before (left) and after (right) counters of a rendered frame.
    static func sides(_ image: RGBAImage) -> (Int, Int) {
        (ClipMaker.read(image, x: 8, bits: bits), ClipMaker.read(image, x: 56, bits: bits))
    }

    @Test("A start at 0, 25, 50, 75 and 99 % shows the frames FFmpeg's accurate seek gives", arguments: clips)
    func startAnywhere(clip: SeekClip) throws {
        let path = try clip.make(in: dir)
        let total = Self.seconds * Self.fps
        for share in [0.0, 0.25, 0.5, 0.75, 0.99] {
            let first = Int((Double(total) * share).rounded(.down))
            let start = Double(first) / Double(Self.fps)
            var s = Self.spec(path)
            s.clip.start = start
            s.clip.length = Double(Self.frames) / Double(Self.fps)
            let rendered = try render(s, "start-\(first)")
            let expected = try Self.oracle(path, from: start, count: Self.frames)
            try #require(expected.count == Self.frames, "\(clip): FFmpeg gave \(expected.count) frames from \(start) s")
            #expect(rendered.count == Self.frames, "\(clip) from \(start) s: \(rendered.count) frames")
            for (i, (mine, theirs)) in zip(rendered, expected).enumerated() {
                let oracle = ClipMaker.read(theirs, x: 32, bits: Self.bits)
                #expect(oracle == first + i, "\(clip): FFmpeg's frame \(i) from \(start) s reads \(oracle)")
                let (left, right) = Self.sides(mine)
                #expect(left == oracle && right == oracle, "\(clip) from \(start) s: frame \(i) shows \(left)/\(right), FFmpeg \(oracle)")
            }
            let quality = psnr(expected, rendered)
            #expect(quality > 30, "\(clip) from \(start) s: \(quality) dB against FFmpeg")
        }
    }

    @Test("An end and per-clip offsets far into a long clip line an excerpt up with its original")
    func offsetsFarIn() throws {
        let original = try Self.clips[0].make(in: dir)
        // The excerpt starts 40 s into the original: its frame 0 is the original's frame 1000.
        let excerpt = dir + "/excerpt.mkv"
        try ClipMaker.ffmpeg(["-ss", "40", "-i", original, "-t", "6", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", excerpt])
        // 3 s into the comparison: the original at 43 s, the excerpt at 3 s; frame 1075 on both sides.
        var s = Self.spec(original, excerpt)
        s.clip.beforeOffset = 40
        s.clip.start = 3
        s.clip.end = 3.2
        var frames = try render(s, "before-start")
        #expect(frames.count == 5)
        for (i, f) in frames.enumerated() {
            let (left, right) = Self.sides(f)
            #expect(left == 1075 + i && right == 1075 + i, "--before-start 40: frame \(i) shows \(left)/\(right)")
        }
        // The other way round: the excerpt before, the original after.
        s = Self.spec(excerpt, original)
        s.clip.afterOffset = 40
        s.clip.start = 5
        s.clip.end = 5.2
        frames = try render(s, "after-start")
        #expect(frames.count == 5)
        for (i, f) in frames.enumerated() {
            let (left, right) = Self.sides(f)
            #expect(left == 1125 + i && right == 1125 + i, "--after-start 40: frame \(i) shows \(left)/\(right)")
        }
        // A start and an end 50 s in, as the command line takes them.
        let out = dir + "/far-%04d.png"
        let run = try runSweep([
            "render", original, "-o", out, "--start", "50", "--end", "50.2", "--size", "64x64", "--no-handle", "--no-labels",
        ])
        #expect(run.code == 0, "\(run.stderr)")
        let expected = try Self.oracle(original, from: 50, count: 5)
        for i in 0..<5 {
            let image = try ImageDecoder.decode(path: String(format: out, i))
            #expect(Self.sides(image) == (1250 + i, 1250 + i), "--start 50: frame \(i) shows \(Self.sides(image))")
            #expect(psnr([expected[i]], [image]) > 30)
        }
        #expect((try? ImageDecoder.decode(path: String(format: out, 5))) == nil, "--end 50.2 writes 5 frames")
    }
}
