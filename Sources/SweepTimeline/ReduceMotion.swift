/// How the animation honours a reduced-motion preference (docs/REFERENCE.md §timeline).
public enum ReduceMotion: String, Sendable, Equatable, CaseIterable {
    /// Full motion.
    case off
    /// Every change applies instantly at the start of its segment, like `withAnimation(nil)`.
    case cut
    /// The handle does not travel: a change of position cross-fades between its end states.
    case dissolve
}
