import SweepTimeline

/// A sweep as asked: where the split starts and ends, how long one pass is, the holds, the
/// ease and the loop. A ``Comparison`` makes the keyframes when it renders, after its format,
/// so a format's length and the holds asked combine as `sweep render --format F --hold H`
/// combines them, whichever was set first.
///
/// ```swift
/// comparison.timing = SweepTiming(hold: 1.5, curve: .easeOut)
/// comparison.apply(try PresetLibrary.locate().format("story"))  // a 6 s pass, 1.5 s holds
/// ```
public struct SweepTiming: Sendable, Equatable {
    /// Where the split starts (the share 0…1 showing before).
    public var from: Double
    /// Where the split ends.
    public var to: Double
    /// One whole pass in seconds, holds included; nil takes the format's duration, else 4 s.
    public var duration: Double?
    /// The pause at each end, in seconds; at most a quarter of the pass each.
    public var hold: Double
    /// The ease of the sweep between the holds.
    public var curve: Curve
    /// What happens after a pass.
    public var loop: LoopMode

    /// A sweep from `from` to `to`; the defaults are `sweep render`'s.
    public init(
        from: Double = 1, to: Double = 0, duration: Double? = nil, hold: Double = 0.5, curve: Curve = .easeInOut,
        loop: LoopMode = .forever
    ) {
        (self.from, self.to, self.duration, self.hold, self.curve, self.loop) = (from, to, duration, hold, curve, loop)
    }
}
