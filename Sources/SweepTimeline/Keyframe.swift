/// A value reached at a time, and the curve that leads to it from the previous keyframe.
public struct Keyframe<Value: Interpolatable>: Sendable, Equatable {
    /// Seconds from the start of the timeline.
    public var time: Double
    /// The value reached at `time`.
    public var value: Value
    /// How the segment that ends here travels (ignored on the first keyframe).
    public var curve: Curve

    /// A keyframe reached at `time` seconds with `value`, travelling there by `curve`.
    public init(time: Double, value: Value, curve: Curve = .easeInOut) {
        self.time = time
        self.value = value
        self.curve = curve
    }
}
