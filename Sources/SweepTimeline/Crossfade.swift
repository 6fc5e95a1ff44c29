/// A cross-fade towards the split position `position`, `fraction` of the way.
public struct Crossfade: Sendable, Equatable {
    /// The split position being faded in.
    public var position: Double
    /// How far the fade has gone, 0…1.
    public var fraction: Double
    /// A cross-fade `fraction` of the way towards `position`.
    public init(position: Double, fraction: Double) {
        self.position = position
        self.fraction = fraction
    }
}
