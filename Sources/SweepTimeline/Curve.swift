import Foundation

/// How a value travels to a keyframe: SwiftUI's curves and springs, exactly (docs/REFERENCE.md §timeline).
public enum Curve: Sendable, Equatable, Hashable {
    /// Stay at the previous value, then jump when the keyframe is reached.
    case hold
    /// A cubic Bézier timing curve from (0,0) to (1,1) with control points (c0x,c0y), (c1x,c1y).
    case timingCurve(Double, Double, Double, Double)
    /// A damped spring; see ``Spring``. In a segment, its time is scaled so that it settles
    /// (within 0.001) at the segment's end: a 9 s sweep moves for 9 s, not for 0.3 s.
    case spring(Spring)

    /// SwiftUI `.linear`: (0, 0, 1, 1).
    public static let linear = Curve.timingCurve(0, 0, 1, 1)
    /// SwiftUI `.easeIn`: (0.42, 0, 1, 1).
    public static let easeIn = Curve.timingCurve(0.42, 0, 1, 1)
    /// SwiftUI `.easeOut`: (0, 0, 0.58, 1).
    public static let easeOut = Curve.timingCurve(0, 0, 0.58, 1)
    /// SwiftUI `.easeInOut`: (0.42, 0, 0.58, 1).
    public static let easeInOut = Curve.timingCurve(0.42, 0, 0.58, 1)
    /// SwiftUI's `.smooth`, `.snappy` and `.bouncy`: duration 0.5 s, bounce 0, 0.15, 0.3.
    public static let smooth = Curve.spring(Spring(duration: 0.5, bounce: 0))
    /// SwiftUI `.snappy`: duration 0.5 s, bounce 0.15.
    public static let snappy = Curve.spring(Spring(duration: 0.5, bounce: 0.15))
    /// SwiftUI `.bouncy`: duration 0.5 s, bounce 0.3.
    public static let bouncy = Curve.spring(Spring(duration: 0.5, bounce: 0.3))

    /// SwiftUI's default animation length for timing curves.
    public static let defaultDuration = 0.35

    /// Progress (0 at the start, 1 at the end; springs may overshoot) after `elapsed`
    /// seconds of a segment that lasts `duration` seconds.
    public func progress(elapsed: Double, duration: Double) -> Double {
        if elapsed >= duration { return 1 }
        if elapsed <= 0 { return 0 }
        switch self {
        case .hold:
            return 0
        case let .timingCurve(x1, y1, x2, y2):
            return UnitBezier(x1, y1, x2, y2).value(at: elapsed / duration)
        case let .spring(s):
            // An undamped spring never settles: it keeps its own time.
            let scale = s.settling > 0 && s.settling.isFinite ? s.settling / duration : 1
            return s.progress(at: elapsed * scale)
        }
    }

    /// Every curve that has a name, for parsing and suggestions.
    public static let named: [String: Curve] = [
        "hold": .hold, "linear": .linear, "easeIn": .easeIn, "easeOut": .easeOut, "easeInOut": .easeInOut,
        "ease-in": .easeIn, "ease-out": .easeOut, "ease-in-out": .easeInOut,
        "smooth": .smooth, "snappy": .snappy, "bouncy": .bouncy, "spring": .spring(Spring()),
    ]
}

/// A cubic Bézier from (0,0) to (1,1), solved for x → t to 1e-7 (Newton, then bisection).
package struct UnitBezier: Sendable {
    let cx, bx, ax, cy, by, ay: Double

    /// The curve with control points (x1, y1) and (x2, y2).
    package init(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        cx = 3 * x1; bx = 3 * (x2 - x1) - cx; ax = 1 - cx - bx
        cy = 3 * y1; by = 3 * (y2 - y1) - cy; ay = 1 - cy - by
    }

    func sampleX(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }
    func sampleY(_ t: Double) -> Double { ((ay * t + by) * t + cy) * t }
    func slopeX(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }

    /// The curve's parameter t at which its x equals `x`.
    package func solve(_ x: Double, epsilon: Double = 1e-7) -> Double {
        var t = x
        for _ in 0..<8 {
            let err = sampleX(t) - x
            if abs(err) < epsilon { return t }
            let d = slopeX(t)
            if abs(d) < 1e-6 { break }
            t -= err / d
        }
        var lo = 0.0, hi = 1.0
        t = x
        if t < lo { return lo }
        if t > hi { return hi }
        while lo < hi {
            let v = sampleX(t)
            if abs(v - x) < epsilon { return t }
            if x > v { lo = t } else { hi = t }
            t = (hi - lo) / 2 + lo
            if hi - lo < 1e-12 { break }
        }
        return t
    }

    /// y for a given x in 0…1.
    package func value(at x: Double) -> Double { sampleY(solve(max(0, min(1, x)))) }
}
