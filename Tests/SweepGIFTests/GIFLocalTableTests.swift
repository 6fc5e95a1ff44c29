import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@testable import SweepGIF

@Suite("GIF: tables of their own for the first frame and for stretches of frames")
struct GIFLocalTableTests {
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
}
