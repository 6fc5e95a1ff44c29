/// What would keep a capped render's look: a shorter clip or a smaller size that would fit.
///
/// - A GIF, said before the long work of fitting it, when the cap needs more than quality
///   gives (fewer colours than quality 40 keeps, or a lower frame rate). Estimated from the
///   first attempt (rendered whole, or from a sample for a long render): its bytes at the
///   quality floor follow the size cap's typical curve; a clip's bytes grow about as its
///   length, any animation's about as its side.
/// - A video, when the cap is shown to need a rate factor past where blocks show (x264 CRF
///   28, x265 33, VP9 40, an animated WebP below quality 50): by an attempt there over the
///   cap (said before the rest of the search), or by the fit. Its bytes there are read off
///   the two attempts either side, which reads high, so the end or size named errs small.
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
