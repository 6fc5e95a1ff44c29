import Testing

@testable import SweepTimeline

@Suite("Keyframes, sampling and loops")
struct AnimationTests {
    func sweep(loop: LoopMode = .forever) -> Animation<Double> {
        Animation(
            position: Track([
                Keyframe(time: 0, value: 1.0, curve: .hold),
                Keyframe(time: 2, value: 0.0, curve: .linear),
            ]),
            before: Track(constant: 0), after: Track(constant: 0), loop: loop)
    }

    @Test("Frame i shows t = i/fps; D seconds give round(D·fps) frames")
    func sampling() {
        let a = sweep()
        #expect(a.frameCount(fps: 30) == 60)
        #expect(a.frameCount(fps: 25) == 50)
        #expect(a.time(ofFrame: 15, fps: 30) == 0.5)
        #expect(abs(a.state(ofFrame: 30, fps: 30).position - 0.5) < 1e-9)
    }

    @Test("Boomerang plays forward then back without repeating the turning frames")
    func boomerang() {
        let a = sweep(loop: .boomerang)
        let n = 60
        #expect(a.frameCount(fps: 30) == 2 * n - 2)
        let p = (0..<(2 * n - 2)).map { a.state(ofFrame: $0, fps: 30).position }
        #expect(p[0] == 1)
        for i in 1..<(n - 1) { #expect(abs(p[i] - p[2 * n - 2 - i]) < 1e-12) }
    }

    @Test("Counted loops expand for video only when asked")
    func counted() {
        let a = sweep(loop: .count(3))
        #expect(a.frameCount(fps: 10) == 20)
        #expect(a.frameCount(fps: 10, expandLoops: true) == 60)
        #expect(a.state(ofFrame: 20, fps: 10) == a.state(ofFrame: 0, fps: 10))
    }

    @Test("Cut applies each change at the start of its segment")
    func cut() {
        let a = sweep()
        #expect(a.state(at: 0.01, reduceMotion: .cut).position == 0)
        #expect(a.state(at: 1.99, reduceMotion: .cut).position == 0)
        // Holds are kept: a held value changes at the hold's end, as before.
        let held = Track([
            Keyframe(time: 0, value: 1.0), Keyframe(time: 1, value: 1.0, curve: .hold),
            Keyframe(time: 2, value: 0.0, curve: .easeInOut),
        ]).cut()
        #expect(held.value(at: 0.5) == 1)
        #expect(held.value(at: 1.0) == 0)
    }

    @Test("Dissolve keeps the handle still and fades to the end state")
    func dissolve() {
        let a = sweep()
        let s = a.state(at: 1, reduceMotion: .dissolve)
        #expect(s.position == 1)
        #expect(s.crossfade?.position == 0)
        #expect(abs((s.crossfade?.fraction ?? 0) - 0.5) < 1e-9)
        let end = a.state(at: 2, reduceMotion: .dissolve)
        #expect(end.position == 0 && end.crossfade == nil)
    }

    @Test("In a dissolve the handle is shown at the start until the fade is half way, then at the end")
    func dissolveHandle() {
        let a = sweep()
        let shown = [0.5, 0.9, 1.1, 1.5, 2].map { a.state(at: $0, reduceMotion: .dissolve).handlePosition }
        #expect(shown == [1, 1, 0, 0, 0], "\(shown)")
        #expect(a.state(at: 1.5).handlePosition == a.state(at: 1.5).position)
    }
}
