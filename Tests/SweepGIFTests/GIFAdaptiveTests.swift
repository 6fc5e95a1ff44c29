import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@testable import SweepGIF

/// One image block of a GIF file as stored: its rectangle, whether it has a local colour
/// table, and its LZW minimum code size.
private struct StoredImage {
    var x: Int, y: Int, width: Int, height: Int
    var hasLocalTable: Bool
    var minCodeSize: Int
    /// Entries of the local table (0 without one).
    var tableEntries = 0
}

/// The image blocks of a GIF file, read from its bytes (independently of giflib).
private func storedImages(_ path: String) throws -> [StoredImage] {
    let d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var i = 13
    if d[10] & 0x80 != 0 { i += 3 * (2 << Int(d[10] & 7)) }
    var out: [StoredImage] = []
    func skipSubBlocks() { while d[i] != 0 { i += Int(d[i]) + 1 }; i += 1 }
    while i < d.count {
        switch d[i] {
        case 0x21:
            i += 2
            skipSubBlocks()
        case 0x2C:
            let le = { (k: Int) in Int(d[i + k]) | Int(d[i + k + 1]) << 8 }
            let flags = d[i + 9]
            var image = StoredImage(x: le(1), y: le(3), width: le(5), height: le(7), hasLocalTable: flags & 0x80 != 0, minCodeSize: 0)
            i += 10
            if image.hasLocalTable {
                image.tableEntries = 2 << Int(flags & 7)
                i += 3 * image.tableEntries
            }
            image.minCodeSize = Int(d[i])
            i += 1
            skipSubBlocks()
            out.append(image)
        default:
            return out
        }
    }
    return out
}

/// A picture filled by `color(x, y)` (also used by the lossy coder's tests).
func picture(_ w: Int, _ h: Int, _ color: (Int, Int) -> (Int, Int, Int)) -> RGBAImage {
    var img = RGBAImage(width: w, height: h)
    for y in 0..<h {
        for x in 0..<w {
            let c = color(x, y), i = (y * w + x) * 4
            img.pixels[i] = UInt8(c.0); img.pixels[i + 1] = UInt8(c.1); img.pixels[i + 2] = UInt8(c.2); img.pixels[i + 3] = 255
        }
    }
    return img
}

/// Writes an exact wipe losslessly with the file's table ordered by `usage`, checks that it
/// decodes to the source frames and that no strip carries a table of its own, and returns
/// each strip's LZW minimum code size.
private func stripCodeSizes(_ frames: [RGBAImage], palette: GIFPalette, usage: ColorUsage) throws -> [Int] {
    let out = try writeGIF(frames, palette: palette, quality: 100, usage: usage, keep: true)
    defer { try? FileManager.default.removeItem(atPath: out.path) }
    for (f, src) in zip(out.frames, frames) { #expect(f.pixels == src.pixels) }
    let strips = try storedImages(out.path).dropFirst()
    #expect(strips.allSatisfy { !$0.hasLocalTable })
    return strips.map(\.minCodeSize)
}

@Suite("GIF: code sizes, the first frame's and each stretch's palette, dithering and latitude in smooth areas")
struct GIFAdaptiveTests {
    @Test("A frame that uses only the palette's first entries gets narrower codes, and decodes exactly")
    func narrowCodes() throws {
        // 150 light colours wiped by 40 dark ones: 190 colours, an exact palette.
        let light = picture(120, 60) { x, y in (150 + (x + y) % 100, 220, 230) }
        let dark = picture(120, 60) { x, y in (10 + (x / 3 + y) % 40, 20, 30) }
        let frames = wipe(light, dark, steps: 6)
        let palette = GIFPalette.build(samples: [(light, 1), (dark, 1)], count: 256)
        let exactPalette = palette.isExact
        #expect(exactPalette)
        let out = try writeGIF(frames, palette: palette, quality: 100, keep: true)
        defer { try? FileManager.default.removeItem(atPath: out.path) }
        for (f, src) in zip(out.frames, frames) { #expect(f.pixels == src.pixels) }
        let images = try storedImages(out.path)
        #expect(images.count == frames.count)
        // The dark strips need file indices 0…40 (the transparent index first, then the dark
        // colours): 6 bits, not the global table's 8.
        let strips = images.dropFirst().filter { !$0.hasLocalTable }
        #expect(!strips.isEmpty)
        for s in strips { #expect(s.minCodeSize <= 6, "strip at x \(s.x): code size \(s.minCodeSize)") }
    }

    @Test("The colours the wipe writes come first in the file's table, whatever their lightness, so its strips get narrower codes")
    func changedColoursFirst() throws {
        // 100 colours wiped by 50 others of the same lightnesses (the red channel alternates
        // between the two sides): a lightness order interleaves them, so a strip of the after
        // picture reaches index 150 and needs 8 bits; with its 50 colours first, 6.
        let before = picture(100, 40) { x, y in
            let k = (x + y) % 100; return (2 * k, 2 * k, 40)
        }
        let after = picture(100, 40) { x, y in
            let k = (x * 3 + y) % 50; return (4 * k + 1, 4 * k, 40)
        }
        let frames = wipe(before, after, steps: 5)
        let palette = GIFPalette.build(samples: [(before, 1), (after, 1)], count: 256)
        #expect(palette.isExact && palette.colors.count == 150)
        let usage = ColorUsage(samples: [frames[0], frames[2], frames[5]], step: 2, palette: palette)
        #expect(Set(usage.bands.joined()).count == 50)
        for usage in [ColorUsage.unknown, usage] {
            let widths = try stripCodeSizes(frames, palette: palette, usage: usage)
            #expect(widths.count == 5 && widths.allSatisfy { $0 == (usage.bands.isEmpty ? 8 : 6) })
        }
    }

    @Test("Colours most strips need come first in the file's table, so those strips code with 3-bit symbols")
    func sharedColoursFirst() throws {
        // The after picture's left two thirds use 6 mid greys; its right third uses them and
        // 15 yellows of every lightness. Lightness alone puts the greys among 141 colours, so
        // every strip needs 7 or 8 bits; the usage order puts them first (indices 1…6).
        let before = picture(96, 40) { x, y in
            let k = (x + 2 * y) % 120; return (2 * k, 2 * k, min(255, 2 * k + 1))
        }
        let after = picture(96, 40) { x, y in
            let grey = 111 + 2 * ((x + y) % 6), yellow = 5 + 8 * ((3 * x + y) % 30)
            return x < 64 || (x + y) % 2 == 0 ? (grey, grey, grey) : (yellow, yellow, 0)
        }
        let frames = wipe(before, after, steps: 12)
        let palette = GIFPalette.build(samples: [(before, 1), (after, 1)], count: 256)
        #expect(palette.isExact && palette.colors.count == 141)
        let usage = ColorUsage(samples: frames, step: 1, palette: palette)
        #expect(usage.bands.count == 12)
        let widths = try [ColorUsage.unknown, usage].map { try stripCodeSizes(frames, palette: palette, usage: $0) }
        #expect(widths.allSatisfy { $0.count == 12 })
        #expect(widths[0].prefix(8).allSatisfy { $0 >= 7 })
        #expect(widths[1].prefix(8).allSatisfy { $0 == 3 })
        #expect(widths[1].suffix(4).allSatisfy { $0 <= 6 })
    }

    @Test("The usage order places last the colour the fewest strips still counted need, and drops the strips it serves no more")
    func usageRanks() {
        // Four strips need colours 4 and 5, one needs all six. Colours 0…3 are needed once
        // each: they go last (latest in the fallback order first), and the strip needing them
        // all no longer counts, so 4 and 5 tie and the fallback order puts 4 first.
        let usage = ColorUsage(bands: [[4, 5], [4, 5], [0, 1, 2, 3, 4, 5], [5, 4], [4, 5]])
        #expect(usage.ranks(colors: 6, before: [0, 1, 2, 3, 4, 5]) == [2, 3, 4, 5, 0, 1])
        // A colour no strip needs has no place; an empty usage places none.
        #expect(ColorUsage(bands: [[1]]).ranks(colors: 3, before: [0, 1, 2]) == [nil, 0, nil])
        #expect(ColorUsage.unknown.ranks(colors: 3, before: [0, 1, 2]) == [nil, nil, nil])
    }

    @Test("The first frame gets a table of its own when the animation's palette fits it poorly")
    func firstFramePalette() throws {
        // The global palette is built for the colourful after picture; the first frame is grey.
        let grey = picture(96, 64) { x, y in
            let v = (x * 2 + y) % 256; return (v, v, min(255, v + x % 5))
        }
        let colour = gradient(96, 64)
        let frames = wipe(grey, colour, steps: 4)
        let palette = GIFPalette.build(samples: [(colour, 1)], count: 256)
        let first = GIFPalette.build(samples: [(grey, 1)], count: 256)
        func meanError(_ a: RGBAImage, _ b: RGBAImage) -> Double {
            var e = 0.0
            for i in 0..<a.pixels.count where i % 4 != 3 { e += abs(Double(a.pixels[i]) - Double(b.pixels[i])) }
            return e / Double(a.width * a.height * 3)
        }
        let without = try writeGIF(frames, palette: palette, dither: .none, keep: true)
        let with = try writeGIF(frames, palette: palette, dither: .none, firstFramePalette: first, keep: true)
        defer { for p in [without.path, with.path] { try? FileManager.default.removeItem(atPath: p) } }
        #expect(try storedImages(with.path)[0].hasLocalTable)
        #expect(try !storedImages(without.path)[0].hasLocalTable)
        #expect(meanError(with.frames[0], grey) < 0.5 * meanError(without.frames[0], grey))
        // Later frames are as close to their sources as without it, and nothing left of
        // the split changes (the grey part stays as first drawn).
        for k in 1..<frames.count {
            #expect(meanError(with.frames[k], frames[k]) <= meanError(without.frames[k], frames[k]) + 0.5)
            let edge = 96 * k / 4
            for y in 0..<64 { for x in edge..<96 { #expect(with.frames[k][x, y] == with.frames[0][x, y]) } }
        }
    }

    @Test("What the later samples show unlike the first: the pixels they share with it drop out, their weights stay")
    func changesSinceFirst() throws {
        let frames = wipe(gradient(32, 16), gradient(32, 16, shift: 40), steps: 4)
        let later = try #require(GIFPalette.changes(since: frames.enumerated().map { ($1, Double($0 + 1)) }))
        #expect(later.map(\.weight) == [2, 3, 4, 5])
        for (k, sample) in later.enumerated() {
            for p in 0..<(32 * 16) {
                let o = p * 4, shown = frames[k + 1].pixels[o..<(o + 4)], first = frames[0].pixels[o..<(o + 4)]
                #expect(sample.image.pixels[o + 3] == (shown == first ? 0 : 255))
                #expect(sample.image.pixels[o..<(o + 3)] == shown.prefix(3))
            }
        }
        // Nothing changes, or nothing follows: nothing to fit.
        #expect(GIFPalette.changes(since: [(frames[0], 1), (frames[0], 1)]) == nil)
        #expect(GIFPalette.changes(since: [(frames[0], 1)]) == nil)
        // The split moving back: the first frame's colours are written again, so none.
        let back = (frames + frames.reversed().dropFirst()).map { ($0, 1.0) }
        #expect(GIFPalette.changes(since: back) == nil)
        // The last frame (weight 0) counts for what comes back, and is not fitted.
        #expect(GIFPalette.changes(since: [(frames[0], 1), (frames[4], 1), (frames[0], 0)]) == nil)
        #expect(GIFPalette.changes(since: [(frames[0], 1), (frames[0], 1), (frames[4], 0)]) == nil)
        #expect(GIFPalette.changes(since: [(frames[0], 1), (frames[4], 1), (frames[4], 0)])?.map(\.weight) == [1, 0])
    }

    /// The mean absolute error of 8×8 block means of channel 0, against the source.
    private func blockError(_ out: RGBAImage, _ src: RGBAImage) -> Double {
        var total = 0.0, n = 0.0
        for by in stride(from: 0, to: src.height - 7, by: 8) {
            for bx in stride(from: 0, to: src.width - 7, by: 8) {
                var a = 0.0, b = 0.0
                for y in by..<(by + 8) { for x in bx..<(bx + 8) { a += Double(out[x, y].r); b += Double(src[x, y].r) } }
                let e = abs(a - b) / 64
                total += e; n += 1
            }
        }
        return total / n
    }

    @Test("A smooth gradient is dithered only where the palette's steps would show")
    func adaptiveDither() throws {
        // A red ramp over 400 px, and two palettes along it: every level but the last (fine:
        // no source colour is more than a level from an entry), and every 17th (coarse).
        let ramp = picture(400, 48) { x, _ in (x * 255 / 399, 90, 140) }
        func palette(step: Int) -> GIFPalette {
            GIFPalette(colors: stride(from: 0, through: 254, by: step).map { RGBA8(r: UInt8($0), g: 90, b: 140) }, transparentIndex: nil)
        }
        func differing(_ a: RGBAImage, _ b: RGBAImage) -> Double {
            Double((0..<(a.width * a.height)).filter { a.pixels[$0 * 4] != b.pixels[$0 * 4] }.count) / Double(a.width * a.height)
        }
        let fine = try writeGIF([ramp], palette: palette(step: 1), quality: 100)
        let fineNearest = try writeGIF([ramp], palette: palette(step: 1), quality: 100, dither: .none)
        // No noise: every pixel shows its nearest entry, as without dithering.
        #expect(fine.frames[0].pixels == fineNearest.frames[0].pixels)
        // Steps of 17 levels would band: dithering moves many pixels off their nearest entry
        // (those more than 2 levels off it, fully from 6.5) and keeps the 8×8 blocks' means
        // within those 2 levels of the source's on average, where the bands are 3 or more off.
        let dithered = try writeGIF([ramp], palette: palette(step: 17), quality: 100)
        let banded = try writeGIF([ramp], palette: palette(step: 17), quality: 100, dither: .none)
        #expect(differing(dithered.frames[0], banded.frames[0]) > 0.1)
        let d = blockError(dithered.frames[0], ramp), b = blockError(banded.frames[0], ramp)
        #expect(b > 3)
        #expect(d < Double(GIFQuality(100).ditherThresholds.0), "dithered \(d), banded \(b)")
        #expect(d < 0.65 * b, "dithered \(d), banded \(b)")
    }

    @Test("Texture is dithered weakly around 80, from 90 to 99 only where the palette is visibly off, never at 100 or from 70 down")
    func textureDither() throws {
        // Red texture that is nowhere flat (neighbours differ by 70 levels or more) below a
        // flat strip of a colour the palette holds (so that it is a clean photo's texture, not
        // noise all over: see `noisyMeans`).
        let texture = picture(120, 75) { x, y in y < 15 ? (51, 90, 140) : (40 + ((x + y) & 1) * 120 + (x * 37 + y * 91) % 50, 90, 140) }
        func reds(step: Int) -> GIFPalette {
            GIFPalette(
                colors: stride(from: step == 2 ? 1 : 0, through: 255, by: step).map { RGBA8(r: UInt8($0), g: 90, b: 140) },
                transparentIndex: nil)
        }
        // Every 51st red level: most texture pixels are 4 to 25 levels from their nearest entry.
        let coarse = reds(step: 51)
        func render(_ quality: Int, _ palette: GIFPalette, dither: DitherMode = .diffusion) throws -> RGBAImage {
            try writeGIF([texture], palette: palette, quality: quality, lossy: 0, dither: dither).frames[0]
        }
        func moved(_ quality: Int, _ palette: GIFPalette = coarse) throws -> Int {
            try movedByDiffusion(texture, palette: palette, quality: quality)
        }
        // Weak diffusion everywhere at 80 and 85 (1 % of the pixels: those within about two
        // levels of the midpoint between two entries).
        let m85 = try moved(85), m80 = try moved(80)
        #expect(m85 >= 120 * 60 / 100 && m80 >= 120 * 60 / 100, "\(m85) \(m80)")
        // From 90 to 99 the palette's distance sets it: far off, 3 % of the pixels or more move, and the
        // texture's 8×8 blocks keep their mean colour much better than undithered (at 100).
        let m90 = try moved(90), m99 = try moved(99)
        #expect(m90 >= 120 * 60 * 3 / 100 && m99 >= 120 * 60 * 3 / 100, "\(m90) \(m99)")
        let kept = blockError(try render(90, coarse), texture), drifted = blockError(try render(100, coarse), texture)
        #expect(kept < 0.7 * drifted, "dithered at 90: 8×8 blocks \(kept) levels off, undithered \(drifted)")
        // A palette one level from every red (every second level): nothing visibly off, no noise.
        #expect(try moved(90, reds(step: 2)) == 0)
        #expect(try moved(95, reds(step: 2)) == 0)
        #expect(try moved(100) == 0)
        #expect(try moved(70) == 0)
        #expect(try moved(50) == 0)
        // The scales behind it: half at 85; a noisy frame's stays full to 99, none at 100; the
        // floor where the palette is off rises from 80 to 90.
        #expect(GIFQuality(85).textureDitherScale == 0.5 && GIFQuality(90).textureDitherScale == 0)
        #expect(GIFQuality(85).noiseDitherScale == 1 && GIFQuality(99).noiseDitherScale == 1)
        #expect(GIFQuality(100).noiseDitherScale == 0 && GIFQuality(75).noiseDitherScale == 0.5)
        #expect(GIFQuality(80).textureGapDitherScale == 0 && GIFQuality(100).textureGapDitherScale == 0)
        #expect(GIFQuality(85).textureGapDitherScale == GIFQuality(90).textureGapDitherScale / 2)
    }

    /// How many pixels of `img`, written losslessly at `quality`, error diffusion moves off the
    /// entry they take undithered.
    private func movedByDiffusion(_ img: RGBAImage, palette: GIFPalette, quality: Int) throws -> Int {
        let dithered = try writeGIF([img], palette: palette, quality: quality, lossy: 0).frames[0]
        let nearest = try writeGIF([img], palette: palette, quality: quality, lossy: 0, dither: .none).frames[0]
        return (0..<(img.width * img.height)).filter { dithered[$0 % img.width, $0 / img.width] != nearest[$0 % img.width, $0 / img.width] }
            .count
    }

    /// Grey 115 with Gaussian noise (σ 8) in each channel: a noisy photo's flat wall.
    private func noisyGrey(_ w: Int, _ h: Int, seed: UInt64) -> RGBAImage {
        var rng = SeededGenerator(seed: seed)
        func normal() -> Double {
            let u = Double.random(in: Double.ulpOfOne..<1, using: &rng), v = Double.random(in: 0..<1, using: &rng)
            return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
        }
        return picture(w, h) { _, _ in
            let c = { max(0, min(255, Int((115 + 8 * normal()).rounded()))) }
            return (c(), c(), c())
        }
    }

    @Test("A noisy picture's noise floor is high, a clean one's low, even when most of it is textured")
    func noiseFloor() {
        let noisy = noisyGrey(120, 80, seed: 5)
        // A clean photo: strong texture over 85 % of it, a smooth sky above.
        let clean = picture(120, 80) { x, y in
            y < 12 ? (90 + x / 8, 140, 200) : (40 + (x * 37 + y * 91) % 50, 80 + (x * 13 + y * 29) % 40, 50)
        }
        func floor(_ img: RGBAImage, changed: [Bool]? = nil) -> Int {
            var q = FrameQuantizer(
                mapper: PaletteMapper(palette: GIFPalette(colors: [.black, .white], transparentIndex: nil)), dither: .diffusion,
                width: img.width, height: img.height)
            let rect = PixelRect(x: 0, y: 0, width: img.width, height: img.height)
            return q.measuredNoiseFloor(img, rect: rect, changed: changed)
        }
        #expect(floor(noisy) >= FrameQuantizer.noiseFloors.noisy)
        #expect(floor(clean) <= FrameQuantizer.noiseFloors.clean)
        // Only the pixels that change count: the textured part alone is no longer clean.
        let textured = (0..<(120 * 80)).map { $0 / 120 >= 12 }
        #expect(floor(clean, changed: textured) > FrameQuantizer.noiseFloors.clean)
    }

    @Test("Below 100 a noisy picture's texture is dithered fully: its areas keep their mean colour")
    func noisyMeans() throws {
        // Palette entries 40 levels apart around the wall's grey (115, between 100 and 140): the
        // nearest entry is 100 for most pixels, so weak diffusion leaves the wall darker.
        let levels = [60, 100, 140, 180]
        let colors = levels.flatMap { r in levels.flatMap { g in levels.map { b in RGBA8(r: UInt8(r), g: UInt8(g), b: UInt8(b)) } } }
        let palette = GIFPalette(colors: colors, transparentIndex: nil)
        let wall = noisyGrey(160, 96, seed: 9)
        let full = try writeGIF([wall], palette: palette, quality: 90, lossy: 0)
        let top = try writeGIF([wall], palette: palette, quality: 100)
        let none = try writeGIF([wall], palette: palette, quality: 70, lossy: 0)
        let f = blockError(full.frames[0], wall), w = blockError(top.frames[0], wall), n = blockError(none.frames[0], wall)
        #expect(f < 1.5, "fully dithered: 8×8 blocks \(f) levels off")
        #expect(w > 2.5, "undithered texture (100): \(w) levels off")
        #expect(n > 2.5, "undithered texture (70): \(n) levels off")
        // A clean picture (a fifth of it one flat colour the palette holds) gets weaker
        // diffusion in its texture at 90 (``GIFQuality/textureGapDitherScale``): fewer of its
        // pixels leave their nearest entry than the noisy rule would move.
        let clean = picture(160, 96) { x, y in
            y < 20 ? (100, 140, 100) : (60 + (x * 37 + y * 91) % 110, 60 + (x * 13 + y * 29) % 110, 100)
        }
        let cleanMoved = try movedByDiffusion(clean, palette: palette, quality: 90)
        let noisyMoved = try movedByDiffusion(wall, palette: palette, quality: 90)
        #expect(cleanMoved > 0 && cleanMoved < noisyMoved, "clean \(cleanMoved), noisy \(noisyMoved)")
    }

    @Test(
        "Lower quality shrinks a smooth gradient within its small budget (0.015 at the default); flat colour the palette holds stays exact")
    func smoothBudget() throws {
        // A two-axis gradient (more colours than a palette holds) above a flat band.
        let img = picture(240, 120) { x, y in y < 90 ? (40 + x * 160 / 239, 60 + y, 120 + x / 8) : (200, 30, 60) }
        let frames = wipe(img, picture(240, 120) { x, y in (Int(img[x, y].r) / 2, 50, 90) }, steps: 3)
        let palette = GIFPalette.build(samples: frames.map { ($0, 1.0) }, count: 256)
        let exactPalette = palette.isExact
        #expect(!exactPalette)
        let exact = try writeGIF(frames, palette: palette, quality: 100, dither: .none)
        // At 70, its budget; at the default, at most 0.015 in OkLab (about 4 grey levels):
        // with 0.021, a smooth sky written again strip by strip showed faint streaks.
        for (quality, budget) in [(70, GIFQuality(70).smoothBudget), (GIFQuality.default.value, 0.015)] {
            let lossy = try writeGIF(frames, palette: palette, quality: quality, dither: .none)
            // 70 saves a tenth at least; the default, with its smaller budget, a twentieth.
            #expect(
                lossy.bytes * (quality == 70 ? 10 : 20) < exact.bytes * (quality == 70 ? 9 : 19),
                "\(quality): \(lossy.bytes) vs \(exact.bytes)")
            var worst: Float = 0
            for (f, ref) in zip(lossy.frames, exact.frames) {
                for y in 0..<120 {
                    for x in 0..<240 {
                        let a = f[x, y], b = ref[x, y]
                        let e = LZWLatitude.lab(a.r, a.g, a.b) - LZWLatitude.lab(b.r, b.g, b.b)
                        worst = max(worst, (e * e).sum().squareRoot())
                        if y >= 92 { #expect(a == b, "flat band moved at (\(x),\(y))") }
                    }
                }
            }
            #expect(worst <= budget + 1e-4, "\(quality): a pixel moved by \(worst)")
        }
    }

    @Test("A stretch's table gets the colours the global palette effectively spends there, as a power of two")
    func stretchTableEntries() {
        // 127 entries used equally: 127 colours and the transparent entry fill 128.
        let even = (0..<256).map { $0 < 127 ? 10 : 0 }
        // 150 used equally: 128 entries below 100, 256 at 100 (the top fills its table).
        let more = (0..<256).map { $0 < 150 ? 10 : 0 }
        #expect(StretchPalettes.tableEntries(usage: more, reserved: 0, quality: GIFQuality(90)) == 128)
        #expect(StretchPalettes.tableEntries(usage: more, reserved: 0, quality: GIFQuality(100)) == 256)
        for q in [40, 70, 90, 100] { #expect(StretchPalettes.tableEntries(usage: even, reserved: 0, quality: GIFQuality(q)) == 128) }
        // One entry serves nearly every pixel and 200 a few each: about 5 effective colours
        // below 80, raised to the floor of 32 entries; all 200 touched at 100.
        let skewed = (0..<256).map { $0 == 0 ? 100_000 : ($0 <= 200 ? 10 : 0) }
        let low = StretchPalettes.tableEntries(usage: skewed, reserved: 0, quality: GIFQuality(70))
        let top = StretchPalettes.tableEntries(usage: skewed, reserved: 0, quality: GIFQuality(100))
        #expect(low == 32)
        #expect(top == 256)  // rounded up at 100
        // Reserved overlay colours count; never more than 256 entries or fewer than 32.
        #expect(StretchPalettes.tableEntries(usage: even, reserved: 3, quality: GIFQuality(90)) == 128)
        #expect(StretchPalettes.tableEntries(usage: (0..<256).map { _ in 1 }, reserved: 3, quality: GIFQuality(100)) == 256)
        #expect(StretchPalettes.tableEntries(usage: [Int](repeating: 0, count: 256), reserved: 0, quality: GIFQuality(90)) == 32)
    }

    @Test("Stretches start after each key frame that differs from the one before, in 1 % of the pixels or more")
    func stretchPlan() {
        let a = gradient(80, 40), b = gradient(80, 40, shift: 90)
        var c = b
        c.pixels[0] = c.pixels[0] &+ 1  // one pixel of 3 200: under 1 %
        let global = GIFPalette.build(samples: [(a, 1), (b, 1)], count: 256)
        let plan = StretchPalettes.plan(
            keyFrames: [(0, a), (4, a), (8, b), (12, c)], global: global, colors: 256, reserved: [], quality: GIFQuality(90))
        #expect(plan.starts == [5])
        #expect(plan.palettes.count == 1)
        #expect(plan.palettes.allSatisfy { $0.colors.count + 1 <= 256 })
    }

    @Test("Each stretch of a wipe gets its band's own palette: closer colours, decoded alike by giflib and FFmpeg, no flicker")
    func stretchPalettes() throws {
        // A grey picture wiped by a picture whose bands have very different, smooth colours.
        // The global palette is mostly spent on the grey (as when the first frame dominates
        // the samples), so it fits each band coarsely.
        let grey = picture(160, 48) { x, y in
            let v = 60 + (x + 2 * y) % 120; return (v, v, v)
        }
        let bands = picture(160, 48) { x, y in
            let t = (x % 40 + y) % 100
            switch x / 40 {
            case 0: return (200 + t % 50, 40 + t, 30)
            case 1: return (20, 100 + t, 180 + t % 70)
            case 2: return (150 + t % 100, 20, 150 + t % 100)
            default: return (30 + t, 200, 60 + t)
            }
        }
        let frames = wipe(grey, bands, steps: 8)
        let global = GIFPalette.build(samples: [(grey, 1), (bands, 0.1)], count: 64)
        let stretches = StretchPalettes.plan(
            keyFrames: [0, 2, 4, 6, 8].map { ($0, frames[$0]) }, global: global, colors: 64, reserved: [], quality: GIFQuality(100))
        #expect(stretches.starts == [1, 3, 5, 7])
        func meanError(_ a: RGBAImage, _ b: RGBAImage) -> Double {
            var e = 0.0
            for i in 0..<a.pixels.count where i % 4 != 3 { e += abs(Double(a.pixels[i]) - Double(b.pixels[i])) }
            return e / Double(a.width * a.height * 3)
        }
        // Quality 69: below 70 no smooth band gets a table of its own, so the stretches'
        // tables are what is measured.
        let without = try writeGIF(frames, palette: global, quality: 69, dither: .none)
        let with = try writeGIF(frames, palette: global, quality: 69, dither: .none, stretches: stretches, keep: true)
        defer { try? FileManager.default.removeItem(atPath: with.path) }
        #expect(try storedImages(with.path).dropFirst().filter(\.hasLocalTable).count >= 4)
        let e0 = meanError(without.frames[8], bands), e1 = meanError(with.frames[8], bands)
        #expect(e1 < 0.7 * e0, "with \(e1), without \(e0)")
        // What a frame does not rewrite stays as it was: the grey right of the split, and
        // every band already wiped in.
        for k in 1..<frames.count {
            let edge = 160 * k / 8, before = 160 * (k - 1) / 8
            for y in 0..<48 {
                for x in 0..<160 where x < before || x >= edge { #expect(with.frames[k][x, y] == with.frames[k - 1][x, y]) }
            }
        }
    }

    @Test("A narrow band of few colours gets a small table of its own from quality 70: closer colours, decoded alike")
    func bandTables() throws {
        // Each frame of the wipe writes a 12-pixel band of a few colours of its own; the
        // global palette is spread over the whole after picture and the grey.
        let grey = picture(192, 40) { x, y in
            let v = 40 + (x + 3 * y) % 150; return (v, v, v)
        }
        let after = picture(192, 40) { x, y in
            let band = x / 12
            return ((band * 47) % 200 + (x + y) % 9, (band * 91) % 220 + y % 7, (band * 23) % 180 + x % 5)
        }
        let frames = wipe(grey, after, steps: 16)
        let global = GIFPalette.build(samples: [(grey, 1), (after, 1)], count: 64)
        let mapper = PaletteMapper(palette: global)
        func meanError(_ a: RGBAImage, _ b: RGBAImage) -> Double {
            var e = 0.0
            for i in 0..<a.pixels.count where i % 4 != 3 { e += abs(Double(a.pixels[i]) - Double(b.pixels[i])) }
            return e / Double(a.width * a.height * 3)
        }
        // The error of the global palette alone: every pixel at its nearest entry.
        var nearest = after
        for p in 0..<(192 * 40) {
            let c = mapper.palette.colors[
                mapper.index(Int(after.pixels[p * 4]), Int(after.pixels[p * 4 + 1]), Int(after.pixels[p * 4 + 2]))]
            (nearest.pixels[p * 4], nearest.pixels[p * 4 + 1], nearest.pixels[p * 4 + 2]) = (c.r, c.g, c.b)
        }
        let out = try writeGIF(frames, palette: global, quality: 100, dither: .none, keep: true)
        defer { try? FileManager.default.removeItem(atPath: out.path) }
        let small = try storedImages(out.path).dropFirst().filter { $0.hasLocalTable && $0.tableEntries <= 32 }
        #expect(small.count >= 8, "\(small.count) frames with a table of at most 32 entries")
        #expect(meanError(out.frames[16], after) < 0.7 * meanError(nearest, after))
        // At 69 no frame gets a table of its own colours: every pixel shows a global entry.
        let low = try writeGIF(frames, palette: global, quality: 69, dither: .none)
        let entries = Set(global.colors)
        for f in low.frames {
            #expect(
                (0..<(192 * 40)).allSatisfy {
                    entries.contains(RGBA8(r: f.pixels[$0 * 4], g: f.pixels[$0 * 4 + 1], b: f.pixels[$0 * 4 + 2]))
                })
        }
    }

    @Test("Every narrow band gets a table sized by its colours, unless the global palette holds it exactly")
    func bandTableSizes() throws {
        // The after picture: colours scattered over the whole cube on the left, flat blocks
        // of four colours on the right, which the global palette holds exactly.
        let (w, h) = (192, 48)
        let flats = [(200, 40, 40), (40, 160, 60), (30, 60, 200), (230, 220, 90)]
        let after = picture(w, h) { x, y in
            x < w / 2 ? ((x * 73 + y * 151) % 256, (x * 199 + y * 37) % 256, (x * 11 + y * 233) % 256) : flats[(x / 24 + y / 24) % 4]
        }
        let grey = picture(w, h) { _, _ in (128, 128, 128) }
        let frames = wipe(grey, after, steps: 16)
        let global = GIFPalette.build(samples: [(grey, 1), (after, 1)], count: 256)
        #expect(!global.isExact)
        let mapper = PaletteMapper(palette: global)
        #expect(flats.allSatisfy { mapper.exactIndex(key: UInt32($0.0) << 16 | UInt32($0.1) << 8 | UInt32($0.2)) != nil })
        let out = try writeGIF(frames, palette: global, quality: 90, lossy: 0, dither: .none, keep: true)
        defer { try? FileManager.default.removeItem(atPath: out.path) }
        let images = try storedImages(out.path).dropFirst()
        #expect(images.count == 16)
        let rich = images.filter { $0.x + $0.width <= w / 2 }, flat = images.filter { $0.x >= w / 2 }
        #expect(rich.count >= 6 && flat.count >= 6)
        // Bands of many colours: a table of their own, larger than a few-colour band's 32
        // entries and smaller than the global table.
        #expect(rich.allSatisfy { $0.hasLocalTable && $0.tableEntries > 32 && $0.tableEntries < 256 }, "\(rich)")
        // Bands of flat colours the global palette holds: its entries, shown exactly (in a
        // table cut to the few entries the band uses).
        #expect(flat.allSatisfy { $0.tableEntries <= 4 }, "\(flat)")
        // Textured bands get their tables at every quality, 40 too.
        let low = try writeGIF(frames, palette: global, quality: 40, lossy: 0, dither: .none, keep: true)
        defer { try? FileManager.default.removeItem(atPath: low.path) }
        let lowRich = try storedImages(low.path).dropFirst().filter { $0.x + $0.width <= w / 2 }
        #expect(lowRich.count >= 6 && lowRich.allSatisfy { $0.hasLocalTable && $0.tableEntries >= 32 }, "\(lowRich)")
        #expect(
            out.frames[16].pixels
                == after.pixels.enumerated().map { i, v in i % 4 == 3 || i / 4 % w < w / 2 ? out.frames[16].pixels[i] : v })
    }

    @Test("A small --colors caps every table, band tables too, and each frame decodes as written (no drift)")
    func colourCap() throws {
        // Scattered colours wiped over grey: every band is textured and gets a table of its own.
        let (w, h) = (192, 48)
        let after = picture(w, h) { x, y in ((x * 73 + y * 151) % 256, (x * 199 + y * 37) % 256, (x * 11 + y * 233) % 256) }
        let grey = picture(w, h) { _, _ in (128, 128, 128) }
        let frames = wipe(grey, after, steps: 16)
        for count in [4, 8, 16] {
            let global = GIFPalette.build(samples: [(grey, 1), (after, 1)], count: count)
            #expect(!global.isExact && global.colors.count == count - 1)
            let out = try writeGIF(frames, palette: global, quality: 90, lossy: 0, dither: .none, keep: true)
            defer { try? FileManager.default.removeItem(atPath: out.path) }
            let images = try storedImages(out.path)
            #expect(images.dropFirst().contains { $0.hasLocalTable }, "\(count): no band got a table of its own")
            #expect(images.allSatisfy { $0.tableEntries <= count }, "\(count): \(images.map(\.tableEntries))")
            // Each frame shows about what the global palette would: band tables fit their bands,
            // the rest is unchanged. Tables larger than the global one, coded with its narrower
            // codes, once showed other colours than written, and the error grew frame by frame
            // (1.7–1.9 times this by the last frame).
            let mapper = PaletteMapper(palette: global)
            for (decoded, source) in zip(out.frames, frames) {
                var bound = 0.0, error = 0.0
                for i in stride(from: 0, to: w * h * 4, by: 4) {
                    let c = mapper.rgb[mapper.index(Int(source.pixels[i]), Int(source.pixels[i + 1]), Int(source.pixels[i + 2]))]
                    bound +=
                        abs(Double(c.0) - Double(source.pixels[i])) + abs(Double(c.1) - Double(source.pixels[i + 1]))
                        + abs(Double(c.2) - Double(source.pixels[i + 2]))
                    for c in 0..<3 { error += abs(Double(decoded.pixels[i + c]) - Double(source.pixels[i + c])) }
                }
                #expect(
                    error <= 1.2 * bound,
                    "\(count) colours: error \(error / Double(w * h)) per pixel, global palette \(bound / Double(w * h))")
            }
        }
    }

    @Test("Below quality 80 a photo (posterized too) gets fewer colours; screenshots and gradients only below 60")
    func photoPaletteSize() {
        // Grain over a soft gradient, as in a photo: almost every pixel differs from its neighbours.
        let photo = picture(160, 120) { x, y in
            let n = (x &* 73 &+ y &* 151 &+ (x * y) % 97) % 41
            return (60 + x / 2 + n, 80 + y / 2 + n, 100 + n)
        }
        let samples = [(image: photo, weight: 1.0)]
        #expect(GIFPalette.texturedShare(samples) > 0.8)
        func entries(_ q: Int, cap: Int = 256, _ s: [(image: RGBAImage, weight: Double)]? = nil) -> Int {
            GIFPalette.entries(for: s ?? samples, quality: GIFQuality(q), cap: cap)
        }
        #expect(entries(100) == 256 && entries(90) == 256 && entries(80) == 256)
        #expect(entries(75) == 181 && entries(70) == 128 && entries(60) == 64 && entries(50) == 45 && entries(40) == 32)
        #expect(entries(1) == 16)
        // --colors stays the cap.
        #expect(entries(70, cap: 48) == 48 && entries(60, cap: 200) == 64 && entries(90, cap: 100) == 100)
        // A smooth gradient would band sooner; a screenshot's text would roughen. They keep every
        // entry down to 60, then lose them 20 steps later than a photo: 128 at 50, 64 at 40.
        let gradient = [(image: picture(160, 120) { x, y in (x, y, 128) }, weight: 1.0)]
        #expect(GIFPalette.texturedShare(gradient) < 0.1)
        #expect(entries(70, gradient) == 256 && entries(60, gradient) == 256)
        #expect(entries(55, gradient) == 181 && entries(50, gradient) == 128 && entries(40, gradient) == 64)
        #expect(entries(20, gradient) == 32 && (16...17).contains(entries(1, gradient)) && entries(50, cap: 100, gradient) == 100)
        let page = picture(160, 120) { x, y in y % 12 < 2 && x % 9 < 6 ? (40, 40, 40) : (250, 250, 250) }
        #expect(entries(60, [(page, 1)]) == 256 && entries(40, [(page, 1)]) == 64)
        // A textured picture of few colours (a posterized photo: 200 colours of grain) is
        // halved like a photo: below 90 its palette is lossy anyway.
        let posterized = [
            (
                image: picture(160, 120) { x, y in
                    let n = (x &* 73 &+ y &* 151 &+ (x * y) % 97) % 200
                    return (n, 255 - n, (n * 7) % 256)
                }, weight: 1.0
            )
        ]
        #expect(GIFPalette.exactColors(posterized, limit: 255)?.count == 200)
        #expect(entries(80, posterized) == 256 && entries(70, posterized) == 128 && entries(60, posterized) == 64)
        // Texture of three colours still keeps them exactly: the halved palette holds them all.
        let checker = [(image: picture(160, 120) { x, y in [(0, 0, 0), (255, 255, 255), (200, 30, 30)][(x + y) % 3] }, weight: 1.0)]
        #expect(GIFPalette.texturedShare(checker) > 0.8)
        let small = GIFPalette.build(samples: checker, count: entries(40, checker))
        #expect(small.isExact && small.colors.count == 3)
    }

    @Test("exactColors lists each opaque colour once, in order, across samples, or nothing past the limit")
    func exactColorList() {
        // Colours at both ends of the RGB range and 64 apart (neighbours in one 64-bit word),
        // in runs and scattered, some pixels transparent.
        let keys: [UInt32] = [0, 1, 63, 64, 0x00FF_FFFF, 0x0080_0000, 0x0000_8000, 0x0012_3456]
        func image(_ offset: Int) -> RGBAImage {
            var img = picture(50, 20) { x, y in
                let k = keys[(x / 3 + y * 7 + offset) % keys.count]
                return (Int(k >> 16), Int((k >> 8) & 0xff), Int(k & 0xff))
            }
            for i in stride(from: 3, to: img.pixels.count, by: 4 * 11) { img.pixels[i] = 0 }
            return img
        }
        var expected = Set<UInt32>()
        let samples = [(image: image(0), weight: 1.0), (image: image(5), weight: 1.0)]
        for (img, _) in samples {
            for i in stride(from: 0, to: img.pixels.count, by: 4) where img.pixels[i + 3] >= 128 {
                expected.insert(UInt32(img.pixels[i]) << 16 | UInt32(img.pixels[i + 1]) << 8 | UInt32(img.pixels[i + 2]))
            }
        }
        let found = GIFPalette.exactColors(samples, limit: 8)
        #expect(found?.map { UInt32($0.r) << 16 | UInt32($0.g) << 8 | UInt32($0.b) } == expected.sorted())
        #expect(GIFPalette.exactColors(samples, limit: expected.count - 1) == nil)
        // A sample of weight 0 does not count.
        let black = picture(4, 4) { _, _ in (9, 9, 9) }
        #expect(GIFPalette.exactColors(samples + [(black, 0)], limit: 8)?.count == expected.count)
    }

    @Test("--colors 2 means two colours besides the transparent entry")
    func twoColours() {
        let gradient = picture(64, 16) { x, _ in (x * 4, x * 4, 255 - x * 4) }
        let palette = GIFPalette.build(samples: [(gradient, 1)], count: 2)
        #expect(palette.colors.count == 2 && palette.transparentIndex == 2)
        #expect(GIFPalette.build(samples: [(gradient, 1)], count: 2, transparent: false).colors.count == 2)
    }

    @Test("A local table larger than the global one gets codes wide enough for its indices")
    func localCodeSize() {
        let block = GIFBlock(
            rect: PixelRect(x: 0, y: 0, width: 4, height: 1), data: [0, 9, 20, 30], transparent: nil,
            localColors: (0..<31).map { RGBA8(r: UInt8($0), g: 0, b: 0) })
        #expect(block.codeSize(globalTableSize: 16) == 5)
        var global = block
        global.localColors = nil
        #expect(global.codeSize(globalTableSize: 256) == 5)
        global.data = [0, 3, 2]
        #expect(global.codeSize(globalTableSize: 256) == 2)
    }

    @Test("A smooth band shows the global palette's colours or a small table: a fine table per band would show each band's steps")
    func smoothBandTables() throws {
        // A smooth two-axis gradient (no pixel textured, hundreds of colours per band) wiped
        // in over grey; the global palette is spent on the gradient.
        let (w, h) = (192, 96)
        let smooth = picture(w, h) { x, y in (30 + x, 40 + 2 * y, 200 - x / 2) }
        let grey = picture(w, h) { _, _ in (128, 128, 128) }
        let frames = wipe(grey, smooth, steps: 16)
        let global = GIFPalette.build(samples: [(grey, 1), (smooth, 1)], count: 256)
        #expect(!global.isExact)
        // At 100 a textured band's table would get every entry the band touches (64 here).
        let out = try writeGIF(frames, palette: global, quality: 100, dither: .none, keep: true)
        defer { try? FileManager.default.removeItem(atPath: out.path) }
        let bands = Array(try storedImages(out.path).dropFirst())
        #expect(bands.count == 16)
        let entries = Set(global.colors)
        for (k, band) in bands.enumerated() where band.tableEntries > GIFWriter.smoothBandEntries {
            let f = out.frames[k + 1]
            let shown = (band.y..<(band.y + band.height)).flatMap { y in
                (band.x..<(band.x + band.width)).map { x in f[x, y] }
            }
            #expect(shown.allSatisfy { entries.contains(RGBA8(r: $0.r, g: $0.g, b: $0.b)) }, "band \(k): \(band.tableEntries) entries")
        }
    }

    @Test("A pixel remembers what it showed for its last four source colours, most recent first, updated when shown again")
    func pixelHistory() {
        var history = PixelHistory(count: 2)
        let (a, b, c, d, e, f) = (
            PixelHistory.key(10, 0, 0, 255), PixelHistory.key(20, 0, 0, 255), PixelHistory.key(30, 0, 0, 255),
            PixelHistory.key(40, 0, 0, 255), PixelHistory.key(50, 0, 0, 255), PixelHistory.key(60, 0, 0, 255)
        )
        #expect(PixelHistory.key(10, 0, 0, 127) == 0)  // a transparent source is never remembered
        history.move(1, to: a, leaving: 0)  // the first frame: nothing shown before
        #expect(history.recall(1, a) == 0)
        history.move(1, to: b, leaving: 0xFF00_0011)
        #expect(history.recall(1, a) == 0xFF00_0011)
        #expect(history.recall(0, a) == 0)  // another pixel's memory is its own
        for (next, shown) in [(c, UInt32(0xFF00_0022)), (d, 0xFF00_0033), (e, 0xFF00_0044)] { history.move(1, to: next, leaving: shown) }
        // Four remembered: a, b, c, d (e is shown now).
        #expect([a, b, c, d].map { history.recall(1, $0) } == [0xFF00_0011, 0xFF00_0022, 0xFF00_0033, 0xFF00_0044])
        history.move(1, to: f, leaving: 0xFF00_0055)  // e joins, the oldest (a) goes
        #expect(history.recall(1, a) == 0)
        #expect(history.recall(1, e) == 0xFF00_0055)
        // Back to c, now shown as 0x66: leaving it updates c's entry rather than adding one.
        history.move(1, to: c, leaving: 0xFF00_0066)
        history.move(1, to: a, leaving: 0xFF00_0077)
        #expect(history.recall(1, c) == 0xFF00_0077)
        #expect([d, e, f].map { history.recall(1, $0) } == [0xFF00_0044, 0xFF00_0055, 0xFF00_0066])
        #expect(history.recall(1, b) == 0)
        // Nothing is remembered for a source that showed nothing (transparent).
        history.move(1, to: 0, leaving: 0xFF00_0088)
        history.move(1, to: b, leaving: 0)
        #expect(history.recall(1, 0) == 0)
    }

    @Test("A split that moves back brings the picture back as it was shown: no patchwork of bands")
    func splitMovingBack() throws {
        // Smooth gradients (dithered, with a small lossy budget at 90), a divider two pixels
        // wide in a third colour, the split going to two thirds and back, a few pixels a frame.
        let (w, h) = (180, 60)
        let before = picture(w, h) { x, y in (90 + x / 4, 100 + y / 3 + x / 8, 120 + x / 6) }
        let after = picture(w, h) { x, y in (200 - x / 3, 60 + y, 150 - x / 5 - y / 2) }
        let edges = Array(stride(from: 0, through: 120, by: 7)) + Array(stride(from: 120, through: 0, by: -9)) + [0]
        let frames = edges.map { edge in
            var f = before
            for y in 0..<h {
                for x in 0..<min(w, edge + 2) {
                    let i = (y * w + x) * 4
                    for c in 0..<3 { f.pixels[i + c] = x < edge ? after.pixels[i + c] : 250 }
                }
            }
            return f
        }
        let palette = GIFPalette.build(samples: [(before, 1), (after, 1)], count: 64)
        #expect(!palette.isExact)
        let out = try writeGIF(frames, palette: palette, quality: 90)
        #expect(out.frames.count == frames.count)
        // Back at the start, every pixel shows what it showed in the first frame.
        let first = out.frames[0], last = out.frames[frames.count - 1]
        var differ = 0
        for y in 0..<h { for x in 0..<w where first[x, y] != last[x, y] { differ += 1 } }
        #expect(differ == 0, "\(differ) of \(w * h) pixels differ")
    }

    @Test("The lightness-sorted search finds the entry a full scan finds, ties included")
    func lightnessSearch() {
        var rng = SeededGenerator(seed: 20)
        for round in 0..<20 {
            // Coarse levels make equal distances (ties) common.
            let levels = round.isMultiple(of: 2) ? 6 : 256
            func colour() -> OkLab {
                OkLab(
                    r: Float(Int.random(in: 0..<levels, using: &rng) * 255 / (levels - 1)),
                    g: Float(Int.random(in: 0..<levels, using: &rng) * 255 / (levels - 1)),
                    b: Float(Int.random(in: 0..<levels, using: &rng) * 255 / (levels - 1)))
            }
            let palette = (0..<Int.random(in: 1...256, using: &rng)).map { _ in colour() }
            let search = LightnessSearch(palette)
            for _ in 0..<500 {
                let p = colour()
                var best = 0
                for (j, c) in palette.enumerated() where p.distance2(c) < p.distance2(palette[best]) { best = j }
                #expect(search.nearest(p) == best)
            }
        }
    }

    @Test("The palette mapper is unbiased and near-exact, and exact where asked, also where entries are a level apart")
    func mapperIsUnbiased() {
        // Near-white entries one and two levels apart (a light UI page's), a near-black ramp
        // (where a level moves OkLab most) and random colours, drawn the same on every run.
        var rng = SeededGenerator(seed: 13)
        var colors: [RGBA8] = []
        for v in stride(from: 236, through: 255, by: 1) where v % 3 != 0 {
            colors.append(RGBA8(r: UInt8(v), g: UInt8(v), b: UInt8(min(255, v + 1))))
        }
        for v in 0..<24 { colors.append(RGBA8(r: UInt8(v), g: UInt8(v / 2), b: UInt8(v))) }
        while colors.count < 255 {
            colors.append(
                RGBA8(r: .random(in: 0...255, using: &rng), g: .random(in: 0...255, using: &rng), b: .random(in: 0...255, using: &rng)))
        }
        let palette = GIFPalette(colors: colors, transparentIndex: nil)
        let mapper = PaletteMapper(palette: palette)
        func fullScan(_ r: Int, _ g: Int, _ b: Int) -> Int {
            let p = OkLab(r: Float(r), g: Float(g), b: Float(b))
            var best = 0
            for (j, c) in palette.lab.enumerated() where p.distance2(c) < p.distance2(palette.lab[best]) { best = j }
            return best
        }
        // Over every colour of a region, the mapped colours' mean error per channel is the
        // nearest entries' to within a fifth of a level (a look-up is made for its grid
        // cell's centre, at most a level off per channel, never off to one side; the old
        // corner look-up was half a level off; over 30 seeds the worst was 0.11), and a
        // look-up misses the nearest entry only where another is nearly as near. The mean
        // error is a steady figure only where entries are dense: among sparse random
        // entries a region holds few boundaries, and which side of each its cells fall on
        // moves the mean by tenths of a level from one palette to the next.
        func check(_ range: ClosedRange<Int>, dense: Bool) {
            var drift = [0.0, 0.0, 0.0], n = 0.0, missed = 0
            for r in range {
                for g in range {
                    for b in range {
                        let got = palette.colors[mapper.index(r, g, b)], want = palette.colors[fullScan(r, g, b)]
                        drift[0] += Double(got.r) - Double(want.r)
                        drift[1] += Double(got.g) - Double(want.g)
                        drift[2] += Double(got.b) - Double(want.b)
                        n += 1
                        if got != want { missed += 1 }
                        // The exact look-up smooth areas use is a full scan's answer.
                        #expect(mapper.nearest(r, g, b) == fullScan(r, g, b))
                    }
                }
            }
            if dense { #expect(drift.allSatisfy { abs($0 / n) < 0.2 }, "\(range): drift \(drift.map { $0 / n })") }
            #expect(Double(missed) < 0.5 * n, "\(range): \(missed) of \(n)")
        }
        check(232...255, dense: true)
        check(0...19, dense: true)
        check(100...131, dense: false)
    }
}
