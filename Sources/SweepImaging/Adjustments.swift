import Foundation

/// Photo adjustments of one side, as in the seed: brightness, contrast, saturation, hue.
///
/// Applied in the order saturation, contrast, brightness, hue rotation, on gamma-encoded
/// sRGB with channels in 0…1 (DESIGN §4). The four compose into one ``ColorMatrix``.
public struct Adjustments: Sendable, Equatable, Hashable, Codable {
    /// Additive brightness, `C' = C + b`. Default 0.
    public var brightness: Double
    /// Contrast around mid-grey, `C' = (C − 0.5)·c + 0.5`. Default 1.
    public var contrast: Double
    /// W3C `saturate` amount. Default 1; 0 is greyscale.
    public var saturation: Double
    /// W3C `hue-rotate` angle in degrees. Default 0.
    public var hue: Double

    public init(brightness: Double = 0, contrast: Double = 1, saturation: Double = 1, hue: Double = 0) {
        self.brightness = brightness
        self.contrast = contrast
        self.saturation = saturation
        self.hue = hue
    }

    /// No change.
    public static let identity = Adjustments()
    /// The seed's "Vivid" look.
    public static let vivid = Adjustments(brightness: 0.05, contrast: 1.2, saturation: 1.7)
    /// The seed's "Noir" look.
    public static let noir = Adjustments(brightness: -0.05, contrast: 1.35, saturation: 0)
    /// The seed's "Dream" look.
    public static let dream = Adjustments(brightness: 0.1, contrast: 0.85, saturation: 1.2, hue: 60)

    /// True when applying these changes nothing.
    public var isIdentity: Bool { self == .identity }

    /// Linear interpolation per field (hue linearly in degrees, no wrapping).
    public func interpolated(to other: Adjustments, _ f: Double) -> Adjustments {
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * f }
        return Adjustments(brightness: mix(brightness, other.brightness), contrast: mix(contrast, other.contrast),
                           saturation: mix(saturation, other.saturation), hue: mix(hue, other.hue))
    }

    /// The composed affine map: hue ∘ brightness ∘ contrast ∘ saturation.
    public var matrix: ColorMatrix {
        let s = saturation
        let sat = ColorMatrix(m: [0.213 + 0.787 * s, 0.715 - 0.715 * s, 0.072 - 0.072 * s,
                                  0.213 - 0.213 * s, 0.715 + 0.285 * s, 0.072 - 0.072 * s,
                                  0.213 - 0.213 * s, 0.715 - 0.715 * s, 0.072 + 0.928 * s],
                              offset: [0, 0, 0])
        let c = contrast
        let con = ColorMatrix(m: [c, 0, 0, 0, c, 0, 0, 0, c], offset: [0.5 - 0.5 * c, 0.5 - 0.5 * c, 0.5 - 0.5 * c])
        let bri = ColorMatrix(m: [1, 0, 0, 0, 1, 0, 0, 0, 1], offset: [brightness, brightness, brightness])
        let th = hue * Double.pi / 180
        let a = cos(th), b = sin(th)
        let rot = ColorMatrix(m: [0.213 + 0.787 * a - 0.213 * b, 0.715 - 0.715 * a - 0.715 * b, 0.072 - 0.072 * a + 0.928 * b,
                                  0.213 - 0.213 * a + 0.143 * b, 0.715 + 0.285 * a + 0.140 * b, 0.072 - 0.072 * a - 0.283 * b,
                                  0.213 - 0.213 * a - 0.787 * b, 0.715 - 0.715 * a + 0.715 * b, 0.072 + 0.928 * a + 0.072 * b],
                              offset: [0, 0, 0])
        return rot.after(bri.after(con.after(sat)))
    }

    /// Applies the adjustments to every pixel; alpha is kept. Identity returns the input.
    public func apply(to image: RGBAImage) -> RGBAImage {
        if isIdentity { return image }
        var out = image
        matrix.apply(to: &out)
        return out
    }
}

/// A 3×4 affine colour map on channels in 0…1: `out = m·in + offset`.
public struct ColorMatrix: Sendable, Equatable {
    /// Row-major 3×3 coefficients.
    public var m: [Double]
    /// The constant term per channel, in 0…1 units.
    public var offset: [Double]

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
        (m[0] * r + m[1] * g + m[2] * b + offset[0],
         m[3] * r + m[4] * g + m[5] * b + offset[1],
         m[6] * r + m[7] * g + m[8] * b + offset[2])
    }

    /// Applies the map to 8-bit pixels in place, in 16-bit fixed point (64-bit sums, so no value can overflow), clamped once.
    public func apply(to image: inout RGBAImage) {
        let shift = 16
        let one = Double(1 << shift)
        let k = m.map { Int(($0 * one).rounded()) }
        // Offsets are in 0…1; in 8-bit units that is ×255. The half adds round-to-nearest.
        let o = offset.map { Int(($0 * 255 * one).rounded()) + (1 << (shift - 1)) }
        let count = image.width * image.height
        image.pixels.withUnsafeMutableBufferPointer { p in
            let base = UnsafeSendablePointer(p.baseAddress!)
            let rowsPerBand = 4096
            let bands = (count + rowsPerBand - 1) / rowsPerBand
            parallelRows(bands, minimumRowsPerBand: 1) { range in
                let k0 = k[0], k1 = k[1], k2 = k[2], k3 = k[3], k4 = k[4], k5 = k[5], k6 = k[6], k7 = k[7], k8 = k[8]
                let o0 = o[0], o1 = o[1], o2 = o[2]
                let lo = range.lowerBound * rowsPerBand, hi = min(count, range.upperBound * rowsPerBand)
                var q = base.base + lo * 4
                for _ in lo..<hi {
                    let r = Int(q[0]), g = Int(q[1]), b = Int(q[2])
                    let nr = (k0 &* r &+ k1 &* g &+ k2 &* b &+ o0) >> shift
                    let ng = (k3 &* r &+ k4 &* g &+ k5 &* b &+ o1) >> shift
                    let nb = (k6 &* r &+ k7 &* g &+ k8 &* b &+ o2) >> shift
                    q[0] = UInt8(clamping: nr); q[1] = UInt8(clamping: ng); q[2] = UInt8(clamping: nb)
                    q += 4
                }
            }
        }
    }
}
