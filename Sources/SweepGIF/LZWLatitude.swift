/// What the LZW coder may write instead of each pixel's own index (lossy LZW).
///
/// While the coder extends a dictionary string and the exact next symbol has no entry, it
/// may take an entry whose colour is within the pixel's budget of the colour the pixel
/// should show, so strings grow longer and codes fewer (the giflossy idea, gifsicle ≥ 1.92).
/// Colours are compared in OkLab, so the budget means the same visible error everywhere.
/// A budget of 0 still allows another symbol that shows exactly the same colour (the
/// transparent index over an unchanged pixel, or an opaque index of the colour already on
/// screen), which costs nothing in quality.
struct LZWLatitude {
    /// The OkLab colour each symbol shows (l, a, b, 0); NaN for a symbol that may never
    /// stand in for another (the transparent index when it means "nothing").
    var symbolColors: [SIMD4<Float>]
    /// The symbol that shows whatever is already on screen (`behind`), if the block has one.
    var transparent: Int?
    /// Per pixel: the colour it should show (OkLab).
    var target: [SIMD4<Float>]
    /// Per pixel: the colour already on screen under it (OkLab), NaN when nothing is.
    var behind: [SIMD4<Float>]
    /// Per pixel: the largest squared OkLab distance to `target` allowed; 0 allows only the
    /// same colour; negative pins the pixel to its own symbol.
    var budget: [Float]

    /// Whether any pixel may take another symbol than its own: one has a budget above zero,
    /// or the transparent symbol shows something somewhere. Otherwise (palette colours being
    /// distinct) only a pixel's own symbol fits anywhere, and the coder may code exactly.
    var allowsSubstitutes: Bool {
        budget.contains { $0 > 0 } || (transparent != nil && behind.contains { !$0.x.isNaN })
    }

    /// OkLab of an sRGB colour as a SIMD value (w = 0).
    static func lab(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> SIMD4<Float> {
        let c = OkLab(r: Float(r), g: Float(g), b: Float(b))
        return SIMD4(c.l, c.a, c.b, 0)
    }

    /// Stands for "no colour" (NaN compares false with everything, so it never fits a budget).
    static let none = SIMD4<Float>(repeating: .nan)
}
