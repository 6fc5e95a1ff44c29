import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@testable import SweepGIF

@Suite("GIF: dithering and latitude in smooth areas")
struct GIFDitherTests {
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
}
