/// How an input image is brought to the output size.
public enum FitMode: String, Sendable, CaseIterable, Codable {
    /// Cover the output, centre-cropping the overflow (the default).
    case fill
    /// Contain the whole image, letterboxed with the background colour.
    case fit
    /// Scale each axis independently to the output size.
    case stretch
}
