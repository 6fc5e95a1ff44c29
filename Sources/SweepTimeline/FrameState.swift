/// What one frame shows.
public struct FrameState<Look: Interpolatable>: Sendable, Equatable {
    public var position: Double
    public var before: Look
    public var after: Look
    /// In a dissolve, the other end state and how far the fade has gone (0…1).
    public var crossfade: Crossfade?

    public init(position: Double, before: Look, after: Look, crossfade: Crossfade? = nil) {
        self.position = position
        self.before = before
        self.after = after
        self.crossfade = crossfade
    }
}
