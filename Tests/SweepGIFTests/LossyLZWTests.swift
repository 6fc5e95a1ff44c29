import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@testable import SweepGIF

/// A fixed hash in 0..<n: the same "noise" on every run.
private func hash(_ x: Int, _ y: Int, _ n: Int) -> Int {
    let h = (UInt32(truncatingIfNeeded: x &* 73_856_093) ^ UInt32(truncatingIfNeeded: y &* 19_349_663)) &* 2_654_435_761
    return Int((h ^ (h >> 13)) % UInt32(n))
}

/// `img` quantized whole to `palette` at `quality`: its indices, and the lossy LZW budget the
/// quantizer gives each pixel (squared OkLab distances).
private func quantized(
    _ img: RGBAImage, palette: GIFPalette, dither: DitherMode, quality: GIFQuality
) -> (indices: [UInt8], budget: [Float]) {
    var quantizer = FrameQuantizer(
        mapper: PaletteMapper(palette: palette), dither: dither,
        lzwBudget: quality.lzwBudget, quality: quality, width: img.width, height: img.height)
    var indices = [UInt8](repeating: 0, count: img.width * img.height)
    quantizer.quantize(img, rect: PixelRect(x: 0, y: 0, width: img.width, height: img.height), changed: nil, into: &indices)
    return (indices, quantizer.budget)
}

/// The lossy LZW budget the quantizer gives each pixel of `img` at `quality`, as OkLab
/// distances, mapped with diffusion to a 6×6×6 colour cube.
private func lossyBudgets(_ img: RGBAImage, quality: GIFQuality) -> [Float] {
    let levels = [0, 51, 102, 153, 204, 255]
    let cube = levels.flatMap { r in levels.flatMap { g in levels.map { b in RGBA8(r: UInt8(r), g: UInt8(g), b: UInt8(b)) } } }
    let palette = GIFPalette(colors: cube, transparentIndex: cube.count)
    return quantized(img, palette: palette, dither: .diffusion, quality: quality).budget.map { $0.squareRoot() }
}

/// Codes `data` under both reset policies with a default coder and with one that `change`
/// alters (a switch meant to change nothing but speed), and expects the same stream and
/// pixels, a stream that decodes to them, and lossy coding. Returns both coders per policy,
/// for their step counts.
private func expectSameCoding(
    _ data: [UInt8], _ latitude: LZWLatitude, minCodeSize: Int, switchedOff what: String,
    change: (inout LZWEncoder) -> Void
) -> [(policy: LZWEncoder.Policy, on: LZWEncoder, off: LZWEncoder)] {
    [LZWEncoder.Policy.whenFull, .whereCheapest].map { policy in
        var on = LZWEncoder(), off = LZWEncoder()
        change(&off)
        var a = data, b = data
        let streamA = on.encode(&a, minCodeSize: minCodeSize, policy: policy, latitude: latitude)
        let streamB = off.encode(&b, minCodeSize: minCodeSize, policy: policy, latitude: latitude)
        // Compared first, so that a failure names the policy rather than printing streams.
        let sameStream = streamA == streamB, samePixels = a == b
        #expect(sameStream, "\(policy): \(streamA.count) bytes, \(streamB.count) with \(what) off")
        #expect(samePixels, "\(policy): the decoded pixels differ")
        let decodes = lzwDecode(streamA, minCodeSize: minCodeSize) == a, lossy = a != data
        #expect(decodes && lossy, "\(policy): decodes \(decodes), lossy \(lossy)")
        return (policy, on, off)
    }
}

/// A picture with three kinds of area: fine texture (left), a smooth gradient (middle) and
/// flat colour with a thin line (right). `seed` varies the texture.
private func mixed(_ w: Int, _ h: Int, seed: Int = 0) -> RGBAImage {
    var img = RGBAImage(width: w, height: h)
    for y in 0..<h {
        for x in 0..<w {
            let i = (y * w + x) * 4
            let c: (Int, Int, Int)
            if x < w / 3 {
                let n = hash(x + seed, y, 90)
                c = (60 + n, 90 + n / 2, 40 + hash(y, x + seed, 70))
            } else if x < 2 * w / 3 {
                c = (x * 255 / w, 80 + y * 100 / h, 200 - y * 60 / h - seed * 4)
            } else {
                c = x == w - 10 ? (255, 255, 255) : (30 + seed * 6, 40, 70)
            }
            img.pixels[i] = UInt8(c.0); img.pixels[i + 1] = UInt8(c.1); img.pixels[i + 2] = UInt8(c.2)
            img.pixels[i + 3] = 255
        }
    }
    return img
}

/// Decodes a GIF LZW stream (sub-blocks, as the coder writes them) independently of giflib.
private func lzwDecode(_ blocks: [UInt8], minCodeSize: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    var i = 0
    while i < blocks.count { let n = Int(blocks[i]); bytes += blocks[(i + 1)..<(i + 1 + n)]; i += n + 1 }
    let clear = 1 << minCodeSize
    var dict: [[UInt8]] = []
    func reset() { dict = (0..<clear).map { [UInt8($0)] } + [[], []] }
    reset()
    var width = minCodeSize + 1, bit = 0, prev: [UInt8]? = nil, out: [UInt8] = []
    while bit + width <= bytes.count * 8 {
        var code = 0
        for k in 0..<width where bytes[(bit + k) / 8] & (1 << ((bit + k) % 8)) != 0 { code |= 1 << k }
        bit += width
        if code == clear { reset(); width = minCodeSize + 1; prev = nil; continue }
        if code == clear + 1 { break }
        let entry: [UInt8]
        if code < dict.count { entry = dict[code] } else { entry = prev! + [prev![0]] }
        if let p = prev, dict.count < 4096 { dict.append(p + [entry[0]]) }
        out += entry
        prev = entry
        if dict.count == 1 << width && width < 12 { width += 1 }
    }
    return out
}

@Suite("Lossy LZW")
struct LossyLZWTests {
    @Test("The coder keeps every pixel within its own budget, and its stream decodes to what it reports", arguments: [0, 1, 2])
    func withinBudget(seed: Int) throws {
        // 64 greys-and-tints; budgets vary per pixel: pinned, exact-colour-only, small, large.
        let colors: [RGBA8] = (0..<64).map { (k: Int) -> RGBA8 in
            let r = UInt8(k * 4), g = UInt8(255 - k * 3), b = UInt8((k * 37) % 256)
            return RGBA8(r: r, g: g, b: b)
        }
        let lab = GIFWriter.labTable(colors)
        let n = 40_000
        let data = (0..<n).map { UInt8(hash($0, seed, 64) / 8 * 8 + ($0 / 50) % 8) }
        let budget: [Float] = (0..<n).map { [Float(-1), 0, 0.02 * 0.02, 0.15 * 0.15][hash($0, seed + 7, 4)] }
        let latitude = LZWLatitude(
            symbolColors: lab, transparent: nil, target: data.map { lab[Int($0)] },
            behind: [SIMD4<Float>](repeating: LZWLatitude.none, count: n), budget: budget)
        var lzw = LZWEncoder()
        let lossless = lzw.encode(data, minCodeSize: 6, policy: .whereCheapest)
        for policy in [LZWEncoder.Policy.whenFull, .whereCheapest] {
            var symbols = data
            let stream = lzw.encode(&symbols, minCodeSize: 6, policy: policy, latitude: latitude)
            #expect(lzwDecode(stream, minCodeSize: 6) == symbols)
            var moved = 0
            for j in 0..<n where symbols[j] != data[j] {
                moved += 1
                let e: SIMD4<Float> = lab[Int(symbols[j])] - lab[Int(data[j])]
                let d2: Float = (e * e).sum()
                #expect(budget[j] >= 0 && d2 <= budget[j], "pixel \(j): budget \(budget[j])")
            }
            #expect(moved > 0)
            if policy == .whereCheapest { #expect(stream.count < lossless.count) }
        }
    }

    /// A photo-like texture: lattice noise at two scales (smoothly interpolated) plus a little
    /// grain, over a slow colour drift.
    private func photoTexture(_ w: Int, _ h: Int, seed: Int) -> RGBAImage {
        func lattice(_ x: Int, _ y: Int, _ cell: Int, _ salt: Int) -> Double {
            let gx = x / cell, gy = y / cell
            let fx = Double(x % cell) / Double(cell), fy = Double(y % cell) / Double(cell)
            func v(_ i: Int, _ j: Int) -> Double { Double(hash(i + salt, j + seed * 7, 1000)) / 1000 }
            let top = v(gx, gy) * (1 - fx) + v(gx + 1, gy) * fx
            let bottom = v(gx, gy + 1) * (1 - fx) + v(gx + 1, gy + 1) * fx
            return top * (1 - fy) + bottom * fy
        }
        var img = RGBAImage(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let t: Double = 0.6 * lattice(x, y, 9, 11) + 0.3 * lattice(x, y, 3, 29) + 0.1 * Double(hash(x, y + seed, 100)) / 100
                let i = (y * w + x) * 4
                img.pixels[i] = UInt8(40 + t * 150 + Double(x) * 30 / Double(w))
                img.pixels[i + 1] = UInt8(60 + t * 120)
                img.pixels[i + 2] = UInt8(50 + t * 80 + Double(y) * 40 / Double(h))
                img.pixels[i + 3] = 255
            }
        }
        return img
    }

    @Test(
        "Looking one string ahead codes a photo in fewer bytes and no more error, each pixel within its budget, the stream exact",
        arguments: [(60, 0.97), (80, 0.99)])
    func lookahead(quality: Int, most: Double) throws {
        // A photo-like texture on the palette and with the budgets the quantizer gives it.
        let img = photoTexture(320, 240, seed: 3)
        let palette = GIFPalette.build(samples: [(img, 1)], count: quality < 70 ? 64 : 256)
        let (data, budget) = quantized(img, palette: palette, dither: .none, quality: GIFQuality(quality))
        let lab = GIFWriter.labTable(palette.colors)
        let n = data.count
        let latitude = LZWLatitude(
            symbolColors: lab, transparent: nil, target: data.map { lab[Int($0)] },
            behind: [SIMD4<Float>](repeating: LZWLatitude.none, count: n), budget: budget)
        func code(window: Int) -> (bytes: Int, error: Float) {
            var lzw = LZWEncoder()
            lzw.lookahead = window
            var symbols = data
            let stream = lzw.encode(&symbols, minCodeSize: 8, policy: .whereCheapest, latitude: latitude)
            #expect(lzwDecode(stream, minCodeSize: 8) == symbols)
            var error: Float = 0
            for j in 0..<n {
                let e: SIMD4<Float> = lab[Int(symbols[j])] - lab[Int(data[j])]
                let d2: Float = (e * e).sum()
                #expect(d2 <= latitude.budget[j], "window \(window), pixel \(j)")
                error += d2
            }
            return (stream.count, error)
        }
        let greedy = code(window: 0), ahead = code(window: 8)
        #expect(Double(ahead.bytes) < Double(greedy.bytes) * most, "\(ahead.bytes) against greedy \(greedy.bytes)")
        // Each choice allows no more error over its two strings than the greedy pair has; the
        // strings after a choice differ, so this holds for the whole picture only as measured
        // (here 9–22 % less error).
        #expect(ahead.error <= greedy.error, "\(ahead.error) against greedy \(greedy.error)")
    }

    @Test("Reusing the search made while looking ahead codes exactly as searching again", arguments: [0, 1, 2])
    func lookaheadReuse(seed: Int) throws {
        // Small palettes make strings often start with the pixel after them (where the reuse
        // must not happen); transparency and every kind of budget take every path.
        let colors: [RGBA8] = (0..<16).map { (k: Int) -> RGBA8 in
            RGBA8(r: UInt8(k * 16), g: UInt8(200 - k * 9), b: UInt8((k * 53) % 256))
        }
        let lab = GIFWriter.labTable(colors)
        let n = 50_000
        let data: [UInt8] = (0..<n).map { (j: Int) -> UInt8 in UInt8((hash(j / 3, seed, 4) + (j / 900) % 12) % 16) }
        let behind: [SIMD4<Float>] = (0..<n).map { (j: Int) -> SIMD4<Float> in
            hash(j, seed + 3, 5) == 0 ? lab[Int(data[j])] : LZWLatitude.none
        }
        let budget: [Float] = (0..<n).map { (j: Int) -> Float in [Float(-1), 0, 0.01, 0.05, 0.2][hash(j, seed + 9, 5)] }
        let latitude = LZWLatitude(
            symbolColors: lab, transparent: 15, target: data.map { lab[Int($0)] }, behind: behind, budget: budget)
        _ = expectSameCoding(data, latitude, minCodeSize: 4, switchedOff: "reuse") { $0.reusesLookahead = false }
    }

    @Test(
        "Skipping short branches once a search's inexact steps are spent codes exactly as walking them, in fewer steps",
        arguments: [10, 30])
    func skipsSpentBranches(quality: Int) throws {
        // A photo-like texture with the quantizer's budgets, wide enough at 10 and 30 that
        // searches often spend all their inexact steps (there, skipping from the start would
        // change what is found: this test then fails).
        let img = photoTexture(480, 320, seed: 5)
        let palette = GIFPalette.build(samples: [(img, 1)], count: 64)
        let (data, budget) = quantized(img, palette: palette, dither: .none, quality: GIFQuality(quality))
        let lab = GIFWriter.labTable(palette.colors)
        let latitude = LZWLatitude(
            symbolColors: lab, transparent: nil, target: data.map { lab[Int($0)] },
            behind: [SIMD4<Float>](repeating: LZWLatitude.none, count: data.count), budget: budget)
        let coders = expectSameCoding(data, latitude, minCodeSize: 8, switchedOff: "skipping") {
            $0.skipsSpentBranches = false
        }
        // Skipping must have happened for the comparison to mean anything.
        for (policy, skipping, walking) in coders {
            #expect(
                skipping.searchSteps < walking.searchSteps * 9 / 10,
                "\(policy): \(skipping.searchSteps) steps skipping, \(walking.searchSteps) walking")
        }
    }

    /// Whether the 3×3 window around (x, y) is one colour.
    private func flat(_ img: RGBAImage, _ x: Int, _ y: Int) -> Bool {
        for yy in max(0, y - 1)...min(img.height - 1, y + 1) {
            for xx in max(0, x - 1)...min(img.width - 1, x + 1) where img[xx, yy] != img[x, y] { return false }
        }
        return true
    }

    @Test("A latitude that allows no other symbol codes exactly as no latitude, so the writer may skip the lossy search")
    func noSubstitutes() throws {
        let colors: [RGBA8] = (0..<64).map { (k: Int) -> RGBA8 in
            RGBA8(r: UInt8(k * 4), g: UInt8(255 - k * 3), b: UInt8((k * 37) % 256))
        }
        let lab = GIFWriter.labTable(colors)
        let n = 30_000
        let data = (0..<n).map { UInt8(hash($0 / 3, 5, 64)) }
        let nothing = [SIMD4<Float>](repeating: LZWLatitude.none, count: n)
        // Budgets of 0 and -1 only, nothing on screen: no symbol can stand in for another.
        var latitude = LZWLatitude(
            symbolColors: lab, transparent: nil, target: data.map { lab[Int($0)] }, behind: nothing,
            budget: (0..<n).map { Float(-($0 % 2)) })
        #expect(!latitude.allowsSubstitutes)
        var lzw = LZWEncoder()
        for policy in [LZWEncoder.Policy.whenFull, .whereCheapest] {
            var symbols = data
            #expect(
                lzw.encode(&symbols, minCodeSize: 6, policy: policy, latitude: latitude) == lzw.encode(data, minCodeSize: 6, policy: policy)
            )
            #expect(symbols == data)
        }
        // A transparent symbol with nothing on screen shows nothing: still none.
        latitude.transparent = 63
        #expect(!latitude.allowsSubstitutes)
        // Something on screen behind one pixel, or one pixel's budget above zero: some.
        var behind = latitude
        behind.behind[7] = lab[3]
        #expect(behind.allowsSubstitutes)
        var budget = latitude
        budget.transparent = nil
        budget.budget[n - 1] = 0.01
        #expect(budget.allowsSubstitutes)
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
