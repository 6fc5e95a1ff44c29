import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@testable import SweepGIF

/// A fixed hash in 0..<n: the same "noise" on every run.
func hash(_ x: Int, _ y: Int, _ n: Int) -> Int {
    let h = (UInt32(truncatingIfNeeded: x &* 73_856_093) ^ UInt32(truncatingIfNeeded: y &* 19_349_663)) &* 2_654_435_761
    return Int((h ^ (h >> 13)) % UInt32(n))
}

/// `img` quantized whole to `palette` at `quality`: its indices, and the lossy LZW budget the
/// quantizer gives each pixel (squared OkLab distances).
func quantized(
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
func lossyBudgets(_ img: RGBAImage, quality: GIFQuality) -> [Float] {
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
func mixed(_ w: Int, _ h: Int, seed: Int = 0) -> RGBAImage {
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
}
