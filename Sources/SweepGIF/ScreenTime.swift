/// How long the pixels a frame writes stay on screen, line by line, so that the lossy coder
/// spends its error where it is seen least: a pixel a wipe covers a moment later may stray
/// further than one that stays for the whole loop.
///
/// Every frame counts the same for a viewer (and for S-CIELAB and SSIM averaged over frames),
/// so a pixel's error weighs as long as it stays. Error against bytes then balances when a
/// pixel's budget (a distance) grows as the square root of how much shorter than typical
/// it stays, the rule video coders use for references (x264's macroblock tree):
/// `scale = sqrt(typical / stay)`, clamped to ``scaleRange``. Relative to the animation's
/// typical stay (a geometric mean), a file keeps about its bytes at a given quality and
/// gains quality for them; where everything stays alike (looks changing every frame), the
/// scale is 1 everywhere. Texture takes the scale both ways; a smooth area (a gradient, an
/// edge) only ever tightens, since there a stray colour shows as a streak, however briefly
/// (on the smooth gradient pair, loosening it too cost SSIM for its bytes), and so does a
/// pixel where both sides agree, which the split passing never changes.
package struct ScreenTime: Sendable, Equatable {
    /// The lines stays are given for.
    package enum Axis: Sendable, Equatable {
        /// Per column: the split moves sideways.
        case columns
        /// Per row: the split moves up or down.
        case rows
    }

    /// Whether the stays are per column or per row.
    package let axis: Axis
    /// Per line: the factor on the lossy budget (a distance) of a pixel written there.
    private let budgetScale: [Float]
    /// Per pixel (row by row, `width` wide): whether it stays whatever the lines do, so it is
    /// never loosened; nil for none.
    private let shared: [Bool]?
    private let width: Int

    /// The range of budget factors: a pixel seen a ninth as long as typical, or less, gets
    /// three times the budget; one seen four times as long, or more, half of it. Beyond, the
    /// pixel is already as loose (or as exact) as its time on screen is worth.
    package static let scaleRange: ClosedRange<Float> = 0.5...3

    /// The stays (seconds) of the pixels written on each line, against the animation's
    /// typical stay; a line whose stay is not positive keeps the budget as it is. `shared`
    /// marks, per pixel of a `width`-wide frame, those that are never loosened.
    package init(axis: Axis, stays: [Double], typical: Double, shared: [Bool]? = nil, width: Int = 0) {
        precondition(shared.map { width > 0 && $0.count % width == 0 } ?? true, "the shared mask is not whole rows")
        self.axis = axis
        self.shared = shared
        self.width = width
        budgetScale = stays.map { stay in
            guard stay > 0, typical > 0 else { return 1 }
            let scale = Float((typical / stay).squareRoot())
            return min(Self.scaleRange.upperBound, max(Self.scaleRange.lowerBound, scale))
        }
    }

    /// How many lines the stays were given for.
    var lineCount: Int { budgetScale.count }

    /// The budget factor at pixel (`x`, `y`); 1 off the lines given, at most 1 on a shared pixel.
    @inline(__always)
    package func scale(x: Int, y: Int) -> Float {
        let line = axis == .columns ? x : y
        let scale = line < budgetScale.count ? budgetScale[line] : 1
        if let shared, y * width + x < shared.count, shared[y * width + x] { return min(1, scale) }
        return scale
    }
}
