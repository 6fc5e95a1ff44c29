/// Log2 of a GIF's bytes against a knob (quality, a lossy budget), piecewise linear through
/// measured knots and flat past its ends, with its inverse: what a size cap's searches read
/// their guesses off (``QualityCurve``, ``SizeCap/typicalLossyCurve``).
struct LogBytesCurve: Sendable, Equatable {
    /// The knob's values, rising.
    let x: [Double]
    /// Log2 bytes at each, monotone (rising with quality, falling with a lossy budget).
    let y: [Double]

    init(x: [Double], y: [Double]) {
        precondition(x.count == y.count && x.count >= 2, "a curve has two knots or more, a value at each")
        precondition(zip(x, x.dropFirst()).allSatisfy { $0 < $1 }, "the knots rise")
        precondition(
            zip(y, y.dropFirst()).allSatisfy { $0 <= $1 } || zip(y, y.dropFirst()).allSatisfy { $0 >= $1 },
            "log2 bytes are monotone along the knob")
        (self.x, self.y) = (x, y)
    }

    /// Log2 bytes at `v` (interpolated; a knot's own value there, flat past the ends).
    func at(_ v: Double) -> Double {
        if v <= x[0] { return y[0] }
        for i in 0..<(x.count - 1) where v <= x[i + 1] {
            if v == x[i + 1] { return y[i + 1] }
            let t = (v - x[i]) / (x[i + 1] - x[i])
            return y[i] + t * (y[i + 1] - y[i])
        }
        return y[y.count - 1]
    }

    /// Where along the knob the curve first reaches `value` (interpolated): the first knot
    /// before the curve starts there, the last past where it ends.
    func knob(reaching value: Double) -> Double {
        let rising = y[y.count - 1] >= y[0]
        if rising ? value <= y[0] : value >= y[0] { return x[0] }
        for i in 0..<(x.count - 1) where rising ? value <= y[i + 1] : value >= y[i + 1] {
            let rise = y[i + 1] - y[i]
            return x[i] + (rise == 0 ? 0 : (value - y[i]) / rise) * (x[i + 1] - x[i])
        }
        return x[x.count - 1]
    }
}
