import SweepImaging

#if canImport(Glibc)
    import Glibc
#endif

/// A GIF colour table of at most 256 entries, built for a whole animation.
///
/// Built in OkLab from a histogram weighted by screen time: median cut for a start, then
/// k-means to refine. Reserved colours (the overlay's white and so on) are kept exactly.
/// When `transparentIndex` is set, that entry is never used for a visible colour.
package struct GIFPalette: Sendable {
    /// The visible colours, in index order.
    package let colors: [RGBA8]
    /// The index that stands for "transparent / unchanged", if one is reserved.
    package let transparentIndex: Int?
    /// True when the palette holds every colour of the content exactly.
    package let isExact: Bool
    let lab: [OkLab]

    /// Wraps a ready colour list.
    package init(colors: [RGBA8], transparentIndex: Int?, isExact: Bool = false) {
        self.colors = colors
        self.transparentIndex = transparentIndex
        self.isExact = isExact
        lab = colors.map { OkLab(r: Float($0.r), g: Float($0.g), b: Float($0.b)) }
    }

    /// Table size rounded up to a power of two, as GIF requires.
    var tableSize: Int {
        Self.tableSize(for: colors.count + (transparentIndex == nil ? 0 : 1))
    }

    /// Entries in a GIF colour table holding `entries` entries: a power of two, at least 2.
    static func tableSize(for entries: Int) -> Int {
        var n = 2
        while n < entries { n *= 2 }
        return n
    }

    /// Builds a palette of `count` entries (2…256; 3 for `count` 2 with a transparent entry,
    /// see below) from weighted sample images.
    ///
    /// - Parameters:
    ///   - samples: images with their weights (screen time); sampled on a sparse grid.
    ///   - count: total entries including the transparent one when `transparent` is set, but
    ///     at least two visible colours (`--colors 2` means two colours, not one and the
    ///     transparent entry).
    ///   - reserved: colours that must be present exactly.
    ///   - iterations: k-means passes after median cut.
    package static func build(
        samples: [(image: RGBAImage, weight: Double)], count: Int,
        reserved: [RGBA8] = [], transparent: Bool = true, iterations: Int = 6
    ) -> GIFPalette {
        let visible = max(2, min(256, count) - (transparent ? 1 : 0))
        let fixed = Array(Set(reserved.map { RGBA8(r: $0.r, g: $0.g, b: $0.b) })).sorted { ($0.r, $0.g, $0.b) < ($1.r, $1.g, $1.b) }
        let fixedCount = min(fixed.count, visible)
        // Content with few colours (flat artwork, screenshots) gets them exactly.
        if let exact = exactColors(samples, limit: visible - fixedCount) {
            let extra = exact.filter { !fixed.contains($0) }
            let colors = Array(fixed.prefix(fixedCount)) + extra
            return GIFPalette(
                colors: colors.isEmpty ? [.black] : colors, transparentIndex: transparent ? max(1, colors.count) : nil,
                isExact: true)
        }
        var points: [OkLab] = []
        var rgbs: [(Float, Float, Float)] = []
        var weights: [Float] = []
        /// Each point's heaviest exact colour and its weight.
        var majors: [(color: UInt32, weight: Double)] = []
        if let exact = exactHistogram(samples, limit: Self.exactPoints) {
            // Few enough distinct colours (screenshots, flat art with gradients): cluster the
            // colours themselves, so that near-equal greys (254 and 255) stay apart.
            for (key, w) in exact {
                let rgb = (Float(key >> 16), Float((key >> 8) & 0xff), Float(key & 0xff))
                rgbs.append(rgb)
                points.append(OkLab(r: rgb.0, g: rgb.1, b: rgb.2))
                weights.append(Float(w))
                majors.append((key, w))
            }
        } else {
            let (sums, major, majorWeight) = binnedHistogram(samples)
            for bin in 0..<32768 where sums[bin * 4 + 3] > 0 {
                let w = sums[bin * 4 + 3]
                let rgb = (Float(sums[bin * 4] / w), Float(sums[bin * 4 + 1] / w), Float(sums[bin * 4 + 2] / w))
                rgbs.append(rgb)
                points.append(OkLab(r: rgb.0, g: rgb.1, b: rgb.2))
                weights.append(Float(w))
                majors.append((major[bin], majorWeight[bin]))
            }
        }
        let free = visible - fixedCount
        var centroids = medianCut(points: points, weights: weights, boxes: min(free, points.count))
        let fixedLab = fixed.prefix(fixedCount).map { OkLab(r: Float($0.r), g: Float($0.g), b: Float($0.b)) }
        centroids = kMeans(points: points, weights: weights, centroids: centroids, fixed: Array(fixedLab), iterations: iterations)
        // Each free centroid becomes the weighted mean sRGB colour of its members.
        // A centroid whose heaviest exact colour holds most of its weight becomes that colour.
        var assigned = [(Double, Double, Double, Double)](repeating: (0, 0, 0, 0), count: centroids.count)
        var heaviest = [(weight: Double, color: UInt32)](repeating: (0, 0), count: centroids.count)
        let all = LightnessSearch(Array(fixedLab) + centroids)
        for (k, p) in points.enumerated() {
            let j = all.nearest(p)
            if j < fixedLab.count { continue }
            let w = Double(weights[k])
            if majors[k].weight > heaviest[j - fixedLab.count].weight { heaviest[j - fixedLab.count] = (majors[k].weight, majors[k].color) }
            assigned[j - fixedLab.count].0 += w * Double(rgbs[k].0)
            assigned[j - fixedLab.count].1 += w * Double(rgbs[k].1)
            assigned[j - fixedLab.count].2 += w * Double(rgbs[k].2)
            assigned[j - fixedLab.count].3 += w
        }
        var colors = Array(fixed.prefix(fixedCount))
        for (a, h) in zip(assigned, heaviest) where a.3 > 0 {
            var c = RGBA8(r: UInt8((a.0 / a.3).rounded()), g: UInt8((a.1 / a.3).rounded()), b: UInt8((a.2 / a.3).rounded()))
            if h.weight * 2 > a.3 { c = RGBA8(r: UInt8(h.color >> 16), g: UInt8((h.color >> 8) & 0xff), b: UInt8(h.color & 0xff)) }
            if !colors.contains(c) { colors.append(c) }
        }
        if colors.isEmpty { colors = [.black] }
        return GIFPalette(colors: colors, transparentIndex: transparent ? colors.count : nil)
    }

    /// What the samples after the first show unlike the first, as samples of their own: each
    /// later one with the pixels it shares with the first made transparent (the histograms
    /// skip them), at its weight. Spread evenly over an animation's time, they weigh what its
    /// later frames write by how long it stays on screen: the part of the after picture that
    /// a wipe uncovers first counts most. A sample of weight 0 (the last frame) only counts
    /// for what comes back. Nil when no later sample of weight differs from the first, when
    /// one differs in size, or when pixels come back to the first sample's colours after a
    /// change (a split moving back, a boomerang, a look easing back) as often as
    /// ``returningShare`` of a frame's pixels or more, over all the samples: those are written
    /// again and must find their colours in the later frames' table.
    package static func changes(since samples: [(image: RGBAImage, weight: Double)]) -> [(image: RGBAImage, weight: Double)]? {
        guard let first = samples.first?.image else { return nil }
        var later: [(image: RGBAImage, weight: Double)] = []
        let count = first.width * first.height
        // Per pixel: whether it differs from the first sample now, and since when it has.
        var differs = [Bool](repeating: false, count: count), changed = differs
        var any = false, returning = 0
        for (sample, weight) in samples.dropFirst() {
            guard sample.width == first.width, sample.height == first.height else { return nil }
            for i in 0..<count { differs[i] = false }
            _ = FrameChanges.diff(first.pixels, sample.pixels, width: first.width, height: first.height, marks: &differs)
            var image = sample
            image.pixels.withUnsafeMutableBufferPointer { p in
                for i in 0..<count {
                    if differs[i] {
                        changed[i] = true
                        if p[i * 4 + 3] >= 128 && weight > 0 { any = true }
                    } else {
                        p[i * 4 + 3] = 0
                        if changed[i] { returning += 1; changed[i] = false }
                    }
                }
            }
            later.append((image, weight))
        }
        guard Double(returning) < returningShare * Double(count) else { return nil }
        return any ? later : nil
    }

    /// How many pixels coming back to the first frame's colours, over all samples, as a share
    /// of one frame's pixels, make the global table hold them (``changes(since:)``): an
    /// anti-aliased edge or the knob passing back over a few pixels does not count (0.01–0.3 %
    /// in a review's renders; a spring's overshoot 0.6 %; a ping-pong, the demo, `bouncy` and a
    /// look easing back 2.5 % and up).
    static let returningShare = 0.01

    /// How many entries a palette for `samples` gets at `quality`, at most `cap` (`--colors`):
    /// halved ``GIFQuality/flatPaletteHalvings`` times for any picture (below 60), and for a
    /// photo ``GIFQuality/paletteHalvings`` times (below 80) in proportion to how textured it
    /// is (full from ``photoTexture``); never below 16. A textured picture of few colours
    /// (a posterized photo) is halved too: below 90 its palette is lossy anyway, and its
    /// grain hides the coarser steps as a photo's does. One of fewer colours than the
    /// halved count still keeps them exactly (``build``).
    package static func entries(
        for samples: [(image: RGBAImage, weight: Double)], quality: GIFQuality, cap: Int
    ) -> Int {
        var halvings = quality.flatPaletteHalvings
        if quality.paletteHalvings > halvings {
            let textured = texturedShare(samples)
            let weight = max(0, min(1, (textured - photoTexture.lowerBound) / (photoTexture.upperBound - photoTexture.lowerBound)))
            halvings = max(halvings, quality.paletteHalvings * weight)
        }
        guard halvings > 0 else { return cap }
        let entries = Int((256 / exp2(halvings)).rounded())
        return min(cap, max(16, entries))
    }

    /// The share of textured pixels (as ``FrameQuantizer`` measures texture) from which a
    /// picture starts to count as a photo, and from which it fully does. The benchmark's
    /// photos measure 0.83–0.94 (a sky's JPEG grain counts), a photo of about 220 colours
    /// 0.57, its screenshots 0.07–0.12 and its gradients 0.002; held-out web pages measure
    /// 0.10–0.23, and one half filled by a photo 0.46. With a threshold of 0.6 the posterized
    /// photo would get a full palette below 80 and need 1.00–1.06× the peer's bytes for its
    /// S-CIELAB ΔE; from 0.4 up, 0.83–0.98 (docs/decisions/gif-encoder.md).
    static let photoTexture = 0.4...0.6

    /// Whether the samples start to count as a photo (``photoTexture``): textured enough that
    /// finer colours cost little more than the texture does already. Screenshots, gradients
    /// and flat art do not.
    package static func isTextured(_ samples: [(image: RGBAImage, weight: Double)]) -> Bool {
        texturedShare(samples) >= photoTexture.lowerBound
    }

    /// The share of textured pixels in the samples, on a sparse grid (every 7th pixel both ways).
    static func texturedShare(_ samples: [(image: RGBAImage, weight: Double)]) -> Double {
        var textured = 0.0, total = 0.0
        for (image, weight) in samples where weight > 0 && image.width > 1 && image.height > 1 {
            image.pixels.withUnsafeBufferPointer { px in
                for y in stride(from: 1, to: image.height, by: 7) {
                    for x in stride(from: 1, to: image.width, by: 7) {
                        total += weight
                        if FrameQuantizer.activity(px, x: x, y: y, width: image.width) > FrameQuantizer.flatActivity {
                            textured += weight
                        }
                    }
                }
            }
        }
        return total > 0 ? textured / total : 0
    }

    /// Most distinct colours clustered as themselves; beyond it, 5-bit bins.
    static let exactPoints = 16384

    /// Visits the opaque pixels of the samples on the sparse grid the histograms use.
    private static func forEachSample(
        _ samples: [(image: RGBAImage, weight: Double)], _ body: (_ r: Int, _ g: Int, _ b: Int, _ weight: Double) -> Bool
    ) {
        for (image, weight) in samples where weight > 0 {
            let step = max(1, Int((Double(image.width * image.height) / 400_000).squareRoot()))
            let go = image.pixels.withUnsafeBufferPointer { p -> Bool in
                for y in stride(from: 0, to: image.height, by: step) {
                    for x in stride(from: 0, to: image.width, by: step) {
                        let i = (y * image.width + x) * 4
                        if p[i + 3] < 128 { continue }
                        if !body(Int(p[i]), Int(p[i + 1]), Int(p[i + 2]), weight) { return false }
                    }
                }
                return true
            }
            if !go { return }
        }
    }

    /// The weighted histogram of exact colours, or nil when there are more than `limit`.
    static func exactHistogram(_ samples: [(image: RGBAImage, weight: Double)], limit: Int) -> [(UInt32, Double)]? {
        // Open addressing on colour + 1 (0 = empty), twice the limit in slots.
        var size = 1
        while size < limit * 2 { size <<= 1 }
        var keys = [UInt32](repeating: 0, count: size)
        var sums = [Double](repeating: 0, count: size)
        var count = 0
        var overflow = false
        forEachSample(samples) { r, g, b, weight in
            let key = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b) + 1
            var slot = Int((key &* 2_654_435_761) >> 7) & (size - 1)
            while keys[slot] != 0 && keys[slot] != key { slot = (slot + 1) & (size - 1) }
            if keys[slot] == 0 {
                count += 1
                if count > limit { overflow = true; return false }
                keys[slot] = key
            }
            sums[slot] += weight
            return true
        }
        if overflow { return nil }
        return (0..<size).filter { keys[$0] != 0 }.map { (keys[$0] - 1, sums[$0]) }.sorted { $0.0 < $1.0 }
    }

    /// The weighted histogram on 5 bits per channel (each bin's weighted sums of r, g, b and
    /// its weight), with each bin's most frequent exact colour (a majority vote, then
    /// counted) and that colour's weight: a flat area must get its own colour exactly, not
    /// the mean of it and its anti-aliased neighbours, or the whole area is a little off.
    static func binnedHistogram(_ samples: [(image: RGBAImage, weight: Double)]) -> ([Double], [UInt32], [Double]) {
        var sums = [Double](repeating: 0, count: 32768 * 4)
        var major = [UInt32](repeating: 0, count: 32768)
        var vote = [Double](repeating: 0, count: 32768)
        forEachSample(samples) { r, g, b, weight in
            let k = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
            sums[k * 4] += weight * Double(r); sums[k * 4 + 1] += weight * Double(g)
            sums[k * 4 + 2] += weight * Double(b); sums[k * 4 + 3] += weight
            let key = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
            if major[k] == key {
                vote[k] += weight
            } else if vote[k] <= 0 {
                (major[k], vote[k]) = (key, weight)
            } else {
                vote[k] -= weight
            }
            return true
        }
        var majorWeight = [Double](repeating: 0, count: 32768)
        forEachSample(samples) { r, g, b, weight in
            let k = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
            if major[k] == UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b) { majorWeight[k] += weight }
            return true
        }
        return (sums, major, majorWeight)
    }

    /// Every distinct opaque colour of the samples, if there are at most `limit`.
    ///
    /// Every pixel of every sample is looked at (an exact picture's dozen 720² samples), so
    /// colours are marked in a bit per RGB value (2 MB, its untouched pages never mapped)
    /// rather than hashed into a set, and a run of one colour is looked up once.
    static func exactColors(_ samples: [(image: RGBAImage, weight: Double)], limit: Int) -> [RGBA8]? {
        var bits = [UInt64](repeating: 0, count: 1 << 18)
        var seen: [UInt32] = []
        for (image, weight) in samples where weight > 0 {
            let stop = image.pixels.withUnsafeBufferPointer { p -> Bool in
                bits.withUnsafeMutableBufferPointer { bits in
                    var i = 0
                    var last = UInt32.max
                    while i < p.count {
                        if p[i + 3] >= 128 {
                            let key = UInt32(p[i]) << 16 | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2])
                            if key != last {
                                last = key
                                let word = Int(key >> 6), bit = UInt64(1) << (key & 63)
                                if bits[word] & bit == 0 {
                                    bits[word] |= bit
                                    seen.append(key)
                                    if seen.count > limit { return true }
                                }
                            }
                        }
                        i += 4
                    }
                    return false
                }
            }
            if stop { return nil }
        }
        return seen.sorted().map { RGBA8(r: UInt8($0 >> 16), g: UInt8(($0 >> 8) & 0xff), b: UInt8($0 & 0xff)) }
    }

    /// Splits the box with the most weighted variance at its weighted median until there
    /// are `boxes` boxes; returns their weighted means.
    static func medianCut(points: [OkLab], weights: [Float], boxes: Int) -> [OkLab] {
        guard boxes > 0, !points.isEmpty else { return [] }
        var groups: [[Int]] = [Array(points.indices)]
        func stats(_ g: [Int]) -> (mean: OkLab, axis: Int, score: Float) {
            var w: Float = 0, m = (Float(0), Float(0), Float(0))
            for i in g { let p = points[i]; let wi = weights[i]; w += wi; m.0 += wi * p.l; m.1 += wi * p.a; m.2 += wi * p.b }
            m = (m.0 / w, m.1 / w, m.2 / w)
            var v = (Float(0), Float(0), Float(0))
            for i in g {
                let p = points[i]; let wi = weights[i]
                v.0 += wi * (p.l - m.0) * (p.l - m.0); v.1 += wi * (p.a - m.1) * (p.a - m.1); v.2 += wi * (p.b - m.2) * (p.b - m.2)
            }
            let axis = v.0 >= v.1 && v.0 >= v.2 ? 0 : (v.1 >= v.2 ? 1 : 2)
            return (OkLab(l: m.0, a: m.1, b: m.2), axis, g.count > 1 ? v.0 + v.1 + v.2 : -1)
        }
        var info = [stats(groups[0])]
        while groups.count < boxes {
            guard let k = info.indices.max(by: { info[$0].score < info[$1].score }), info[k].score > 0 else { break }
            let axis = info[k].axis
            let sorted = groups[k].sorted {
                let a = points[$0], b = points[$1]
                return axis == 0 ? a.l < b.l : (axis == 1 ? a.a < b.a : a.b < b.b)
            }
            let total = sorted.reduce(Float(0)) { $0 + weights[$1] }
            var acc: Float = 0, cut = 1
            for (n, i) in sorted.enumerated() {
                acc += weights[i]
                if acc >= total / 2 { cut = max(1, min(sorted.count - 1, n + 1)); break }
            }
            groups[k] = Array(sorted[..<cut]); info[k] = stats(groups[k])
            let rest = Array(sorted[cut...]); groups.append(rest); info.append(stats(rest))
        }
        return info.map(\.mean)
    }

    /// Lloyd iterations on weighted points; `fixed` centroids attract points but never move.
    static func kMeans(points: [OkLab], weights: [Float], centroids: [OkLab], fixed: [OkLab], iterations: Int) -> [OkLab] {
        var cs = centroids
        guard !cs.isEmpty else { return cs }
        for _ in 0..<iterations {
            var acc = [(Float, Float, Float, Float)](repeating: (0, 0, 0, 0), count: cs.count)
            let all = LightnessSearch(fixed + cs)
            for (k, p) in points.enumerated() {
                let j = all.nearest(p) - fixed.count
                if j < 0 { continue }
                let w = weights[k]
                acc[j].0 += w * p.l; acc[j].1 += w * p.a; acc[j].2 += w * p.b; acc[j].3 += w
            }
            for j in cs.indices where acc[j].3 > 0 {
                cs[j] = OkLab(l: acc[j].0 / acc[j].3, a: acc[j].1 / acc[j].3, b: acc[j].2 / acc[j].3)
            }
        }
        return cs
    }
}
