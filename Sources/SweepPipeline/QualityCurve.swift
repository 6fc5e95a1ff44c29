/// Log2 of a GIF's bytes at quality 40, 45, …, 100 against its bytes at 90: what a size cap's
/// quality search reads its guesses off (``SizeCap/nextQuality(lo:hi:previous:tried:top:target:fallback:curve:)``).
///
/// ``typical`` is a photo wipe's. A picture whose first attempt was recorded
/// (``QuantizedFrames``) gets its own (``init(texture:held:smooth:coverage:)``): bytes fall
/// with quality about twice as fast in a dissolve as in a sweep, and a screenshot's little
/// until its palette halves below 60, so a first guess off one curve cost two to four renders
/// more (docs/decisions/size-cap.md, "A curve for the picture").
struct QualityCurve: Sendable, Equatable {
    /// Through ``points``, at 40, 45, …, 100.
    private let curve: LogBytesCurve
    /// At 40, 45, …, 100, rising, 0 at 90.
    var points: [Double] { curve.y }

    /// The median of four photo pairs' wipes (720², the default look). Bytes fall fast from 90
    /// to 75 and slowly below 60, which no one slope follows (a slope fitted from 90 to 40 put
    /// the first guess for three quarters of the bytes near 70, where 80 fits). A flatter
    /// curve (a screenshot's) is bracketed by the attempts that follow.
    static let typical = QualityCurve(points: [
        -1.16, -1.12, -1.08, -1.04, -0.99, -0.925, -0.835, -0.70, -0.465, -0.27, 0, 0.155, 0.445,
    ])

    /// Per quality 40, 45, …, 85, the log2 bytes against 90 that each feature of a recorded
    /// first attempt adds, fitted by least squares (`python3 Benchmarks/qualitycurves.py`) on
    /// 25 pairs (photos clean and noisy, a sky, smooth photos, posterized photos, gradients,
    /// screenshots, charts, pixel art) at 800 px, 4 s, the default look: `wipe` on their
    /// sweeps, `dissolve` on their dissolves.
    static let fitted: (wipe: Features, dissolve: Features) = (
        wipe: Features(
            texture: [-2.130, -2.099, -2.059, -2.016, -1.934, -1.777, -1.544, -1.157, -0.798, -0.425],
            held: [-0.107, -0.039, 0.022, 0.119, 0.161, 0.145, 0.128, 0.097, 0.058, 0.017],
            smooth: [-0.908, -0.863, -0.817, -0.776, -0.725, -0.675, -0.661, -0.574, -0.440, -0.235]),
        dissolve: Features(
            texture: [-3.119, -3.012, -2.902, -2.779, -2.607, -2.379, -1.985, -1.586, -1.073, -0.574],
            held: [-0.763, -0.564, -0.440, -0.145, -0.018, -0.040, -0.066, -0.082, -0.075, -0.045],
            smooth: [-1.817, -1.640, -1.482, -1.361, -1.215, -1.080, -0.926, -0.722, -0.540, -0.327])
    )

    /// One set of fitted rows (``fitted``), each at quality 40, 45, …, 85.
    struct Features: Sendable {
        let texture: [Double]
        let held: [Double]
        let smooth: [Double]
    }

    /// The coverage (``QuantizedFrames/coverage``) up to which a picture's curve is the
    /// sweeps', and from which it is the dissolves', blended between. The pairs' 4 s sweeps
    /// measure 0.021–0.032, their dissolves 0.18–0.91. A short sweep's bands are wider and its
    /// bytes fall between the two (1.5 s at 10 fps: 0.11–0.12; 2 s at 5 fps: 0.17): on six
    /// pairs so and as short dissolves, never fitted, this range takes the search from 3.06
    /// renders with the typical curve to 2.09, where 0.035…0.05 gives 2.13.
    static let sweepToDissolve = 0.03...0.18

    /// A curve through `points`, 40, 45, …, 100.
    init(points: [Double]) {
        precondition(points.count == 13, "a quality curve has a point every 5 from 40 to 100")
        curve = LogBytesCurve(x: Array(stride(from: 40.0, through: 100, by: 5)), y: points)
    }

    /// The curve a recorded first attempt's pixels say: its mean `texture`, the shares of its
    /// changed pixels `held` (no lossy budget: flat colour the palette holds, the overlay) and
    /// `smooth` (no texture to mask an error: gradients, edges), and its `coverage` (the
    /// changed pixels over the frames' whole pictures), all 0…1. Made rising (each point at
    /// least 0.005 under the next), with the typical curve's steps above 90.
    init(texture: Double, held: Double, smooth: Double, coverage: Double) {
        let (t, h, s) = (Self.unit(texture), Self.unit(held), Self.unit(smooth))
        let range = Self.sweepToDissolve
        let w = Self.unit((coverage - range.lowerBound) / (range.upperBound - range.lowerBound))
        func row(_ f: Features, _ i: Int) -> Double { t * f.texture[i] + h * f.held[i] + s * f.smooth[i] }
        var p = (0..<10).map { (1 - w) * row(Self.fitted.wipe, $0) + w * row(Self.fitted.dissolve, $0) }
        p.append(0)
        for i in stride(from: 9, through: 0, by: -1) { p[i] = min(p[i], p[i + 1] - 0.005) }
        self.init(points: p + Array(Self.typical.points[11...]))
    }

    /// `x` clamped to 0…1, 0 when it is not finite.
    private static func unit(_ x: Double) -> Double { x.isFinite ? min(max(x, 0), 1) : 0 }

    /// The curve at quality `q` (interpolated; flat outside 40…100).
    func at(_ q: Int) -> Double { curve.at(Double(q)) }

    /// The quality whose bytes the curve, steepened by `scale`, puts `log2Ratio` (log2 of the
    /// bytes wanted over those made) away from quality `q`'s; 40 or 100 past its ends.
    func quality(from q: Int, log2Ratio: Double, scale: Double = 1) -> Double {
        guard scale > 0.05 else { return log2Ratio < 0 ? 40 : 100 }  // flat: nothing to read off
        return curve.knob(reaching: at(q) + log2Ratio / scale)
    }
}
