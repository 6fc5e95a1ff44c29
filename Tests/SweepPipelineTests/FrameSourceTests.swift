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

@Suite("Frame source")
struct FrameSourceTests {
    @Test("Adjusting on the fly gives the same pixels as adjusting once and caching")
    func fusedEqualsCached() throws {
        var before = RGBAImage(width: 64, height: 40)
        for i in 0..<(64 * 40) {
            before.pixels[i * 4] = UInt8(i % 251); before.pixels[i * 4 + 1] = UInt8((i * 7) % 256); before.pixels[i * 4 + 3] = 255
        }
        var spec = RenderSpec(before: .image(before), after: nil, animation: RenderSpec.sweep())
        spec.style.showLabels = false
        let state = FrameState(position: 0.37, before: Adjustments.noir, after: Adjustments.dream)
        let fused = try FrameSource(spec: spec).render(state)  // first sight: on the fly
        let source = try FrameSource(spec: spec)
        _ = source.render(state)
        let cached = source.render(state)  // held look: cached
        #expect(fused == cached)
        // And the look really applies: the after side is not the plain photo.
        #expect(fused[60, 5] != before[60, 5])
    }
}
