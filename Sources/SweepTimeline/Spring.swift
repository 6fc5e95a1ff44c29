import Foundation

/// A damped harmonic spring with mass 1, as SwiftUI defines it (docs/REFERENCE.md §timeline).
///
/// Evaluated in closed form for the under-, critically and over-damped cases; it starts at
/// rest at 0 and settles at 1.
public struct Spring: Sendable, Equatable, Hashable {
    /// Undamped angular frequency ω₀ = 2π / response.
    public let omega: Double
    /// Damping ratio ζ.
    public let zeta: Double
    /// ``settlingDuration``, worked out once: a segment's every frame scales time by it.
    public private(set) var settling: Double

    /// `spring(response:dampingFraction:)`; the defaults are SwiftUI's.
    public init(response: Double = 0.5, dampingFraction: Double = 0.825) {
        self.init(omega: 2 * Double.pi / max(response, 1e-6), zeta: max(0, dampingFraction))
    }

    /// `spring(duration:bounce:)`: ζ = 1 − bounce (bounce ≥ 0) or 1 / (1 + bounce).
    public init(duration: Double, bounce: Double) {
        self.init(omega: 2 * Double.pi / max(duration, 1e-6), zeta: bounce >= 0 ? 1 - bounce : 1 / (1 + bounce))
    }

    private init(omega: Double, zeta: Double) {
        self.omega = omega
        self.zeta = zeta
        settling = 0
        settling = settlingDuration(epsilon: 0.001)
    }

    /// Stiffness k = ω₀².
    public var stiffness: Double { omega * omega }
    /// Damping c = 2ζω₀ (= 4πζ / response).
    public var damping: Double { 2 * zeta * omega }

    /// Displacement from the target at time `t`, starting at 1 with zero velocity.
    public func displacement(at t: Double) -> Double {
        if t <= 0 { return 1 }
        if abs(zeta - 1) < 1e-9 {
            return exp(-omega * t) * (1 + omega * t)
        } else if zeta < 1 {
            let wd = omega * (1 - zeta * zeta).squareRoot()
            return exp(-zeta * omega * t) * (cos(wd * t) + zeta * omega / wd * sin(wd * t))
        } else {
            let s = (zeta * zeta - 1).squareRoot()
            let r1 = -omega * (zeta - s), r2 = -omega * (zeta + s)
            return (r2 * exp(r1 * t) - r1 * exp(r2 * t)) / (r2 - r1)
        }
    }

    /// Progress towards the target at time `t` (may exceed 1 when it bounces).
    public func progress(at t: Double) -> Double { 1 - displacement(at: t) }

    /// The time after which the spring stays within `epsilon` (0.001) of its target.
    public var settlingDuration: Double { settling }

    /// The time after which the spring stays within `epsilon` of its target.
    public func settlingDuration(epsilon: Double) -> Double {
        // Scan back from a time at which even the envelope is inside the band.
        let decay = zeta < 1 ? zeta * omega : omega * (zeta - (max(0, zeta * zeta - 1)).squareRoot())
        guard decay > 0 else { return .infinity }
        var amplitude = 1.0
        if zeta < 1 {
            let wd = omega * (1 - zeta * zeta).squareRoot()
            amplitude = (1 + pow(zeta * omega / wd, 2)).squareRoot()
        } else {
            amplitude = 2 + omega * 10  // generous bound for critical/over-damped tails
        }
        var t = log(amplitude / epsilon) / decay + 0.01
        let step = 0.0005
        while t > 0 && abs(displacement(at: t)) < epsilon { t -= step }
        return max(0, t + step)
    }
}
