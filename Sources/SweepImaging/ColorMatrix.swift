/// A 3×4 affine colour map on channels in 0…1: `out = m·in + offset`.
public struct ColorMatrix: Sendable, Equatable {
    /// Row-major 3×3 coefficients.
    public var m: [Double]
    /// The constant term per channel, in 0…1 units.
    public var offset: [Double]

    /// A map from nine row-major coefficients and three offsets.
    public init(m: [Double], offset: [Double]) {
        precondition(m.count == 9 && offset.count == 3)
        self.m = m
        self.offset = offset
    }

    /// `self ∘ first`: apply `first`, then `self`.
    public func after(_ first: ColorMatrix) -> ColorMatrix {
        var r = [Double](repeating: 0, count: 9)
        var o = [Double](repeating: 0, count: 3)
        for i in 0..<3 {
            for j in 0..<3 {
                r[i * 3 + j] = m[i * 3] * first.m[j] + m[i * 3 + 1] * first.m[3 + j] + m[i * 3 + 2] * first.m[6 + j]
            }
            o[i] = m[i * 3] * first.offset[0] + m[i * 3 + 1] * first.offset[1] + m[i * 3 + 2] * first.offset[2] + offset[i]
        }
        return ColorMatrix(m: r, offset: o)
    }

    /// Maps one colour in 0…1 floats (no clamping): the float reference.
    public func map(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
        (
            m[0] * r + m[1] * g + m[2] * b + offset[0],
            m[3] * r + m[4] * g + m[5] * b + offset[1],
            m[6] * r + m[7] * g + m[8] * b + offset[2]
        )
    }

    /// The map in 16-bit fixed point, ready for pixel loops.
    package var fixed: FixedColorMatrix { FixedColorMatrix(self) }

    /// Applies the map to 8-bit pixels in place, clamped once, across the cores.
    public func apply(to image: inout RGBAImage) {
        let f = fixed
        let count = image.width * image.height
        image.pixels.withUnsafeMutableBufferPointer { p in
            let base = UnsafeSendablePointer(p.baseAddress!)
            let chunk = 16384
            parallelRows((count + chunk - 1) / chunk, minimumRowsPerBand: 1) { range in
                let lo = range.lowerBound * chunk, hi = min(count, range.upperBound * chunk)
                f.apply(UnsafePointer(base.base + lo * 4), base.base + lo * 4, count: hi - lo)
            }
        }
    }
}
