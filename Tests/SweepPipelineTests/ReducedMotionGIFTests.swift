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

@Suite("Reduced motion in a GIF")
struct ReducedMotionGIFTests {
    /// Red to blue over 3 s between 0.5 s holds, at 30 fps, without overlay.
    func spec(_ mode: ReduceMotion) -> RenderSpec {
        var spec = sweepSpec()
        spec.animation = RenderSpec.sweep(from: 1, to: 0, duration: 4, hold: 0.5, curve: .linear)
        (spec.fps, spec.reduceMotion) = (30, mode)
        (spec.style.showHandle, spec.style.showLabels) = (false, false)
        return spec
    }

    /// The frames a GIF shows, with how long each is shown (cs).
    func shown(_ path: String) throws -> [(RGBAImage, Int)] {
        let g = try GIFReader(path: path)
        return Array(zip(g.frames, g.delays))
    }

    @Test("A dissolve's fade changes at 10 fps in a GIF (each step held 10 cs), and still blends from before to after in time")
    func fadeHeld() throws {
        let path = tempPath("fade.gif")
        let r = try Renderer.render(spec(.dissolve), to: path)
        let frames = try shown(path)
        #expect(frames.reduce(0) { $0 + $1.1 } == 400)
        // The fade's 3 s in 30 steps or fewer (one per 10 cs), where 30 fps would give 90.
        #expect(r.framesWritten <= 33 && r.frames == 120, "\(r.framesWritten)")
        #expect(frames.dropFirst().dropLast().allSatisfy { $0.1 >= 10 }, "\(frames.map(\.1))")
        // At 2 s, half way, the picture is half red, half blue (within one step of 1/30).
        var t = 0
        let mid = try #require(
            frames.first { f in
                t += f.1; return t > 200
            }
        ).0
        let red = Double(mid[80, 60].r)
        #expect(abs(red - 127.5) <= 255.0 / 30 + 2, "\(red)")
    }

    @Test("auto is a cut in a GIF (two pictures, one change, as --reduce-motion cut makes) and a cross-fade elsewhere")
    func autoChoice() throws {
        let gif = tempPath("auto.gif")
        let r = try Renderer.render(spec(.auto), to: gif)
        let frames = try shown(gif)
        #expect(frames.count == 2 && r.framesWritten == 2, "\(frames.count)")
        #expect(frames[0].1 == 50 && frames[0].0[80, 60].r > 200 && frames[1].0[80, 60].b > 200)
        let cut = tempPath("cut.gif")
        _ = try Renderer.render(spec(.cut), to: cut)
        #expect(try Data(contentsOf: URL(fileURLWithPath: gif)) == Data(contentsOf: URL(fileURLWithPath: cut)))
        let png = tempPath("auto-%03d.png")
        var still = spec(.auto)
        still.fps = 10
        _ = try Renderer.render(still, to: png)
        let mid = try ImageDecoder.decode(path: String(format: png, 20))
        #expect(abs(Int(mid[80, 60].r) - 128) < 20, "a blend half way: \(mid[80, 60])")
    }
}
