import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@testable import SweepGIF

@Suite("Lossy LZW: quality, screen time and where latitude is given")
struct LossyQualityTests {
    /// Whether the 3×3 window around (x, y) is one colour.
    private func flat(_ img: RGBAImage, _ x: Int, _ y: Int) -> Bool {
        for yy in max(0, y - 1)...min(img.height - 1, y + 1) {
            for xx in max(0, x - 1)...min(img.width - 1, x + 1) where img[xx, yy] != img[x, y] { return false }
        }
        return true
    }

    @Test("Lower quality: smaller files; every pixel within the budget of the lossless GIF, flat areas exact, no flicker")
    func qualityLadder() throws {
        let (w, h) = (150, 96)
        let a = mixed(w, h), b = mixed(w, h, seed: 5)
        let frames = wipe(a, b, steps: 6)
        let palette = GIFPalette.build(samples: [(a, 1), (b, 1)], count: 256)
        #expect(!palette.isExact)
        // No dithering, and each setting is checked against its own lossless coding (`--lossy
        // 0`: the same tables, since a band's table depends on the setting), so the LZW coder
        // alone moves pixels.
        var last = try writeGIF(frames, palette: palette, quality: 100, dither: .none).bytes
        for q in [90, 60, 30] {
            let lossy = try writeGIF(frames, palette: palette, quality: q, dither: .none)
            let exact = try writeGIF(frames, palette: palette, quality: q, lossy: 0, dither: .none)
            #expect(lossy.bytes < last, "quality \(q): \(lossy.bytes) vs \(last)")
            #expect(lossy.bytes < exact.bytes, "quality \(q): \(lossy.bytes) vs lossless \(exact.bytes)")
            last = lossy.bytes
            let limit = GIFQuality(q).lzwBudget + 1e-4
            for (k, (f, ref)) in zip(lossy.frames, exact.frames).enumerated() {
                for y in 0..<h {
                    for x in 0..<w {
                        let i = (y * w + x) * 4
                        let e: SIMD4<Float> =
                            LZWLatitude.lab(f.pixels[i], f.pixels[i + 1], f.pixels[i + 2])
                            - LZWLatitude.lab(ref.pixels[i], ref.pixels[i + 1], ref.pixels[i + 2])
                        let d: Float = (e * e).sum().squareRoot()
                        #expect(d <= limit, "q\(q) frame \(k) (\(x),\(y))")
                        // Flat colour keeps its lossless pixels; the line across it and the
                        // split's edge (in any frame) may move by the small budget of
                        // untextured pixels.
                        if x > 2 * w / 3 + 1 {
                            if frames.allSatisfy({ flat($0, x, y) }) {
                                #expect(f.pixels[i..<(i + 3)] == ref.pixels[i..<(i + 3)], "q\(q) (\(x),\(y)) moved")
                            } else {
                                #expect(d <= GIFQuality(q).smoothBudget + 1e-4, "q\(q) edge (\(x),\(y))")
                            }
                        }
                    }
                }
                // A pixel whose source did not change does not change on screen.
                if k > 0 {
                    let src0 = frames[k - 1].pixels, src1 = frames[k].pixels, out0 = lossy.frames[k - 1].pixels
                    for p in 0..<(w * h) where src0[(p * 4)..<(p * 4 + 4)] == src1[(p * 4)..<(p * 4 + 4)] {
                        #expect(out0[(p * 4)..<(p * 4 + 3)] == f.pixels[(p * 4)..<(p * 4 + 3)], "flicker at \(p) in frame \(k)")
                    }
                }
            }
        }
    }

    @Test("Pixels seen briefly may stray further, pixels seen long stay closer: each within its scaled budget")
    func screenTimeScales() throws {
        let (w, h) = (120, 80)
        var img = RGBAImage(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let n = hash(x, y, 90), i = (y * w + x) * 4
                img.pixels[i] = UInt8(60 + n); img.pixels[i + 1] = UInt8(90 + n / 2)
                img.pixels[i + 2] = UInt8(40 + hash(y, x, 70)); img.pixels[i + 3] = 255
            }
        }
        let palette = GIFPalette.build(samples: [(img, 1)], count: 256)
        // The left half stays a ninth of the typical time (three times the budget), the
        // right half four times as long (half the budget).
        let time = ScreenTime(axis: .columns, stays: (0..<w).map { $0 < w / 2 ? 0.1 : 3.6 }, typical: 0.9)
        #expect(time.scale(x: 0, y: 0) == 3 && time.scale(x: w - 1, y: h - 1) == 0.5)
        let q = 70
        let exact = try writeGIF([img], palette: palette, quality: q, lossy: 0, dither: .none).frames[0]
        let plain = try writeGIF([img], palette: palette, quality: q, dither: .none).frames[0]
        let scaled = try writeGIF([img], palette: palette, quality: q, dither: .none, screenTimes: [time]).frames[0]
        /// Pixels moved off the lossless coding in each half, and the worst distance in each.
        func moved(_ f: RGBAImage) -> (left: Int, right: Int, worstLeft: Float, worstRight: Float) {
            var out = (left: 0, right: 0, worstLeft: Float(0), worstRight: Float(0))
            for y in 0..<h {
                for x in 0..<w where f[x, y] != exact[x, y] {
                    let a = f[x, y], b = exact[x, y]
                    let e = LZWLatitude.lab(a.r, a.g, a.b) - LZWLatitude.lab(b.r, b.g, b.b)
                    let d = (e * e).sum().squareRoot()
                    if x < w / 2 {
                        (out.left, out.worstLeft) = (out.left + 1, max(out.worstLeft, d))
                    } else {
                        (out.right, out.worstRight) = (out.right + 1, max(out.worstRight, d))
                    }
                }
            }
            return out
        }
        let budget = GIFQuality(q).lzwBudget
        let before = moved(plain), after = moved(scaled)
        #expect(before.worstLeft <= budget + 1e-4 && before.worstRight <= budget + 1e-4)
        #expect(after.worstLeft <= 3 * budget + 1e-4 && after.worstRight <= 0.5 * budget + 1e-4)
        #expect(after.worstLeft > budget, "the brief half used its larger budget: \(after.worstLeft)")
        #expect(after.left > before.left && after.right < before.right, "\(before) → \(after)")
    }

    @Test("Each frame takes its own screen time; smooth areas only tighten, and flat colour stays exact, however brief")
    func screenTimePerFrame() throws {
        let (w, h) = (150, 96)
        // Frame 0 stays long (half the budget); frame 1, texture, gradient and flat colour
        // (``mixed``), is seen briefly (three times).
        let a = mixed(w, h), b = mixed(w, h, seed: 3)
        let palette = GIFPalette.build(samples: [(a, 1), (b, 1)], count: 256)
        let long = ScreenTime(axis: .rows, stays: Array(repeating: 4, count: h), typical: 1)
        let brief = ScreenTime(axis: .rows, stays: Array(repeating: 0.1, count: h), typical: 0.9)
        let q = 70
        let exact = try writeGIF([a, b], palette: palette, quality: q, lossy: 0, dither: .none).frames
        let scaled = try writeGIF([a, b], palette: palette, quality: q, dither: .none, screenTimes: [long, brief]).frames
        let budget = GIFQuality(q).lzwBudget, smooth = GIFQuality(q).smoothBudget
        var worst: [Float] = [0, 0]
        for k in 0..<2 {
            for y in 0..<h {
                for x in 0..<w {
                    let p = scaled[k][x, y], e = exact[k][x, y]
                    let d = LZWLatitude.lab(p.r, p.g, p.b) - LZWLatitude.lab(e.r, e.g, e.b)
                    let distance = (d * d).sum().squareRoot()
                    // The texture is the left third (its activity reaches a few pixels past it);
                    // beyond, only the small budget, never scaled up.
                    if x < w / 3 + 6 {
                        worst[k] = max(worst[k], distance)
                    } else {
                        #expect(distance <= smooth + 1e-4, "frame \(k) (\(x),\(y))")
                    }
                    if k == 1 && x > 2 * w / 3 + 1 && flat(b, x, y) && flat(a, x, y) {
                        #expect(p == e, "flat colour moved at (\(x),\(y))")
                    }
                }
            }
        }
        // The long frame keeps within half its budget; the brief one uses more than its own.
        #expect(worst[0] <= 0.5 * budget + 1e-4, "frame 0: \(worst[0])")
        #expect(worst[1] > budget && worst[1] <= 3 * budget + 1e-4, "frame 1: \(worst[1])")
    }

    @Test("Quality 100 with at most 256 colours is lossless, dithered or not", arguments: DitherMode.allCases)
    func quality100Lossless(dither: DitherMode) throws {
        // 200 colours: flat blocks of a fixed hash, in a wipe.
        func blocks(_ seed: Int) -> RGBAImage {
            var img = RGBAImage(width: 120, height: 80)
            for y in 0..<80 {
                for x in 0..<120 {
                    let k = hash(x / 3 + seed, y / 2, 100) + (seed > 0 ? 100 : 0)
                    let i = (y * 120 + x) * 4
                    img.pixels[i] = UInt8(k); img.pixels[i + 1] = UInt8(255 - k); img.pixels[i + 2] = UInt8((k * 7) % 256)
                    img.pixels[i + 3] = 255
                }
            }
            return img
        }
        let a = blocks(0), b = blocks(3)
        let frames = wipe(a, b, steps: 5)
        let palette = GIFPalette.build(samples: [(a, 1), (b, 1)], count: 256)
        #expect(palette.isExact)
        let out = try writeGIF(frames, palette: palette, quality: 100, dither: dither)
        for (f, src) in zip(out.frames, frames) { #expect(f.pixels == src.pixels) }
    }

    @Test(
        "The budget grows with texture: none on flat colour the palette holds, the smooth one in a gradient, at least that in a little texture, the full one in coarse texture",
        arguments: [60, 70, 80, 90])
    func budgetGrowsWithTexture(value: Int) {
        // Four bands of 16 rows: flat colour of the palette, a gradient (steps of one level),
        // a checkerboard of one level in red (a little texture) and coarse noise.
        let w = 64, h = 64
        let img = picture(w, h) { x, y in
            switch y / 16 {
            case 0: (204, 102, 51)
            case 1: (100 + x / 2, 120, 140)
            case 2: (100 + (x + y) % 2, 120, 140)
            default: (60 + hash(x, y, 80), 90 + hash(y, x, 80), 40 + hash(x + 5, y, 80))
            }
        }
        let quality = GIFQuality(value)
        let budget = lossyBudgets(img, quality: quality)
        // Each band's budgets away from its edges.
        func band(_ k: Int) -> [Float] { (16 * k + 3..<16 * k + 13).flatMap { y in (3..<(w - 3)).map { x in budget[y * w + x] } } }
        let (flat, gradient, little, coarse) = (band(0), band(1), band(2), band(3))
        // The smooth budget never exceeds the full one (at 90 they meet).
        let smooth = min(quality.smoothBudget, quality.lzwBudget)
        #expect(flat.allSatisfy { $0 == 0 })
        #expect(gradient.allSatisfy { abs($0 - smooth) < 1e-6 })
        #expect(little.allSatisfy { $0 >= smooth - 1e-6 && $0 <= quality.lzwBudget + 1e-6 })
        #expect(coarse.allSatisfy { abs($0 - quality.lzwBudget) < 1e-6 })
    }

    @Test(
        "A rule across the rows, in a colour the palette holds, keeps no budget and stays whole; a glyph-sized stroke, a colour the palette lacks and a gradient's contours keep the smooth one",
        arguments: [40, 60, 80, 90])
    func rulesAcrossRowsStayWhole(value: Int) throws {
        // A white page with a sidebar's border three levels off white (x = 20, every row), the
        // same grey as a stroke 5 rows tall (x = 40), a rule in a grey the palette lacks
        // (x = 50), a staircase a level a step, four columns wide, to the right edge (x ≥ 52:
        // a gradient's contours, not edges), and "text" (two-grey checkerboards) in some rows
        // for the coder to reuse.
        let w = 64, h = 64
        let stairs = [254, 253, 252]
        let img = picture(w, h) { x, y in
            if x >= 52 { return (stairs[(x - 52) / 4], stairs[(x - 52) / 4], stairs[(x - 52) / 4]) }
            if x == 20 || (x == 40 && (10..<15).contains(y)) { return (252, 252, 252) }
            if x == 50 { return (231, 231, 231) }
            if x < 12 && (y / 4) % 2 == 0 { return (x + y) % 2 == 0 ? (40, 40, 40) : (180, 180, 180) }
            return (255, 255, 255)
        }
        let greys: [UInt8] = [255, 254, 253, 252, 230, 180, 40]
        let palette = GIFPalette(colors: greys.map { RGBA8(r: $0, g: $0, b: $0) }, transparentIndex: greys.count)
        let quality = GIFQuality(value)
        let budget = quantized(img, palette: palette, dither: .none, quality: quality).budget.map { $0.squareRoot() }
        let smooth = min(quality.smoothBudget, quality.lzwBudget)
        #expect(smooth > 0)
        #expect((0..<h).allSatisfy { budget[$0 * w + 20] == 0 })
        #expect((10..<15).allSatisfy { abs(budget[$0 * w + 40] - smooth) < 1e-6 })
        #expect((0..<h).allSatisfy { abs(budget[$0 * w + 50] - smooth) < 1e-6 })
        #expect([52, 55, 56, 59, 60].allSatisfy { x in (0..<h).allSatisfy { abs(budget[$0 * w + x] - smooth) < 1e-6 } })
        // Written and decoded: the border is there in every row.
        let decoded = try writeGIF([img], palette: palette, quality: value, dither: .none).frames[0]
        #expect((0..<h).allSatisfy { decoded[20, $0] == img[20, $0] })
    }

    @Test(
        "Text on a flat fill is an edge, not texture: it gets the smooth budget, while the same strokes with no flat fill near them get the full one",
        arguments: [40, 60, 70, 80])
    func flatEdgesAreNotTexture(value: Int) {
        // Top half: "glyphs" (5×5 checkerboards of two greys, every pixel an edge) on a flat
        // fill, 3 pixels apart, as small text sits on a UI page. Bottom half: the same
        // checkerboard with no fill between, as fine texture.
        let w = 64, h = 64
        let img = picture(w, h) { x, y in
            let inGlyph = y >= h / 2 || (x % 8 < 5 && y % 8 < 5)
            let v = inGlyph ? ((x + y) % 2 == 0 ? 40 : 180) : 230
            return (v, v, v)
        }
        let quality = GIFQuality(value)
        let budget = lossyBudgets(img, quality: quality)
        // Glyph centres (whose 3×3 neighbourhood is all edges) and the texture's inside.
        let centres = stride(from: 0, to: 24, by: 8).flatMap { gy in
            stride(from: 0, to: w, by: 8).map { gx in budget[(gy + 2) * w + gx + 2] }
        }
        let texture = (h / 2 + 5..<h - 1).flatMap { y in (1..<(w - 1)).map { x in budget[y * w + x] } }
        #expect(quality.smoothBudget < quality.lzwBudget)
        #expect(centres.allSatisfy { abs($0 - quality.smoothBudget) < 1e-6 })
        #expect(texture.allSatisfy { abs($0 - quality.lzwBudget) < 1e-6 })
    }
}
