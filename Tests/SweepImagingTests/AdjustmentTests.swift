import Foundation
import Testing

@testable import SweepImaging

/// The float reference of docs/REFERENCE.md §colour, written step by step (not through ColorMatrix).
func referenceAdjust(_ rgb: (Double, Double, Double), _ a: Adjustments) -> (Double, Double, Double) {
    var (r, g, b) = rgb
    let s = a.saturation
    (r, g, b) = (
        (0.213 + 0.787 * s) * r + (0.715 - 0.715 * s) * g + (0.072 - 0.072 * s) * b,
        (0.213 - 0.213 * s) * r + (0.715 + 0.285 * s) * g + (0.072 - 0.072 * s) * b,
        (0.213 - 0.213 * s) * r + (0.715 - 0.715 * s) * g + (0.072 + 0.928 * s) * b
    )
    let c = a.contrast
    (r, g, b) = ((r - 0.5) * c + 0.5, (g - 0.5) * c + 0.5, (b - 0.5) * c + 0.5)
    (r, g, b) = (r + a.brightness, g + a.brightness, b + a.brightness)
    let th = a.hue * .pi / 180, ca = cos(th), sa = sin(th)
    (r, g, b) = (
        (0.213 + 0.787 * ca - 0.213 * sa) * r + (0.715 - 0.715 * ca - 0.715 * sa) * g + (0.072 - 0.072 * ca + 0.928 * sa) * b,
        (0.213 - 0.213 * ca + 0.143 * sa) * r + (0.715 + 0.285 * ca + 0.140 * sa) * g + (0.072 - 0.072 * ca - 0.283 * sa) * b,
        (0.213 - 0.213 * ca - 0.787 * sa) * r + (0.715 - 0.715 * ca + 0.715 * sa) * g + (0.072 + 0.928 * ca + 0.072 * sa) * b
    )
    return (r, g, b)
}

@Suite("Colour adjustments (docs/REFERENCE.md §colour)")
struct AdjustmentTests {
    static let looks: [Adjustments] = [
        .vivid, .noir, .dream, Adjustments(brightness: -0.3, contrast: 2, saturation: 0.4, hue: -135),
        Adjustments(hue: 200), Adjustments(saturation: 3),
    ]

    @Test("Every channel within ±1/255 of the float reference", arguments: looks)
    func matchesReference(look: Adjustments) {
        var img = RGBAImage(width: 64, height: 64)
        var rng = SystemRandomNumberGenerator()
        for i in 0..<(64 * 64) {
            for c in 0..<3 { img.pixels[i * 4 + c] = UInt8.random(in: 0...255, using: &rng) }
        }
        // Include the corners of the cube.
        for (i, v) in [(0, 0), (1, 255)] { for c in 0..<3 { img.pixels[i * 4 + c] = UInt8(v) } }
        let out = look.apply(to: img)
        for i in 0..<(64 * 64) {
            let src = (Double(img.pixels[i * 4]) / 255, Double(img.pixels[i * 4 + 1]) / 255, Double(img.pixels[i * 4 + 2]) / 255)
            let ref = referenceAdjust(src, look)
            for (c, v) in [ref.0, ref.1, ref.2].enumerated() {
                let expected = max(0, min(255, (v * 255).rounded()))
                #expect(abs(Double(out.pixels[i * 4 + c]) - expected) <= 1)
            }
            #expect(out.pixels[i * 4 + 3] == img.pixels[i * 4 + 3])
        }
    }

    @Test("Identity leaves pixels untouched; Noir is grey")
    func identityAndNoir() {
        var img = RGBAImage(width: 4, height: 1)
        img.pixels = [200, 30, 90, 255, 10, 250, 30, 255, 0, 0, 0, 255, 255, 255, 255, 255]
        #expect(Adjustments.identity.apply(to: img) == img)
        let noir = Adjustments.noir.apply(to: img)
        for i in 0..<4 {
            #expect(noir.pixels[i * 4] == noir.pixels[i * 4 + 1] && noir.pixels[i * 4 + 1] == noir.pixels[i * 4 + 2])
        }
    }

    @Test("Interpolation is per field, hue linear in degrees")
    func interpolation() {
        let m = Adjustments.identity.interpolated(to: .dream, 0.5)
        #expect(m == Adjustments(brightness: 0.05, contrast: 0.925, saturation: 1.1, hue: 30))
    }
}
