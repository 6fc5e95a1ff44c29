/// A value a track can ease: it interpolates linearly per field (springs may extrapolate).
public protocol Interpolatable: Sendable, Equatable {
    func interpolated(to other: Self, _ fraction: Double) -> Self
}

extension Double: Interpolatable {
    public func interpolated(to other: Double, _ fraction: Double) -> Double { self + (other - self) * fraction }
}
