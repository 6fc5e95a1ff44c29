import Foundation
import SweepImaging
import SweepSupport
import Testing

@testable import SweepMedia

/// The committed fixtures (Tests/Fixtures/make-fixtures.sh makes them).
func fixture(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images/\(name)").path
}

/// The pattern every fixture shows: quadrant colours at the quadrant centres of 48×32.
let quadrants: [(x: Int, y: Int, c: RGBA8)] = [
    (12, 8, RGBA8(r: 220, g: 20, b: 20)), (36, 8, RGBA8(r: 20, g: 200, b: 20)),
    (12, 24, RGBA8(r: 20, g: 20, b: 220)), (36, 24, RGBA8(r: 230, g: 220, b: 20)),
]

func close(_ a: RGBA8, _ b: RGBA8, _ tol: Int) -> Bool {
    abs(Int(a.r) - Int(b.r)) <= tol && abs(Int(a.g) - Int(b.g)) <= tol && abs(Int(a.b) - Int(b.b)) <= tol
}

/// Rec. 709 luma on gamma-encoded values: how the fixtures' greyscale was made (ImageMagick's Gray).
func luma(_ c: RGBA8) -> Int {
    let r: Double = 0.2126 * Double(c.r), g: Double = 0.7152 * Double(c.g), b: Double = 0.0722 * Double(c.b)
    return Int((r + g + b).rounded())
}

@Suite("Decoding real formats")
struct DecoderTests {
    @Test(
        "Colour formats decode to the known pattern",
        arguments: [
            ("jpeg-baseline.jpg", 10), ("jpeg-progressive.jpg", 10), ("jpeg-cmyk.jpg", 24),
            ("png-rgb8.png", 0), ("png-rgb16.png", 0), ("png-palette.png", 0), ("png-interlaced.png", 0),
            ("webp-lossy.webp", 12), ("webp-lossless.webp", 0), ("tiff.tiff", 0), ("bmp.bmp", 0), ("gif-animated.gif", 0),
        ])
    func colour(name: String, tolerance: Int) throws {
        let img = try ImageDecoder.decode(path: fixture(name))
        #expect(img.width == 48 && img.height == 32)
        for q in quadrants {
            #expect(close(img[q.x, q.y], q.c, tolerance), "\(name) at \(q.x),\(q.y): \(img[q.x, q.y]) vs \(q.c)")
        }
    }

    @Test("Greyscale formats decode to the pattern's luma", arguments: ["jpeg-gray.jpg", "png-gray8.png", "png-gray16.png"])
    func grey(name: String) throws {
        let img = try ImageDecoder.decode(path: fixture(name))
        for q in quadrants {
            let p = img[q.x, q.y]
            #expect(p.r == p.g && p.g == p.b)
            #expect(abs(Int(p.r) - luma(q.c)) <= 6, "\(name): \(p.r) vs \(luma(q.c))")
        }
    }

    @Test(
        "Transparency is composited over the chosen background",
        arguments: ["png-rgba.png", "png-palette-trns.png", "webp-alpha.webp", "png-gray-alpha.png"])
    func alpha(name: String) throws {
        let white = try ImageDecoder.decode(path: fixture(name), background: .white)
        let black = try ImageDecoder.decode(path: fixture(name), background: .black)
        // Right half transparent: it shows the background.
        #expect(white[36, 16] == .white && black[36, 16] == .black)
        // Left half opaque: the same on both backgrounds and not the background.
        #expect(white[12, 8] == black[12, 8])
        #expect(white[12, 8] != .white)
        #expect(white.isOpaque)
    }

    @Test("EXIF orientations 1–8 come out upright", arguments: 1...8)
    func orientation(k: Int) throws {
        let img = try ImageDecoder.decode(path: fixture("orient-\(k).jpg"))
        #expect(img.width == 48 && img.height == 32)
        for q in quadrants { #expect(close(img[q.x, q.y], q.c, 12), "orientation \(k) at \(q.x),\(q.y)") }
    }

    /// Adobe RGB (1998) → sRGB by the published primaries, in floats: the reference.
    static func adobeToSRGB(_ rgb: (Double, Double, Double)) -> (Double, Double, Double) {
        func dec(_ v: Double) -> Double { pow(v, 563.0 / 256.0) }
        let (r, g, b) = (dec(rgb.0), dec(rgb.1), dec(rgb.2))
        // Adobe RGB linear → XYZ (D65).
        let x = 0.5767309 * r + 0.1855540 * g + 0.1881852 * b
        let y = 0.2973769 * r + 0.6273491 * g + 0.0752741 * b
        let z = 0.0270343 * r + 0.0706872 * g + 0.9911085 * b
        // XYZ → linear sRGB.
        let lr = 3.2404542 * x - 1.5371385 * y - 0.4985314 * z
        let lg = -0.9692660 * x + 1.8760108 * y + 0.0415560 * z
        let lb = 0.0556434 * x - 0.2040259 * y + 1.0572252 * z
        func enc(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }
        return (enc(lr) * 255, enc(lg) * 255, enc(lb) * 255)
    }

    @Test("Embedded ICC profiles are converted to sRGB", arguments: ["icc-adobergb.png", "icc-adobergb.jpg"])
    func iccProfile(name: String) throws {
        let img = try ImageDecoder.decode(path: fixture(name))
        let ref = Self.adobeToSRGB((150.0 / 255, 100.0 / 255, 80.0 / 255))
        let p = img[24, 16]
        let tol = name.hasSuffix(".jpg") ? 4.0 : 2.5
        #expect(
            abs(Double(p.r) - ref.0) <= tol && abs(Double(p.g) - ref.1) <= tol && abs(Double(p.b) - ref.2) <= tol,
            "\(p) vs \(ref)")
        // And the conversion is real: Adobe RGB values differ from their sRGB meaning.
        #expect(abs(Double(p.r) - 150) > 8 || abs(Double(p.g) - 100) > 8)
    }

    @Test("A decompression bomb is refused before decoding")
    func bomb() throws {
        do {
            _ = try ImageDecoder.decode(path: fixture("png-rgb8.png"), maxPixels: 1000)
            Issue.record("should refuse")
        } catch let e as SweepError {
            #expect(e.code == .dataError && e.message.contains("48×32"))
        }
    }
}
