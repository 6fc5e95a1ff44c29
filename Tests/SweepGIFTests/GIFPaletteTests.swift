import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@testable import SweepGIF

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

@Suite("GIF: the palette's size, its exact colours and the mapper")
struct GIFPaletteTests {
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
