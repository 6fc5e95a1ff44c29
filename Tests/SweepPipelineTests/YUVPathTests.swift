import Foundation
import SweepGIF
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTestSupport
import SweepTimeline
import Synchronization
import Testing

@testable import SweepPipeline

@Suite("Y′CbCr fast path")
struct YUVPathTests {
    @Test(
        "Composing in Y′CbCr matches converting the RGB frame, overlay and corners included",
        arguments: [(false, false), (true, false), (false, true)])
    func matchesRGB(rtl: Bool, vertical: Bool) throws {
        var spec = RenderSpec(
            before: .image(try DemoScenes.flatLandscape()), after: .image(try DemoScenes.gradedLandscape()),
            animation: RenderSpec.sweep())
        spec.width = 300
        spec.height = 400
        spec.style.cornerRadius = 24
        spec.style.rightToLeft = rtl
        spec.style.orientation = vertical ? .vertical : .horizontal
        let source = try FrameSource(spec: spec)
        let path = tempPath("yuv.mp4")
        let writer = try VideoWriter(path: path, width: 300, height: 400, fps: 30)
        let yuv = YUVCompositor(
            before: try writer.convert(source.sides(before: .identity, after: .identity).before),
            after: try writer.convert(source.sides(before: .identity, after: .identity).after),
            overlay: source.overlay)
        for p in [0.0, 0.237, 0.5, 0.81, 1.0] {
            var fast = YUVImage(width: 300, height: 400)
            yuv.render(position: p, into: &fast)
            let reference = try writer.convert(source.render(FrameState(position: p, before: .identity, after: .identity)))
            func meanError(_ a: [UInt8], _ b: [UInt8]) -> Double {
                Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
            }
            func maxError(_ a: [UInt8], _ b: [UInt8]) -> Int { zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0 }
            #expect(meanError(fast.y, reference.y) < 0.3)
            #expect(meanError(fast.u, reference.u) < 0.5 && meanError(fast.v, reference.v) < 0.5)
            // Away from edges the two agree to a level or two; at anti-aliased edges the
            // chroma filters differ a little.
            let worst = zip(fast.y, reference.y).enumerated().max {
                abs(Int($0.element.0) - Int($0.element.1)) < abs(Int($1.element.0) - Int($1.element.1))
            }!
            #expect(maxError(fast.y, reference.y) <= 24, "p \(p) at x \(worst.offset % 300) y \(worst.offset / 300): \(worst.element)")
        }
        try writer.finish()
    }
}
