import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTestSupport
import SweepTimeline
import Testing

@testable import SweepPipeline

/// RIFF/PNG chunk walking for the two formats FFmpeg 5.1 cannot play back as animations.
enum ChunkReader {
    /// Animated WebP: (loop count, frame durations in ms) from the ANIM and ANMF chunks.
    static func webp(_ d: [UInt8]) -> (loop: Int, durations: [Int])? {
        guard d.count > 12, Array(d[0..<4]) == Array("RIFF".utf8), Array(d[8..<12]) == Array("WEBP".utf8) else { return nil }
        var i = 12, loop = -1
        var durations: [Int] = []
        while i + 8 <= d.count {
            let tag = String(decoding: d[i..<i + 4], as: UTF8.self)
            let size = Int(d[i + 4]) | Int(d[i + 5]) << 8 | Int(d[i + 6]) << 16 | Int(d[i + 7]) << 24
            let body = i + 8
            if tag == "ANIM" { loop = Int(d[body + 4]) | Int(d[body + 5]) << 8 }
            if tag == "ANMF" { durations.append(Int(d[body + 12]) | Int(d[body + 13]) << 8 | Int(d[body + 14]) << 16) }
            i = body + size + (size & 1)
        }
        return (loop, durations)
    }

    /// APNG: (frames, plays) from the acTL chunk.
    static func apng(_ d: [UInt8]) -> (frames: Int, plays: Int)? {
        var i = 8
        while i + 8 <= d.count {
            let size = Int(d[i]) << 24 | Int(d[i + 1]) << 16 | Int(d[i + 2]) << 8 | Int(d[i + 3])
            let tag = String(decoding: d[i + 4..<i + 8], as: UTF8.self)
            if tag == "acTL" {
                let b = i + 8
                func be32(_ o: Int) -> Int { Int(d[o]) << 24 | Int(d[o + 1]) << 16 | Int(d[o + 2]) << 8 | Int(d[o + 3]) }
                return (be32(b), be32(b + 4))
            }
            i += 12 + size
        }
        return nil
    }
}

func clipSpec(_ background: RGBA8 = .black, corner: Double = 0) throws -> RenderSpec {
    var spec = RenderSpec(
        before: .image(try DemoScenes.flatLandscape()), after: .image(try DemoScenes.gradedLandscape()),
        animation: RenderSpec.sweep(from: 1, to: 0, duration: 1.0, hold: 0.1, curve: .easeInOut))
    spec.width = 96
    spec.height = 128
    spec.fps = 10
    spec.style.background = background
    spec.style.cornerRadius = corner
    return spec
}

/// PSNR of decoded frames against the rendered ones.
func psnr(_ a: [RGBAImage], _ b: [RGBAImage]) -> Double {
    var se = 0.0, n = 0.0
    for (x, y) in zip(a, b) {
        for i in 0..<x.pixels.count where i % 4 != 3 {
            let d = Double(x.pixels[i]) - Double(y.pixels[i]); se += d * d; n += 1
        }
    }
    return 10 * log10(255 * 255 / max(se / n, 1e-9))
}

@Suite("Video formats decode back through libavformat/libavcodec", .serialized)
struct VideoFormatTests {
    @Test(
        "Codec, pixel format, size, frames, rate, duration and tags",
        arguments: [
            ("mp4", "h264", "yuv420p", ""), ("mp4", "hevc", "yuv420p", "hvc1"), ("webm", "vp9", "yuv420p", ""),
            ("mov", "prores", "yuv422p10le", "apch"), ("mkv", "h264", "yuv420p", ""), ("apng", "apng", "rgb24", ""),
        ])
    func formats(ext: String, codec: String, pixfmt: String, tag: String) throws {
        var spec = try clipSpec()
        spec.codec = codec
        let path = tempPath("clip.\(ext)")
        let r = try Renderer.render(spec, to: path)
        let v = try VideoReader(path: path)
        #expect(v.codecName == codec)
        #expect(v.pixelFormat == pixfmt)
        #expect(v.width == 96 && v.height == 128)
        #expect(v.frameCount == r.frames && r.frames == 10)
        if ext != "apng" {
            #expect(abs(v.frameRate - 10) < 0.01)
            #expect(abs(v.duration - 1.0) < 0.11)
        }
        if !tag.isEmpty { #expect(v.codecTag == tag) }
        if codec != "apng" {
            #expect(v.primaries == "bt709" && v.transfer == "bt709" && v.matrix == "bt709" && v.range == "tv")
        }
        // Colour: the right matrix keeps PSNR high; a BT.601/709 mix-up costs about 10 dB.
        let reference = spec
        let source = try FrameSource(spec: reference)
        let rendered = (0..<r.frames).map { source.render(spec.animation.state(ofFrame: $0, fps: spec.fps)) }
        let quality = psnr(v.frames, rendered)
        #expect(quality > (codec == "apng" ? 99 : 30), "\(codec): \(quality) dB")
        if codec == "apng", let a = ChunkReader.apng(Array(try Data(contentsOf: URL(fileURLWithPath: path)))) {
            #expect(a.frames == 10 && a.plays == 0)
        }
    }

    @Test("H.264 is High profile at level ≤ 4.2 for 1080p30, with moov before mdat")
    func h264Level() throws {
        var spec = try clipSpec()
        spec.width = 1080
        spec.height = 1080
        spec.fps = 30
        spec.animation = RenderSpec.sweep(duration: 0.2, hold: 0)
        let path = tempPath("level.mp4")
        _ = try Renderer.render(spec, to: path)
        let v = try VideoReader(path: path, keepFrames: false)
        #expect(v.profile == "High" && v.level > 0 && v.level <= 42)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.range(of: Data("moov".utf8))!.lowerBound < bytes.range(of: Data("mdat".utf8))!.lowerBound)
    }

    @Test("Animated WebP loops forever with the frame timing")
    func webp() throws {
        let path = tempPath("clip.webp")
        let r = try Renderer.render(clipSpec(), to: path)
        let info = try #require(ChunkReader.webp(Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
        #expect(info.loop == 0)
        // libwebp merges identical neighbours (the opening hold) into one longer frame.
        #expect(info.durations.count >= r.frames - 1 && info.durations.count <= r.frames)
        #expect(info.durations.reduce(0, +) == 1000)
    }

    @Test("A transparent background gives VP9 with alpha")
    func vp9Alpha() throws {
        let path = tempPath("alpha.webm")
        _ = try Renderer.render(clipSpec(.clear, corner: 24), to: path)
        // libvpx writes the alpha plane as BlockAdditional data and marks the track AlphaMode.
        let v = try VideoReader(path: path, keepFrames: false)
        #expect(v.codecName == "vp9" && v.tags["alpha_mode"] == "1")
        let opaque = tempPath("opaque.webm")
        _ = try Renderer.render(clipSpec(), to: opaque)
        #expect(try VideoReader(path: opaque, keepFrames: false).tags["alpha_mode"] == nil)
    }

    @Test("A bad codec option or an unknown codec is an error and leaves no file")
    func badOptions() throws {
        let dir = tempPath("bad")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var spec = try clipSpec()
        spec.videoOptions = [("crfff", "20")]
        #expect(throws: SweepError.self) { try Renderer.render(spec, to: dir + "/a.mp4") }
        spec.videoOptions = []
        spec.codec = "h266"
        #expect(throws: SweepError.self) { try Renderer.render(spec, to: dir + "/b.mp4") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test("A write failure part-way (disk full) is an I/O error")
    func diskFull() throws {
        let error = #expect(throws: SweepError.self) {
            let w = try VideoWriter(path: "/dev/full", width: 64, height: 64, fps: 30)
            for _ in 0..<30 { try w.add(RGBAImage(width: 64, height: 64, fill: .white)) }
            try w.finish()
        }
        #expect(error?.code == .ioError)
        #expect(error?.message.contains("No space left") == true, "\(String(describing: error))")
    }
}

@Suite("Overlay in 4:2:0 video")
struct ChromaTests {
    @Test(
        "The divider lands where the RGBA frame has it: sub-pixel in luma, only chroma is halved",
        arguments: [0.3, 0.5137, 0.77])
    func dividerInLuma(p: Double) throws {
        var spec = RenderSpec(
            before: .image(RGBAImage(width: 200, height: 100, fill: RGBA8(r: 200, g: 30, b: 30))),
            after: .image(RGBAImage(width: 200, height: 100, fill: RGBA8(r: 30, g: 30, b: 200))),
            animation: Animation(
                position: Track(constant: p), before: Track(constant: .identity),
                after: Track(constant: .identity)))
        spec.width = 390
        spec.height = 390  // scale 1: the divider is 3 px wide
        spec.fps = 10
        spec.style.showLabels = false
        let path = tempPath("divider.mp4")
        _ = try Renderer.render(spec, to: path)
        let frame = try VideoReader(path: path).frames[0]
        let reference = try FrameSource(spec: spec).render(spec.animation.state(ofFrame: 0, fps: spec.fps))
        func luma(_ c: RGBA8) -> Double { 0.2126 * Double(c.r) + 0.7152 * Double(c.g) + 0.0722 * Double(c.b) }
        // Where the split falls (positions 0 and 1 lie inside the frame, so the knob rests whole).
        let x = Int(try FrameSource(spec: spec).overlay.splitEdge(position: p).edge)
        let columns = (x - 6)...(x + 6)
        for col in columns {
            #expect(abs(luma(frame[col, 20]) - luma(reference[col, 20])) < 12, "column \(col)")
        }
        // The divider's centre of brightness is where the frame has it: nothing snapped to
        // an even pixel (which moved it by up to 1 px).
        func centre(_ img: RGBAImage) -> Double {
            let w = columns.map { max(0, luma(img[$0, 20]) - 120) }
            return zip(columns, w).map { Double($0) * $1 }.reduce(0, +) / w.reduce(0, +)
        }
        #expect(abs(centre(frame) - centre(reference)) < 0.25, "\(centre(frame)) against \(centre(reference))")
        // Two pixels beyond the divider's edges the sides keep their own colour.
        #expect(frame[x - 4, 20].r > 170 && frame[x - 4, 20].b < 70)
        #expect(frame[x + 5, 20].b > 170 && frame[x + 5, 20].r < 70)
    }
}

@Suite("Animated inputs")
struct AnimatedInputTests {
    @Test("An animated WebP or APNG input gives its first frame, alpha included", arguments: ["webp", "apng"])
    func firstFrame(ext: String) throws {
        var spec = try clipSpec(.clear, corner: 24)
        spec.style.showHandle = false
        spec.style.showLabels = false
        let path = tempPath("anim.\(ext)")
        _ = try Renderer.render(spec, to: path)
        let first = try ImageDecoder.decode(path: path, background: RGBA8(r: 255, g: 0, b: 0))
        #expect(first.width == 96 && first.height == 128)
        #expect(first[0, 0] == RGBA8(r: 255, g: 0, b: 0))  // a transparent corner shows the background
        let expected = try FrameSource(spec: spec).render(spec.animation.state(ofFrame: 0, fps: spec.fps))
        let tol = ext == "apng" ? 0 : 16
        #expect(abs(Int(first[48, 100].r) - Int(expected[48, 100].r)) <= tol)  // frame 0: all before
    }
}
