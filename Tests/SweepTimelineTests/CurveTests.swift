import Foundation
import Testing

@testable import SweepTimeline

@Suite("Curves match SwiftUI")
struct CurveTests {
    @Test(
        "Bézier check values from docs/REFERENCE.md §timeline",
        arguments: [
            (Curve.easeInOut, 0.25, 0.129162),
            (Curve.easeInOut, 0.75, 0.870838),
            (Curve.easeInOut, 0.5, 0.5),
            (Curve.timingCurve(0.25, 0.1, 0.25, 1), 0.5, 0.802403),
            (Curve.linear, 0.3, 0.3),
        ])
    func bezierValues(curve: Curve, x: Double, expected: Double) {
        #expect(abs(curve.progress(elapsed: x, duration: 1) - expected) < 1e-6)
    }

    @Test("Bézier solves x to 1e-7 across the range")
    func bezierSolverAccuracy() {
        let b = UnitBezier(0.42, 0, 0.58, 1)
        for i in 0...1000 {
            let x = Double(i) / 1000
            let t = b.solve(x)
            #expect(abs(b.sampleX(t) - x) < 1e-7)
        }
    }

    @Test("Eased values are monotonic and hit the ends")
    func easeEnds() {
        for c in [Curve.easeIn, .easeOut, .easeInOut, .linear] {
            #expect(c.progress(elapsed: 0, duration: 2) == 0)
            #expect(c.progress(elapsed: 2, duration: 2) == 1)
            var last = -1.0
            for i in 0...100 {
                let v = c.progress(elapsed: Double(i) / 50, duration: 2)
                #expect(v >= last - 1e-12)
                last = v
            }
        }
    }

    @Test("Spring constants: duration 0.5, bounce 0.3 → stiffness 157.9, damping 17.6")
    func springConstants() {
        let s = Spring(duration: 0.5, bounce: 0.3)
        #expect(abs(s.stiffness - 157.9) < 0.05)
        #expect(abs(s.damping - 17.6) < 0.05)
        let d = Spring()
        #expect(abs(d.stiffness - pow(2 * Double.pi / 0.5, 2)) < 1e-9)
        #expect(abs(d.damping - 4 * Double.pi * 0.825 / 0.5) < 1e-9)
    }

    @Test(
        "A spring given a segment settles at its end, keeping its shape: a 9 s sweep moves for 9 s",
        arguments: [Curve.spring(Spring()), .smooth, .snappy, .bouncy], [0.2, 1.0, 9.0])
    func springFillsItsSegment(curve: Curve, d: Double) throws {
        guard case let .spring(s) = curve else { return }
        // Its shape is the spring's own, run settling/d times as fast.
        for f in stride(from: 0.0, through: 0.99, by: 0.03) {
            #expect(abs(curve.progress(elapsed: f * d, duration: d) - s.progress(at: f * s.settlingDuration)) < 1e-12)
        }
        // Within 0.001 of the end from the segment's end on, and not long before it.
        let lastOutside = Array(stride(from: 0.0, to: d, by: d / 2000)).last {
            abs(1 - curve.progress(elapsed: $0, duration: d)) >= 0.001
        }
        let last = try #require(lastOutside)
        #expect(last > 0.99 * d && last < d, "last outside the band at \(last) of \(d) s")
    }

    /// Integrates x'' = -k x - c x' with RK4 and compares with the closed form.
    @Test("Spring closed form matches numeric integration", arguments: [0.3, 0.825, 1.0, 1.6])
    func springClosedForm(zeta: Double) {
        let s = Spring(response: 0.5, dampingFraction: zeta)
        let k = s.stiffness, c = s.damping
        var x = 1.0, v = 0.0
        let dt = 1e-4
        var t = 0.0
        func acc(_ x: Double, _ v: Double) -> Double { -k * x - c * v }
        while t < 1.5 {
            let k1x = v, k1v = acc(x, v)
            let k2x = v + dt / 2 * k1v, k2v = acc(x + dt / 2 * k1x, v + dt / 2 * k1v)
            let k3x = v + dt / 2 * k2v, k3v = acc(x + dt / 2 * k2x, v + dt / 2 * k2v)
            let k4x = v + dt * k3v, k4v = acc(x + dt * k3x, v + dt * k3v)
            x += dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
            v += dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
            t += dt
            if Int((t / dt).rounded()) % 500 == 0 {
                #expect(abs(s.displacement(at: t) - x) < 1e-6)
            }
        }
    }

    @Test("Settling duration: inside 0.001 from then on, outside just before")
    func settling() {
        for s in [
            Spring(), Spring(duration: 0.5, bounce: 0.3), Spring(response: 0.4, dampingFraction: 1),
            Spring(response: 0.5, dampingFraction: 1.5),
        ] {
            let d = s.settlingDuration
            #expect(d > 0.1 && d < 5)
            for i in 0..<2000 { #expect(abs(s.displacement(at: d + Double(i) * 0.002)) < 0.001) }
            #expect(abs(s.displacement(at: d - 0.002)) >= 0.001 || abs(s.displacement(at: d - 0.02)) >= 0.001)
        }
    }

    @Test("Bouncy overshoots, smooth does not")
    func overshoot() {
        let bouncy = (0..<1000).map { Curve.bouncy.progress(elapsed: Double($0) / 500, duration: 3) }.max()!
        let smooth = (0..<1000).map { Curve.smooth.progress(elapsed: Double($0) / 500, duration: 3) }.max()!
        #expect(bouncy > 1.01)
        #expect(smooth <= 1 + 1e-9)
    }
}
