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

    /// The map in 16-bit fixed point, ready for pixel loops.
    public var fixed: FixedColorMatrix { FixedColorMatrix(self) }

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

/// A ``ColorMatrix`` in 16-bit fixed point (64-bit sums, so no value can overflow), with
/// round-to-nearest folded into the offsets.
public struct FixedColorMatrix: Sendable {
    let k0, k1, k2, k3, k4, k5, k6, k7, k8, o0, o1, o2: Int
    static let shift = 16

    public init(_ m: ColorMatrix) {
        let one = Double(1 << Self.shift)
        let k = m.m.map { Int(($0 * one).rounded()) }
        let o = m.offset.map { Int(($0 * 255 * one).rounded()) + (1 << (Self.shift - 1)) }
        (k0, k1, k2, k3, k4, k5, k6, k7, k8) = (k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8])
        (o0, o1, o2) = (o[0], o[1], o[2])
    }

    /// Maps `count` RGBA pixels from `src` to `dst` (which may be the same); alpha is copied.
    @inline(__always)
    public func apply(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, count: Int) {
        var s = src, d = dst
        for _ in 0..<count {
            let r = Int(s[0]), g = Int(s[1]), b = Int(s[2])
            let nr = (k0 &* r &+ k1 &* g &+ k2 &* b &+ o0) >> 16
            let ng = (k3 &* r &+ k4 &* g &+ k5 &* b &+ o1) >> 16
            let nb = (k6 &* r &+ k7 &* g &+ k8 &* b &+ o2) >> 16
            d[0] = UInt8(clamping: nr); d[1] = UInt8(clamping: ng); d[2] = UInt8(clamping: nb); d[3] = s[3]
            s += 4; d += 4
        }
    }
}
