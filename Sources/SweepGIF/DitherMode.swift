/// How colours between palette entries are rendered.
package enum DitherMode: String, Sendable, CaseIterable {
    /// Nearest entry only.
    case none
    /// An 8×8 Bayer matrix: position-fixed, so it can never crawl.
    case ordered
    /// Floyd–Steinberg error diffusion (serpentine), restricted to pixels whose source
    /// changed, so unchanged pixels keep their index.
    case diffusion
}
