/// How far a render has got, as its progress callback sees it after each frame.
///
/// A render under a size cap (a maximum of bytes) may take several attempts, each a
/// render of its own: ``done`` and ``total`` count the attempt's frames, and ``attempt`` and
/// ``attempts`` say where the fit is.
public struct RenderProgress: Sendable, Equatable {
    /// Frames finished in this attempt.
    public var done: Int
    /// Frames in this attempt.
    public var total: Int
    /// The attempt under way, from 1 (a render without a cap takes one).
    public var attempt: Int
    /// The most attempts the fit can take in all, this one included: an upper bound that
    /// shrinks as the search narrows (1 without a cap).
    public var attempts: Int
    /// What this attempt tries ("quality 64, 20 fps"), or empty for the first.
    public var trying: String

    /// The progress of one attempt of `attempts`.
    public init(done: Int, total: Int, attempt: Int = 1, attempts: Int = 1, trying: String = "") {
        (self.done, self.total, self.attempt, self.attempts, self.trying) = (done, total, attempt, attempts, trying)
    }
}
