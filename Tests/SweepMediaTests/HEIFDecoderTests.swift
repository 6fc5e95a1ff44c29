import Foundation
import SweepImaging
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepMedia

/// The error a decode of the fixture `name` gives, if any.
private func decodeError(_ name: String, maxPixels: Int = ImageDecoder.defaultMaxPixels) -> SweepError? {
    do { _ = try ImageDecoder.decode(path: fixture(name), maxPixels: maxPixels); return nil } catch let e as SweepError {
        return e
    } catch { return SweepError(.internalError, "\(error)") }
}

/// The bytes of the fixture `name`.
private func fixtureBytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture(name))))
}

/// The error a decode of `bytes` gives, if any.
private func decodeError(bytes: [UInt8]) -> SweepError? {
    do { _ = try ImageDecoder.decode(bytes: bytes, name: "memory"); return nil } catch let e as SweepError {
        return e
    } catch { return SweepError(.internalError, "\(error)") }
}

/// An ISO BMFF box: its size, its type, its body.
private func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
    let size = UInt32(8 + body.count)
    return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: size >> $0) } + Array(type.utf8) + body
}

/// heic.heic (a 1×1 grid, item 2, over one 64×64 HEVC tile, item 1) with the grid's item type
/// replaced by `type`: the same boxes, another kind of primary image.
private func heicWithPrimaryType(_ type: String) throws -> [UInt8] {
    var bytes = try fixtureBytes("heic.heic")
    let infe = Array("infe".utf8) + [2, 0, 0, 0, 0, 2, 0, 0] + Array("grid".utf8)
    let at = try #require((0...(bytes.count - infe.count)).first { Array(bytes[$0..<($0 + infe.count)]) == infe })
    bytes.replaceSubrange((at + infe.count - 4)..<(at + infe.count), with: Array(type.utf8))
    return bytes
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

    @Test(
        "HDR photos (PQ, HLG) are tone-mapped, or refused with a clear data error when asked", arguments: ["avif-pq.avif", "avif-hlg.avif"])
    func hdr(name: String) throws {
        let image = try ImageDecoder.decode(path: fixture(name))
        #expect(image.width == 48 && image.height == 32 && image.isOpaque)
        // A flat colour stays flat; HDR coding of SDR values tone-maps to a reddish colour, not to grey or black.
        let p = image[24, 16]
        #expect(image[0, 0] == p && p.r > p.g && p.r > p.b && p.r > 60, "\(p)")
        let e = try #require(throws: SweepError.self) { try ImageDecoder.decode(path: fixture(name), hdr: .refuse) }
        #expect(e.code == .dataError && e.message.contains("HDR") && e.field == .hdr, "\(e)")
    }

    /// FFmpeg's test pattern as HDR photos (make-fixtures.sh), each against FFmpeg's zscale/tonemap
    /// chain for photos (ToneMapper.stillChain) run by the ffmpeg CLI on what another decoder made
    /// of the same file: `.ref.png` from the file's own reference decoder at full depth (avifdec's
    /// 16-bit R′G′B′; FFmpeg decoding the HEVC bitstream), `.libheif.png` from heif-convert's 16-bit
    /// R′G′B′, `.source.png` from the R′G′B′ the file was coded from. Bounds are the measured mean
    /// ΔE2000 (in the comment) with a margin. In 4:2:0 files sweep interpolates the chroma at
    /// the coded siting, as FFmpeg and libavif do, not libheif 1.15's repeated samples (2.0 off
    /// on the pattern's hard coloured edges); turned by `irot`, the siting turns with it.
    @Test(
        "HDR photos come out near FFmpeg's own tone-mapping of the same file decoded by another decoder",
        arguments: [
            ("avif-hlg-pattern.avif", "avif-hlg-pattern.ref.png", 0.25),  // 0.12: 10-bit 4:4:4 full range
            ("avif-hlg-pattern.avif", "avif-hlg-pattern.libheif.png", 0.2),  // 0.07
            ("avif-hlg-pattern.avif", "avif-hlg-pattern.source.png", 0.6),  // 0.50: the AVIF coding's own loss
            ("avif-pq-pattern.avif", "avif-pq-pattern.ref.png", 0.1),  // 0.03: 4:2:0 limited range
            ("heic-pq-pattern.heic", "heic-pq-pattern.ref.png", 0.1),  // 0.03: HEVC 4:2:0 limited range
            ("heic-pq-pattern-irot1.heic", "heic-pq-pattern-irot1.ref.png", 0.1),  // 0.03: a quarter turn, left siting to bottom
        ])
    func hdrAgainstFFmpeg(photo: String, reference: String, bound: Double) throws {
        let ours = try ImageDecoder.decode(path: fixture(photo))
        let expected = try ImageDecoder.decode(path: fixture(reference))
        let mean = ColorDifference.meanDeltaE2000(ours, expected)
        #expect(mean < bound, "mean ΔE2000 \(mean)")
    }

    @Test("An HDR photo coded with BT.2020's constant-luminance matrix is refused with that reason, as for clips")
    func constantLuminance() throws {
        // The PQ HEIC with its nclx matrix (after primaries and transfer) changed from 9 to 10.
        var bytes = try fixtureBytes("heic-pq-pattern.heic")
        let at = try #require(bytes.indices.dropLast(8).first { Array(bytes[$0..<($0 + 8)]) == Array("colrnclx".utf8) }) + 8
        #expect(bytes[at + 4..<at + 6] == [0, 9])
        bytes[at + 5] = 10
        let e = try #require(decodeError(bytes: bytes))
        #expect(e.code == .unavailable && e.message.contains("constant-luminance matrix and PQ") && e.field == .hdr, "\(e)")
    }

    @Test("An oversize HEIC or AVIF is refused from its header, before decoding", arguments: ["heic.heic", "avif.avif"])
    func pixelLimit(name: String) throws {
        let e = try #require(decodeError(name, maxPixels: 1000))
        // "claims": the header check, not the after-decoding one ("has").
        #expect(e.code == .dataError && e.field == .maxPixels && e.message.contains("claims 48×32"), "\(e)")
        #expect(decodeError(name, maxPixels: 48 * 32) == nil)
    }

    @Test("A limit below one side is refused as the pixel limit (sweep's check, then libheif's own guard)")
    func libheifLimit() throws {
        let e = try #require(decodeError("heic.heic", maxPixels: 40))
        #expect(e.code == .dataError && e.field == .maxPixels, "\(e)")
    }

    /// The bands are black | 128 | white (x < 16, < 32, ≥ 32). libheif 1.15 alone gives 16 | 126 | 235
    /// for the limited-range files.
    @Test(
        "Monochrome AVIF: limited range is expanded to black 0 and white 255, from the nclx box or the bitstream",
        arguments: ["avif-mono-limited.avif", "avif-mono10-limited.avif", "avif-mono-limited-nocolr.avif", "avif-mono-full.avif"])
    func monochromeRange(name: String) throws {
        let img = try ImageDecoder.decode(path: fixture(name))
        #expect(img.width == 48 && img.height == 32 && img.isOpaque)
        for y in [2, 16, 30] {
            let (black, grey, white) = (img[8, y], img[24, y], img[40, y])
            for p in [black, grey, white] { #expect(p.r == p.g && p.g == p.b, "\(name): not grey \(p)") }
            #expect(black.r <= 2 && white.r >= 253, "\(name) row \(y): black \(black.r), white \(white.r)")
            #expect(abs(Int(grey.r) - 128) <= 2, "\(name) row \(y): grey \(grey.r)")
        }
    }

    @Test("A monochrome grid in limited range is expanded too (its tiles are 4:0:0; the grid item says nothing)")
    func monochromeGrid() throws {
        let img = try ImageDecoder.decode(path: fixture("avif-mono-grid-limited.avif"))
        #expect(img.width == 128 && img.height == 64)
        // The bands, stretched 8/3: black below x 43, grey below 86, white after; both tiles.
        let (black, grey, white) = (img[20, 32], img[64, 32], img[110, 32])
        #expect(black.r <= 2 && white.r >= 253 && abs(Int(grey.r) - 128) <= 2, "\(black) \(grey) \(white)")
    }

    @Test("A full-range monochrome AVIF is left as libheif decodes it; the limited one matches it once expanded")
    func monochromeFullUnchanged() throws {
        let full = try ImageDecoder.decode(path: fixture("avif-mono-full.avif"))
        let limited = try ImageDecoder.decode(path: fixture("avif-mono-limited.avif"))
        // Expanding full range by mistake would move 128 to 130 and 1 to 0.
        #expect(full[24, 16].r == 128 && full[8, 16].r == 0 && full[40, 16].r == 255, "\(full[24, 16])")
        for (x, y) in [(8, 16), (24, 16), (40, 16), (15, 5), (33, 27)] {
            #expect(close(full[x, y], limited[x, y], 2), "at \(x),\(y): \(full[x, y]) vs \(limited[x, y])")
        }
    }

    @Test("Colour in limited range is expanded by libheif as before, not twice")
    func colourLimitedRange() throws {
        let img = try ImageDecoder.decode(path: fixture("avif-limited.avif"))
        for q in quadrants { #expect(close(img[q.x, q.y], q.c, 8), "at \(q.x),\(q.y): \(img[q.x, q.y]) vs \(q.c)") }
    }

    /// The refusal comes from sweep's own reading of the boxes: libheif never decodes the file.
    @Test("An overlay (iovl) as the primary image is refused before decoding, naming the limitation")
    func overlayPrimary() throws {
        let e = try #require(decodeError("heic-overlay.heic"))
        #expect(e.code == .dataError && e.code.exitCode == 65 && e.subject == fixture("heic-overlay.heic"), "\(e)")
        #expect(e.message.contains("overlay (iovl)") && e.message.contains("libheif (1.15)"), "\(e)")
        #expect(e.fix?.contains("plain HEIC") == true, "\(e)")
    }

    @Test(
        "Primary images libheif 1.15 cannot decode (by item type) are refused by name",
        arguments: [
            ("iovl", "an overlay (iovl)"), ("iden", "derived from a derived image"), ("jpeg", "of type 'jpeg'"),
            ("unci", "of type 'unci'"), ("vvc1", "of type 'vvc1'"),
        ])
    func primaryTypes(type: String, phrase: String) throws {
        // An iden here refers to the HEVC tile, one level: decoded. An iden of an iden is refused.
        let bytes = try heicWithPrimaryType(type)
        if type == "iden" {
            let img = try ImageDecoder.decode(bytes: bytes, name: "memory")
            #expect(img.width == 64 && img.height == 64 && close(img[12, 8], quadrants[0].c, 8))
            let chain = try heicWithPrimaryType("iden")
            var patched = chain
            // The tile becomes an iden too (of itself): a chain, and a loop libheif would follow forever.
            let tile = Array("infe".utf8) + [2, 0, 0, 1, 0, 1, 0, 0] + Array("hvc1".utf8)
            let at = try #require((0...(chain.count - tile.count)).first { Array(chain[$0..<($0 + tile.count)]) == tile })
            patched.replaceSubrange((at + tile.count - 4)..<(at + tile.count), with: Array("iden".utf8))
            let e = try #require(decodeError(bytes: patched))
            #expect(e.code == .dataError && e.message.contains(phrase), "\(e)")
            return
        }
        let e = try #require(decodeError(bytes: bytes))
        #expect(e.code == .dataError && e.subject == "memory" && e.message.contains(phrase), "\(e)")
    }

    @Test("A predictively coded primary image (a pred reference, as conformance file C044) is refused, not shown grey")
    func predictedPrimary() throws {
        let e = try #require(decodeError("heic-predicted.heic"))
        #expect(e.code == .dataError && e.message.contains("predictively coded") && e.message.contains("grey"), "\(e)")
    }

    @Test("A grid declaring 30000×30000 behind a 48×32 ispe is refused from its grid data, before decoding")
    func gridDeclaredSize() throws {
        let e = try #require(decodeError("heic-grid-bomb.heic"))
        #expect(e.code == .dataError && e.field == .maxPixels && e.message.contains("claims 30000×30000"), "\(e)")
        // Under a limit that admits it, its one 64×64 tile cannot cover it: refused as corrupt.
        let big = try #require(decodeError("heic-grid-bomb.heic", maxPixels: 30000 * 30000))
        #expect(big.code == .dataError && big.field == nil && big.message.contains("tiles do not fit"), "\(big)")
    }

    @Test("An image sequence without a still (msf1 or avis, a moov box, no meta) is refused by name", arguments: ["msf1", "avis"])
    func sequence(brand: String) throws {
        let ftyp = box("ftyp", Array(brand.utf8) + [0, 0, 0, 0] + Array("\(brand)iso8mif1".utf8))
        let moov = box("moov", box("mvhd", [UInt8](repeating: 0, count: 100)))
        let e = try #require(decodeError(bytes: ftyp + moov + box("mdat", [UInt8](repeating: 0, count: 64))))
        let kind = brand == "avis" ? "AVIF" : "HEIF"
        #expect(e.code == .dataError && e.code.exitCode == 65, "\(e)")
        #expect(e.message == "the file is an \(kind) image sequence, which sweep does not read", "\(e)")
        #expect(e.fix == "export a still or an MP4", "\(e)")
    }

    @Test("The box walk never traps: every byte of the meta box changed, and every cut, read or refused")
    func boxWalkHardening() throws {
        let good = try fixtureBytes("heic.heic")
        func walk(_ bytes: [UInt8]) {
            guard let boxes = try? HEIFBoxes(bytes) else { return }
            for id in boxes.items.keys {
                _ = boxes.spatialExtent(of: id)
                _ = boxes.isMonochrome(id)
                _ = boxes.data(of: id, prefix: 12)
                _ = boxes.references("dimg", from: id)
            }
        }
        for i in 0..<min(good.count, 460) {
            for v: UInt8 in [0, 1, 0x7F, 0x80, 0xFF] {
                var bytes = good
                bytes[i] = v
                walk(bytes)
            }
            walk(Array(good[..<i]))
        }
        // And the decoder on a few, through libheif: read, or a data error.
        for i in stride(from: 28, to: 460, by: 7) {
            var bytes = good
            bytes[i] ^= 0xFF
            if let e = decodeError(bytes: bytes) { #expect(e.code == .dataError, "byte \(i): \(e)") }
        }
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
