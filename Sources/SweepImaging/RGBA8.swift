/// One 8-bit RGBA colour.
public struct RGBA8: Sendable, Equatable, Hashable {
    /// Red, green, blue (gamma-encoded sRGB) and alpha, 0…255.
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8
    /// A colour from 8-bit channels; opaque by default.
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }
    /// A colour from unit floats (clamped, rounded to nearest).
    public init(unit r: Double, _ g: Double, _ b: Double, alpha: Double = 1) {
        func q(_ v: Double) -> UInt8 { UInt8(max(0, min(255, (v * 255).rounded()))) }
        self.init(r: q(r), g: q(g), b: q(b), a: q(alpha))
    }
    /// Opaque white.
    public static let white = RGBA8(r: 255, g: 255, b: 255)
    /// Opaque black.
    public static let black = RGBA8(r: 0, g: 0, b: 0)
    /// Fully transparent.
    public static let clear = RGBA8(r: 0, g: 0, b: 0, a: 0)
}
