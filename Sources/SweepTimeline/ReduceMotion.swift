/// How the animation honours a reduced-motion preference (docs/REFERENCE.md §timeline).
public enum ReduceMotion: String, Sendable, Equatable, CaseIterable {
    /// Full motion.
    case off
    /// Every change applies instantly at the start of its segment, like `withAnimation(nil)`.
    case cut
    /// The handle does not travel: a change of position cross-fades between its end states.
    case dissolve
    /// The output's own choice (``resolved(gif:)``): a cut on a GIF, a dissolve elsewhere.
    /// Where no output is known (a plan), a dissolve.
    case auto

    /// What `auto` means for an output: on a GIF a cut, since a cross-fade between two
    /// pictures changes every pixel in every frame, the GIF format's worst case (several
    /// times the sweep's bytes, where a cut is less); elsewhere a dissolve. Any other
    /// choice stands.
    public func resolved(gif: Bool) -> ReduceMotion {
        self == .auto ? (gif ? .cut : .dissolve) : self
    }
}
