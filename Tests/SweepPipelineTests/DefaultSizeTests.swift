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

@Suite("Default size")
struct DefaultSizeTests {
    @Test("Without --size a big photo is fitted within 800 px for GIF and 1920 px for video, with a note")
    func fitted() throws {
        let big = RGBAImage(width: 2400, height: 1600, fill: red)
        var spec = RenderSpec(
            before: .image(big), after: .image(RGBAImage(width: 2400, height: 1600, fill: blue)),
            animation: RenderSpec.sweep(duration: 0.2, hold: 0))
        spec.fps = 10
        let gif = try Renderer.render(spec, to: tempPath("big.gif"))
        #expect(gif.width == 800 && gif.height == 534)
        #expect(gif.notes.contains { $0.contains("800 px") })
        let mp4 = try Renderer.render(spec, to: tempPath("big.mp4"))
        #expect(mp4.width == 1920 && mp4.height == 1280)
        // A size cap starts its ladder from the default size, not from the photo's.
        spec.maxBytes = 1_000_000
        let capped = try Renderer.render(spec, to: tempPath("big-capped.gif"))
        #expect(capped.width == 800 && capped.height == 534)
        #expect(capped.notes.contains { $0.contains("800 px") })
        spec.maxBytes = nil
        // A small input keeps its size, without a note.
        spec.before = .image(RGBAImage(width: 300, height: 200, fill: red))
        spec.after = nil
        let small = try Renderer.render(spec, to: tempPath("small.gif"))
        #expect(small.width == 300 && small.height == 200 && !small.notes.contains { $0.contains("fitted") })
        // A 1-pixel image becomes the smallest output, 2×2, rather than a complaint about --size.
        spec.before = .image(RGBAImage(width: 1, height: 1, fill: red))
        let dot = try Renderer.render(spec, to: tempPath("dot.gif"))
        #expect(dot.width == 2 && dot.height == 2 && !dot.notes.contains { $0.contains("fitted") })
    }
}
