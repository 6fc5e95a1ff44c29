/// What would keep a capped GIF's look, said before the long work of fitting it: the cap
/// needs more than quality gives (fewer colours than quality 40 keeps, or a lower frame
/// rate), and a shorter clip or a smaller size would fit with every colour at the full rate.
///
/// Estimated from the first attempt (rendered whole, or from a sample for a long render):
/// its bytes at the quality floor follow the size cap's typical curve;
/// a clip's bytes grow about as its length, any animation's about as its side.
public struct CapAdvice: Sendable, Equatable, Codable {
    /// One line, e.g. "fitting under 10 MB takes fewer colours or frames than quality 40
    /// keeps (about 21.4 MB at 20 fps with every colour); ending at 19.5 s or making it 368x208
    /// would keep them".
    public var message: String
    /// Where a clip could end (seconds on its timeline) to fit; nil for pictures, whose
    /// sweep changes each pixel once however long it takes.
    public var end: Double?
    /// A size that would fit.
    public var width: Int
    public var height: Int
}
