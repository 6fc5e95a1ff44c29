/// How an animation repeats.
public enum LoopMode: Sendable, Equatable, Hashable {
    /// Play once and stop on the last frame.
    case once
    /// Play `n` times in all.
    case count(Int)
    /// Repeat forever (GIF loop 0, WebP/APNG loop 0).
    case forever
    /// Forward, then backward, repeating forever.
    case boomerang

    /// How many times the player plays the frames: `nil` for forever.
    public var plays: Int? {
        switch self {
        case .once: 1
        case let .count(n): n
        case .forever, .boomerang: nil
        }
    }
}
