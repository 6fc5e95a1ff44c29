/// What one frame shows.
public struct FrameState<Look: Interpolatable>: Sendable, Equatable {
    /// Split position, 0…1 (the share showing before).
    public var position: Double
    /// The before side's look.
    public var before: Look
    /// The after side's look.
    public var after: Look
    /// In a dissolve, the other end state and how far the fade has gone (0…1).
    public var crossfade: Crossfade?

    /// A frame at `position` with both looks, optionally mid-dissolve.
    public init(position: Double, before: Look, after: Look, crossfade: Crossfade? = nil) {
        self.position = position
        self.before = before
        self.after = after
        self.crossfade = crossfade
    }

    /// Where the frame shows the handle: in a dissolve, at the start until the fade is half
    /// way, then at the end (the overlay is drawn once, whole, as `SliderOverlay`'s
    /// `dissolveLayout` draws it).
    public var handlePosition: Double {
        guard let fade = crossfade else { return position }
        return fade.fraction < 0.5 ? position : fade.position
    }
}
