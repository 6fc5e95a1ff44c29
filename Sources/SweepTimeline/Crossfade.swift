/// A cross-fade towards the split position `position`, `fraction` of the way.
public struct Crossfade: Sendable, Equatable {
    public var position: Double
    public var fraction: Double
    public init(position: Double, fraction: Double) {
        self.position = position
        self.fraction = fraction
    }
}
