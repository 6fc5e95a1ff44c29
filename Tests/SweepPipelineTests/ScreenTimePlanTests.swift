import Foundation
import SweepGIF
import SweepImaging
import SweepTimeline
import Testing

@testable import SweepPipeline

@Suite("Screen times: how long what each frame writes stays on screen, from the plan")
struct ScreenTimePlanTests {
    /// A plan of `animation` over `before` and `after` (red and blue by default), without the overlay.
    private func plan(
        _ animation: Animation<Adjustments>, smoothEdge: Bool, vertical: Bool = false,
        before: RGBAImage? = nil, after: RGBAImage? = nil
    ) throws -> FramePlan {
        var spec = sweepSpec()
        if let before { spec.before = .image(before) }
        if let after { spec.after = .image(after) }
        spec.animation = animation
        spec.style.showHandle = false
        spec.style.showLabels = false
        spec.style.smoothEdge = smoothEdge
        if vertical { spec.style.orientation = .vertical }
        return try plan(of: spec)
    }

    /// The plan of `spec`'s frames, as the renderer makes it for a GIF of stills.
    private func plan(of spec: RenderSpec) throws -> FramePlan {
        let n = spec.animation.frameCount(fps: spec.fps)
        let states = spec.animation.states(frames: n, fps: spec.fps, reduceMotion: spec.reduceMotion)
        return FramePlan(
            source: try FrameSource(spec: spec), states: states, animation: spec.animation, fps: spec.fps,
            reduceMotion: spec.reduceMotion)
    }

    /// Per frame and line, how long the rendered frames show what that frame writes there
    /// (0 where it writes nothing): every frame from it on whose line is the same, and the
    /// whole loop when the last frame's is and stays up; at most the loop. Worked out from
    /// the pixels, not from the plan.
    private func staysFromPixels(_ plan: FramePlan, delays: [Int], lastStays: Bool, vertical: Bool) throws -> [[Double]] {
        let frames = try (0..<plan.count).map { try plan.sample($0) }
        var starts = [0.0]
        for d in delays { starts.append(starts.last! + Double(d) / 100) }
        let loop = starts.last!
        let lines = vertical ? plan.height : plan.width
        func line(_ f: Int, _ s: Int) -> [RGBA8] {
            vertical ? (0..<plan.width).map { frames[f][$0, s] } : (0..<plan.height).map { frames[f][s, $0] }
        }
        return (0..<plan.count).map { i in
            (0..<lines).map { s in
                let mine = line(i, s)
                guard i == 0 || mine != line(i - 1, s) else { return 0 }
                var stay = (i..<plan.count).reduce(0.0) { $0 + (line($1, s) == mine ? starts[$1 + 1] - starts[$1] : 0) }
                if lastStays && line(plan.count - 1, s) == mine { stay += loop }
                return min(stay, loop)
            }
        }
    }

    @Test(
        "What each frame writes stays as long as the rendered frames show it: a wipe, one back and forth, a look easing, played once, an anti-aliased edge, a split moving down",
        arguments: [0, 1, 2, 3, 4, 5])
    func matchesPixels(_ kind: Int) throws {
        let brighter = Adjustments(brightness: 0.3)
        let animation: Animation<Adjustments> =
            switch kind {
            case 0: RenderSpec.sweep(from: 1, to: 0, duration: 1, hold: 0, curve: .linear)
            case 1: RenderSpec.sweep(from: 0.8, to: 0.2, duration: 1.0, hold: 0.2, curve: .easeInOut, loop: .boomerang)
            case 2:
                Animation(
                    position: Track([Keyframe(time: 0, value: 0.7, curve: .hold), Keyframe(time: 1, value: 0.3, curve: .linear)]),
                    before: Track(constant: .identity),
                    after: Track([
                        Keyframe(time: 0, value: .identity, curve: .hold), Keyframe(time: 0.4, value: .identity, curve: .hold),
                        Keyframe(time: 0.7, value: brighter, curve: .linear),
                    ]), loop: .forever)
            case 3: RenderSpec.sweep(from: 1, to: 0.4, duration: 1.4, hold: 0.3, curve: .easeOut, loop: .once)
            case 4: RenderSpec.sweep(from: 0.9, to: 0.1, duration: 1.1, hold: 0.1, curve: .easeInOut)
            default: RenderSpec.demoAnimation
            }
        let vertical = kind == 5
        let plan = try plan(animation, smoothEdge: kind == 4, vertical: vertical)
        let delays = GIFTiming.delays(count: plan.count, fps: plan.fps)
        let times = try #require(ScreenTimePlan(plan: plan, delays: delays))
        let expected = try staysFromPixels(plan, delays: delays, lastStays: kind == 3, vertical: vertical)
        #expect(plan.count > 10)
        var differing = 0
        for i in 0..<plan.count {
            let stays = times.stays(frame: i)
            #expect(stays.count == (vertical ? plan.height : plan.width))
            for s in stays.indices where abs(stays[s] - expected[i][s]) >= 1e-9 {
                differing += 1
                if kind == 2 {
                    // A look easing is taken to change nothing: a line rewritten only for it
                    // gets no stay (no scaling), and what stays through it stays longer.
                    #expect(stays[s] == 0 || stays[s] > expected[i][s], "frame \(i), line \(s): \(stays[s]) vs \(expected[i][s])")
                } else {
                    // An anti-aliased edge whose coverage changes by a step too small to change
                    // its colour counts as changed: only the edge line can differ.
                    #expect(kind == 4, "frame \(i), line \(s): \(stays[s]) vs \(expected[i][s])")
                }
            }
        }
        #expect(kind == 2 || differing * 100 < plan.count * plan.width)
        if kind == 2 || kind == 4 { return }
        // The typical stay is the geometric mean of the written lines' stays.
        let written = expected.flatMap { $0 }.filter { $0 > 0 }
        let mean = exp(written.map { log($0) }.reduce(0, +) / Double(written.count))
        #expect(abs(times.typical - mean) < 1e-9 * mean)
    }

    @Test("A linear wipe: the first frame's columns stay less the sooner the split reaches them; budgets scale by √(typical / stay)")
    func wipeScales() throws {
        let plan = try plan(RenderSpec.sweep(from: 1, to: 0, duration: 2, hold: 0, curve: .linear), smoothEdge: true)
        let delays = GIFTiming.delays(count: plan.count, fps: plan.fps)
        let times = try #require(ScreenTimePlan(plan: plan, delays: delays))
        // The split moves right to left: the right edge is covered first.
        let first = times.stays(frame: 0)
        #expect(first[0] > first[80] && first[80] > first[159] && first[159] > 0)
        let scale = times.screenTime(frame: 0)
        #expect(scale.axis == .columns)
        #expect(abs(scale.scale(x: 0, y: 5) - max(0.5, Float((times.typical / first[0]).squareRoot()))) < 1e-5)
        #expect(scale.scale(x: 159, y: 5) == ScreenTime.scaleRange.upperBound)
        // A later frame writes only the columns the split passed.
        #expect(times.stays(frame: 10).filter { $0 > 0 }.count < 20)
    }

    @Test("Where both sides agree the split changes nothing: those pixels are never loosened")
    func sharedPixels() throws {
        // The sides differ in their right half, but for a block at its top right.
        func side(_ color: RGBA8) -> RGBAImage {
            var img = RGBAImage(width: 160, height: 120, fill: RGBA8(r: 90, g: 120, b: 60))
            for y in 0..<120 {
                for x in 80..<160 where !(x >= 140 && y < 60) {
                    let o = (y * 160 + x) * 4
                    (img.pixels[o], img.pixels[o + 1], img.pixels[o + 2]) = (color.r, color.g, color.b)
                }
            }
            return img
        }
        let plan = try plan(
            RenderSpec.sweep(from: 1, to: 0, duration: 2, hold: 0, curve: .linear), smoothEdge: false,
            before: side(red), after: side(blue))
        let delays = GIFTiming.delays(count: plan.count, fps: plan.fps)
        let time = try #require(ScreenTimePlan(plan: plan, delays: delays)).screenTime(frame: 0)
        // The split covers the right edge first: where the sides differ, that column is
        // loosened; in the block where they agree, the frame's pixels stay, and are not.
        #expect(time.scale(x: 150, y: 90) > 2)
        #expect(time.scale(x: 150, y: 30) == 1)
    }

    @Test("With the handle drawn, the lines the divider uncovers count as written by the frame that uncovers them")
    func dividerLines() throws {
        var spec = sweepSpec()
        spec.animation = RenderSpec.sweep(from: 0.9, to: 0.1, duration: 1, hold: 0, curve: .linear)
        spec.style.showLabels = false
        let plan = try plan(of: spec)
        let n = plan.count
        let times = try #require(ScreenTimePlan(plan: plan, delays: GIFTiming.delays(count: n, fps: spec.fps)))
        let frames = try (0..<n).map { try plan.sample($0) }
        let under = plan.states.map { plan.source.overlay.layout(position: $0.position).dividerLines(extent: plan.width) }
        var uncovered = 0
        for g in 1..<n {
            let stays = times.stays(frame: g)
            // Away from the knob (the top rows), every column whose pixels change, and which
            // the divider does not now cover, is written with a stay.
            for x in 0..<plan.width where !(under[g]?.contains(x) ?? false) {
                let changed = (0..<8).contains { frames[g][x, $0] != frames[g - 1][x, $0] }
                if changed { #expect(stays[x] > 0, "frame \(g), column \(x)") }
                if under[g - 1]?.contains(x) ?? false { uncovered += 1 }
            }
        }
        #expect(uncovered > 0)
    }

    @Test("A dissolve or a clip gets no screen times: their pixels change where the lines do not say")
    func notModelled() throws {
        var spec = sweepSpec()
        spec.reduceMotion = .dissolve
        let plan = try plan(of: spec)
        let n = plan.count
        #expect(plan.states.contains { ($0.crossfade?.fraction ?? 0) > 0 })
        #expect(ScreenTimePlan(plan: plan, delays: GIFTiming.delays(count: n, fps: spec.fps)) == nil)
        var clip = plan
        clip.clipTimes = (0..<n).map { Double($0) / spec.fps }
        #expect(ScreenTimePlan(plan: clip, delays: GIFTiming.delays(count: n, fps: spec.fps)) == nil)
    }
}
