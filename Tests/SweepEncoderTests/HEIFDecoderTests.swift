import Foundation
import SweepImaging
import SweepSupport
import Testing

@testable import SweepMedia

/// The error a decode of the fixture `name` gives, if any.
private func decodeError(_ name: String, maxPixels: Int = ImageDecoder.defaultMaxPixels) -> SweepError? {
    do { _ = try ImageDecoder.decode(path: fixture(name), maxPixels: maxPixels); return nil } catch let e as SweepError {
        return e
    } catch { return SweepError(.internalError, "\(error)") }
}

/// Display P3 (D65, sRGB curve) → sRGB by the published matrices, in floats: the reference.
private func displayP3ToSRGB(_ rgb: (Double, Double, Double)) -> (Double, Double, Double) {
    func dec(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    func enc(_ v: Double) -> Double {
        let v = min(max(v, 0), 1)
        return v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
    }
    let (r, g, b) = (dec(rgb.0 / 255), dec(rgb.1 / 255), dec(rgb.2 / 255))
    // Display P3 linear → XYZ (D65).
    let x = 0.4865709 * r + 0.2656677 * g + 0.1982173 * b
    let y = 0.2289746 * r + 0.6917385 * g + 0.0792869 * b
    let z = 0.0000000 * r + 0.0451134 * g + 1.0439444 * b
    // XYZ → linear sRGB.
    let lr = 3.2404542 * x - 1.5371385 * y - 0.4985314 * z
    let lg = -0.9692660 * x + 1.8760108 * y + 0.0415560 * z
    let lb = 0.0556434 * x - 0.2040259 * y + 1.0572252 * z
    return (enc(lr) * 255, enc(lg) * 255, enc(lb) * 255)
}

@Suite("Decoding HEIC and AVIF through libheif")
struct HEIFDecoderTests {
    @Test(
        "HEIC and AVIF are recognised by their ftyp brands, not their names",
        arguments: [
            ("heic", ImageKind.heif), ("mif1", .heif), ("heix", .heif), ("msf1", .heif), ("avif", .avif), ("avis", .avif),
        ])
    func sniffing(brand: String, kind: ImageKind) throws {
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            let body = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
            return [0, 0, 0, UInt8(8 + body.count)] + Array("ftyp".utf8) + body + [UInt8](repeating: 0, count: 16)
        }
        #expect(ImageKind(sniffing: ftyp(brand, [])) == kind)
        #expect(ImageKind(sniffing: ftyp("mp42", ["isom", brand])) == kind)
        // An AVIF lists mif1 too: the AV1 brand decides.
        if kind == .avif { #expect(ImageKind(sniffing: ftyp("mif1", ["miaf", brand])) == .avif) }
        #expect(ImageKind(sniffing: ftyp("isom", ["mp42", "iso2"])) == nil)
    }

    @Test(
        "HEIC (8- and 10-bit) and AVIF decode to the known pattern (lossy, within a tolerance)",
        arguments: ["heic.heic", "heic-10bit.heic", "avif.avif"])
    func colour(name: String) throws {
        let img = try ImageDecoder.decode(path: fixture(name))
        #expect(img.width == 48 && img.height == 32 && img.isOpaque)
        for q in quadrants {
            #expect(close(img[q.x, q.y], q.c, 8), "\(name) at \(q.x),\(q.y): \(img[q.x, q.y]) vs \(q.c)")
        }
    }

    @Test("AVIF transparency is composited over the chosen background")
    func alpha() throws {
        let white = try ImageDecoder.decode(path: fixture("avif-alpha.avif"), background: .white)
        let black = try ImageDecoder.decode(path: fixture("avif-alpha.avif"), background: .black)
        #expect(close(white[36, 16], .white, 2) && close(black[36, 16], .black, 2))
        #expect(close(white[12, 8], black[12, 8], 2) && close(white[12, 8], quadrants[0].c, 8))
        #expect(white.isOpaque && black.isOpaque)
    }

    @Test("Premultiplied alpha (a prem reference) is composited as premultiplied, not twice")
    func premultiplied() throws {
        // Right half: (220,20,20) at alpha 128, stored premultiplied as (110,10,10).
        let black = try ImageDecoder.decode(path: fixture("avif-premultiplied.avif"), background: .black)
        let white = try ImageDecoder.decode(path: fixture("avif-premultiplied.avif"), background: .white)
        #expect(close(black[36, 16], RGBA8(r: 110, g: 10, b: 10), 6), "\(black[36, 16])")
        #expect(close(white[36, 16], RGBA8(r: 237, g: 137, b: 137), 6), "\(white[36, 16])")
        #expect(close(black[12, 16], RGBA8(r: 220, g: 20, b: 20), 8) && black[12, 16] == white[12, 16])
    }

    /// `irot` turns anti-clockwise in quarter turns; `imir` 0 exchanges top and bottom (HEIF
    /// amendment 2's reading, which libheif and iPhones follow): the EXIF tags that do the same.
    @Test(
        "irot and imir are applied by libheif: the picture comes out turned",
        arguments: [
            ("heic-irot1.heic", 8), ("heic-irot2.heic", 3), ("heic-irot3.heic", 6), ("heic-imir0.heic", 4),
        ])
    func transformations(name: String, tag: Int) throws {
        let stored = try ImageDecoder.decode(path: fixture("heic.heic"))
        let turned = try ImageDecoder.decode(path: fixture(name))
        let same = turned == Orientation.upright(stored, tag: tag)
        #expect(same, "\(name) is not the stored picture under EXIF orientation \(tag)")
        // And by the colours: a quarter turn anti-clockwise brings the top-right (green) to the top-left.
        let topLeft = [8: quadrants[1].c, 3: quadrants[3].c, 6: quadrants[2].c, 4: quadrants[2].c][tag]!
        #expect(close(turned[4, 4], topLeft, 12), "\(name): \(turned[4, 4]) vs \(topLeft)")
    }

    @Test(
        "Display P3 content is converted to sRGB, from an ICC profile (HEIC) or nclx primaries (AVIF)",
        arguments: ["heic-p3-icc.heic", "avif-p3-nclx.avif"])
    func displayP3(name: String) throws {
        let img = try ImageDecoder.decode(path: fixture(name))
        let ref = displayP3ToSRGB((230, 60, 40))
        let p = img[24, 16]
        #expect(
            abs(Double(p.r) - ref.0) <= 5 && abs(Double(p.g) - ref.1) <= 5 && abs(Double(p.b) - ref.2) <= 5,
            "\(name): \(p) vs \(ref)")
        // The conversion is real: the P3 values differ from their sRGB meaning by ~20 levels.
        #expect(abs(Int(p.r) - 230) > 10 && abs(Int(p.g) - 60) > 10)
    }

    @Test("Conversion from primaries: sRGB's own primaries change nothing; P3's match the float reference")
    func primaries() throws {
        let bt709 = ColorProfile.Primaries(red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), white: (0.3127, 0.3290))
        var image = RGBAImage(width: 2, height: 1, fill: RGBA8(r: 230, g: 60, b: 40))
        let original = image
        #expect(ColorProfile.convertToSRGB(&image, primaries: bt709))
        #expect(close(image[0, 0], original[0, 0], 1))
        #expect(ColorProfile.convertToSRGB(&image, primaries: .displayP3))
        let ref = displayP3ToSRGB((230, 60, 40)), p = image[1, 0]
        #expect(
            abs(Double(p.r) - ref.0) <= 1.5 && abs(Double(p.g) - ref.1) <= 1.5 && abs(Double(p.b) - ref.2) <= 1.5,
            "\(p) vs \(ref)")
    }

    @Test("HDR photos (PQ, HLG) are refused with a clear data error", arguments: ["avif-pq.avif", "avif-hlg.avif"])
    func hdr(name: String) throws {
        let e = try #require(decodeError(name))
        #expect(e.code == .dataError && e.message.contains("HDR") && e.message.contains("not supported yet"), "\(e)")
    }

    @Test("An oversize HEIC or AVIF is refused from its header, before decoding", arguments: ["heic.heic", "avif.avif"])
    func pixelLimit(name: String) throws {
        let e = try #require(decodeError(name, maxPixels: 1000))
        // "claims": the header check, not the after-decoding one ("has").
        #expect(e.code == .dataError && e.field == .maxPixels && e.message.contains("claims 48×32"), "\(e)")
        #expect(decodeError(name, maxPixels: 48 * 32) == nil)
    }

    @Test("A limit below one side is refused by libheif's own guard, still as the pixel limit")
    func libheifLimit() throws {
        let e = try #require(decodeError("heic.heic", maxPixels: 40))
        #expect(e.code == .dataError && e.field == .maxPixels, "\(e)")
    }

    @Test("Truncated and damaged HEIC/AVIF fail with data errors", arguments: ["heic.heic", "avif.avif"])
    func truncated(name: String) throws {
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture(name))))
        for cut in [16, 40, good.count / 2, good.count - 8, good.count - 1] {
            do {
                _ = try ImageDecoder.decode(bytes: Array(good[..<cut]), name: "cut")
                Issue.record("\(name) cut at \(cut) decoded")
            } catch let e as SweepError {
                #expect(e.code == .dataError && e.subject == "cut", "\(name) cut at \(cut): \(e)")
            }
        }
    }
}
