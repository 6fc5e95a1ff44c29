import Foundation
import SweepImaging

/// CIEDE2000 colour differences between sRGB pictures (D65), the perceptual measure the
/// issues' targets are stated in.
public enum ColorDifference {
    /// CIELAB of an 8-bit sRGB colour.
    public static func lab(_ c: RGBA8) -> (l: Double, a: Double, b: Double) {
        func linear(_ v: UInt8) -> Double {
            let x = Double(v) / 255
            return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
        }
        let (r, g, b) = (linear(c.r), linear(c.g), linear(c.b))
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    /// ΔE2000 between two sRGB colours.
    public static func deltaE2000(_ p: RGBA8, _ q: RGBA8) -> Double { deltaE2000(lab(p), lab(q)) }

    /// ΔE2000 between two CIELAB colours (Sharma, Wu and Dalal's formulation).
    public static func deltaE2000(_ p: (l: Double, a: Double, b: Double), _ q: (l: Double, a: Double, b: Double)) -> Double {
        let (l1, a1, b1) = p, (l2, a2, b2) = q
        let c1 = hypot(a1, b1), c2 = hypot(a2, b2), cm = (c1 + c2) / 2
        let g = 0.5 * (1 - sqrt(pow(cm, 7) / (pow(cm, 7) + pow(25, 7))))
        let (ap1, ap2) = ((1 + g) * a1, (1 + g) * a2)
        let (cp1, cp2) = (hypot(ap1, b1), hypot(ap2, b2))
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) * 180 / .pi
            return h < 0 ? h + 360 : h
        }
        let (hp1, hp2) = (hue(b1, ap1), hue(b2, ap2))
        let dl = l2 - l1, dc = cp2 - cp1
        var dh = 0.0
        if cp1 * cp2 != 0 {
            dh = hp2 - hp1
            if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        }
        let dH = 2 * sqrt(cp1 * cp2) * sin(dh * .pi / 360)
        let lm = (l1 + l2) / 2, cpm = (cp1 + cp2) / 2
        var hm = hp1 + hp2
        if cp1 * cp2 != 0 {
            if abs(hp1 - hp2) <= 180 { hm /= 2 } else { hm = hp1 + hp2 < 360 ? (hm + 360) / 2 : (hm - 360) / 2 }
        }
        let t =
            1 - 0.17 * cos((hm - 30) * .pi / 180) + 0.24 * cos(2 * hm * .pi / 180) + 0.32 * cos((3 * hm + 6) * .pi / 180)
            - 0.20 * cos((4 * hm - 63) * .pi / 180)
        let dTheta = 30 * exp(-pow((hm - 275) / 25, 2))
        let rc = 2 * sqrt(pow(cpm, 7) / (pow(cpm, 7) + pow(25, 7)))
        let sl = 1 + 0.015 * pow(lm - 50, 2) / sqrt(20 + pow(lm - 50, 2))
        let sc = 1 + 0.045 * cpm, sh = 1 + 0.015 * cpm * t
        let rt = -sin(2 * dTheta * .pi / 180) * rc
        let (x, y, z) = (dl / sl, dc / sc, dH / sh)
        return sqrt(x * x + y * y + z * z + rt * y * z)
    }

    /// The mean ΔE2000 over two pictures of one size.
    public static func meanDeltaE2000(_ a: RGBAImage, _ b: RGBAImage) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var sum = 0.0
        for y in 0..<a.height {
            for x in 0..<a.width { sum += deltaE2000(a[x, y], b[x, y]) }
        }
        return sum / Double(a.width * a.height)
    }
}
