import Foundation

/// Photo adjustments of one side, as in the seed: brightness, contrast, saturation, hue.
///
/// Applied in the order saturation, contrast, brightness, hue rotation, on gamma-encoded
/// sRGB with channels in 0…1 (docs/REFERENCE.md §colour). The four compose into one colour matrix.
public struct Adjustments: Sendable, Equatable, Hashable, Codable {
    /// Additive brightness, `C' = C + b`. Default 0.
    public var brightness: Double
    /// Contrast around mid-grey, `C' = (C − 0.5)·c + 0.5`. Default 1.
    public var contrast: Double
    /// W3C `saturate` amount. Default 1; 0 is greyscale.
    public var saturation: Double
    /// W3C `hue-rotate` angle in degrees. Default 0.
    public var hue: Double

    /// Adjustments; the defaults change nothing.
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
        return Adjustments(
            brightness: mix(brightness, other.brightness), contrast: mix(contrast, other.contrast),
            saturation: mix(saturation, other.saturation), hue: mix(hue, other.hue))
    }

    /// The composed affine map: hue ∘ brightness ∘ contrast ∘ saturation.
    public var matrix: ColorMatrix {
        let s = saturation
        let sat = ColorMatrix(
            m: [
                0.213 + 0.787 * s, 0.715 - 0.715 * s, 0.072 - 0.072 * s,
                0.213 - 0.213 * s, 0.715 + 0.285 * s, 0.072 - 0.072 * s,
                0.213 - 0.213 * s, 0.715 - 0.715 * s, 0.072 + 0.928 * s,
            ],
            offset: [0, 0, 0])
        let c = contrast
        let con = ColorMatrix(m: [c, 0, 0, 0, c, 0, 0, 0, c], offset: [0.5 - 0.5 * c, 0.5 - 0.5 * c, 0.5 - 0.5 * c])
        let bri = ColorMatrix(m: [1, 0, 0, 0, 1, 0, 0, 0, 1], offset: [brightness, brightness, brightness])
        let th = hue * Double.pi / 180
        let a = cos(th), b = sin(th)
        let rot = ColorMatrix(
            m: [
                0.213 + 0.787 * a - 0.213 * b, 0.715 - 0.715 * a - 0.715 * b, 0.072 - 0.072 * a + 0.928 * b,
                0.213 - 0.213 * a + 0.143 * b, 0.715 + 0.285 * a + 0.140 * b, 0.072 - 0.072 * a - 0.283 * b,
                0.213 - 0.213 * a - 0.787 * b, 0.715 - 0.715 * a + 0.715 * b, 0.072 + 0.928 * a + 0.072 * b,
            ],
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
