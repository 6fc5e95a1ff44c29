import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import SweepTimeline
import Testing

@testable import SweepPipeline

/// Mean SSIM over R, G and B with an 11×11 Gaussian window (σ 1.5), the usual constants.
func ssimRGB(_ a: RGBAImage, _ b: RGBAImage) -> Double {
    precondition(a.width == b.width && a.height == b.height)
    let w = a.width, h = a.height
    let kernel: [Double] = {
        let k = (-5...5).map { exp(-Double($0 * $0) / (2 * 1.5 * 1.5)) }
        let s = k.reduce(0, +)
        return k.map { $0 / s }
    }()
    // Separable blur, valid region only (as the reference implementation does).
    func blur(_ p: [Double]) -> [Double] {
        var t = [Double](repeating: 0, count: (w - 10) * h)
        for y in 0..<h {
            for x in 0..<(w - 10) { var s = 0.0; for k in 0..<11 { s += kernel[k] * p[y * w + x + k] }; t[y * (w - 10) + x] = s }
        }
        var o = [Double](repeating: 0, count: (w - 10) * (h - 10))
        for y in 0..<(h - 10) {
            for x in 0..<(w - 10) { var s = 0.0; for k in 0..<11 { s += kernel[k] * t[(y + k) * (w - 10) + x] }; o[y * (w - 10) + x] = s }
        }
        return o
    }
    let c1: Double = 2.55 * 2.55, c2: Double = 7.65 * 7.65
    var total = 0.0
    for ch in 0..<3 {
        let x = (0..<(w * h)).map { Double(a.pixels[$0 * 4 + ch]) }
        let y = (0..<(w * h)).map { Double(b.pixels[$0 * 4 + ch]) }
        let mx = blur(x), my = blur(y)
        let xx = blur(zip(x, x).map { $0 * $1 }), yy = blur(zip(y, y).map { $0 * $1 }), xy = blur(zip(x, y).map { $0 * $1 })
        var sum = 0.0
        for i in 0..<mx.count {
            let vx = xx[i] - mx[i] * mx[i], vy = yy[i] - my[i] * my[i], cxy = xy[i] - mx[i] * my[i]
            sum += ((2 * mx[i] * my[i] + c1) * (2 * cxy + c2)) / ((mx[i] * mx[i] + my[i] * my[i] + c1) * (vx + vy + c2))
        }
        total += sum / Double(mx.count)
    }
    return total / 3
}

/// A deterministic textured picture: gradients and ripples, so that a misplaced line shows.
func texture(_ w: Int, _ h: Int, phase: Double) -> RGBAImage {
    var img = RGBAImage(width: w, height: h)
    for y in 0..<h {
        for x in 0..<w {
            let i = (y * w + x) * 4
            let r = 128 + 100 * sin(Double(x) * 0.21 + phase) * cos(Double(y) * 0.13)
            let g = 90 + 80 * Double(y) / Double(h) + 30 * sin(Double(x + y) * 0.05 + phase)
            let b = 160 + 70 * cos(Double(x) * 0.07 - Double(y) * 0.11 + phase)
            img.pixels[i] = UInt8(max(0, min(255, r)))
            img.pixels[i + 1] = UInt8(max(0, min(255, g)))
            img.pixels[i + 2] = UInt8(max(0, min(255, b)))
        }
    }
    return img
}

@Suite("A video shows what the PNG frames of the same render show", .serialized)
struct VideoMatchesFramesTests {
    @Test(
        "4:2:0 fast path against x264 of the RGBA frames (the floor), within SSIM 0.002",
        arguments: [(false, false), (true, false), (false, true)])
    func matchesFloor(vertical: Bool, rtl: Bool) throws {
        var spec = RenderSpec(
            before: .image(texture(160, 112, phase: 0)), after: .image(texture(160, 112, phase: 2)),
            animation: RenderSpec.sweep(from: 0.9, to: 0.1, duration: 0.7, hold: 0, curve: .linear))
        (spec.width, spec.height, spec.fps) = (160, 112, 10)
        if vertical { spec.style.orientation = .vertical }
        spec.style.rightToLeft = rtl
        let path = tempPath("match.mp4")
        let result = try Renderer.render(spec, to: path)
        let video = try VideoReader(path: path).frames

        // The reference: the RGBA frames the PNG sequence of this render holds.
        let source = try FrameSource(spec: spec)
        let frames = (0..<result.frames).map { source.render(spec.animation.state(ofFrame: $0, fps: spec.fps)) }
        // The floor: the same frames through the same encoder, converted by swscale.
        let floorPath = tempPath("floor.mp4")
        let writer = try VideoWriter(
            path: floorPath, width: 160, height: 112, fps: 10, codec: VideoCodec.named("h264")!,
            container: "mp4", alpha: false, options: [])
        for f in frames { try writer.add(f) }
        try writer.finish()
        let floor = try VideoReader(path: floorPath).frames
        try #require(video.count == frames.count && floor.count == frames.count)
        let ours = zip(video, frames).map(ssimRGB).reduce(0, +) / Double(frames.count)
        let best = zip(floor, frames).map(ssimRGB).reduce(0, +) / Double(frames.count)
        #expect(ours >= best - 0.002, "video SSIM \(ours) against the floor's \(best)")
    }
}
