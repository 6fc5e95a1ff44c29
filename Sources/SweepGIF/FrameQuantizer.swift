import SweepImaging

/// Turns RGBA frames into palette indices, touching only the pixels whose source colour
/// changed since the previous frame: a pixel that does not change never flickers.
struct FrameQuantizer {
    /// The palette frames are mapped to; a frame may switch it (a local colour table).
    var mapper: PaletteMapper
    let dither: DitherMode
    /// Extra colour error (in 8-bit RGB units) allowed to repeat a neighbour's index, which
    /// makes longer runs for LZW: smaller files for a bounded loss. 0 is lossless mapping.
    let lossy: Int
    let width: Int
    let height: Int
    /// Error rows for diffusion (current and next), reused across frames.
    private var err0: [Float]
    private var err1: [Float]

    init(mapper: PaletteMapper, dither: DitherMode, lossy: Int = 0, width: Int, height: Int) {
        self.mapper = mapper
        self.dither = dither
        self.lossy = lossy
        self.width = width
        self.height = height
        err0 = [Float](repeating: 0, count: (width + 2) * 3)
        err1 = err0
    }

    /// Diffusion strength in flat areas and in texture, and the activity (sum of absolute
    /// differences to the left and upper neighbours over R, G, B) at or below which a
    /// pixel counts as flat. Tuned on the benchmark pairs and the demo's gradients
    /// (Benchmarks/README.md).
    static let flatStrength: Float = 0.7
    static let texturedStrength: Float = 0.05
    static let flatActivity = 4

    /// The 8×8 Bayer matrix, built from [[0,2],[3,1]] level by level, centred on 0.
    static let bayer: [Float] = (0..<64).map { i in
        let x = i % 8, y = i / 8
        let base = [[0, 2], [3, 1]]
        var v = 0
        for level in 0..<3 {
            v += base[(y >> level) & 1][(x >> level) & 1] << (2 * (2 - level))
        }
        return (Float(v) + 0.5) / 64 - 0.5
    }

    /// Quantizes the pixels of `frame` inside `rect` for which `changed(x, y)` holds into
    /// `indices` (full-frame index map). Transparent pixels (alpha < 128) get the
    /// palette's transparent index.
    mutating func quantize(_ frame: RGBAImage, rect: PixelRect, changed: [Bool]?, into indices: inout [UInt8]) {
        let w = width
        let transparent = UInt8(mapper.palette.transparentIndex ?? 0)
        let hasTransparent = mapper.palette.transparentIndex != nil
        // Diffusion is strong where the source is flat (gradients band without it) and weak
        // where it is textured (the texture hides banding; dither there only adds noise
        // and bytes).
        let flatStrength = FrameQuantizer.flatStrength, texturedStrength = FrameQuantizer.texturedStrength
        frame.pixels.withUnsafeBufferPointer { px in
            for i in 0..<err0.count { err0[i] = 0; err1[i] = 0 }
            for y in rect.y..<(rect.y + rect.height) {
                // Serpentine only for diffusion, where it evens out the error's drift.
                let leftToRight = dither != .diffusion || (y & 1) == 0
                let xs = leftToRight ? Array(rect.x..<(rect.x + rect.width)) : Array((rect.x..<(rect.x + rect.width)).reversed())
                for x in xs {
                    let p = y * w + x
                    if let changed, !changed[p] { continue }
                    let o = p * 4
                    if hasTransparent && px[o + 3] < 128 { indices[p] = transparent; continue }
                    var r = Float(px[o]), g = Float(px[o + 1]), b = Float(px[o + 2])
                    switch dither {
                    case .none: break
                    case .ordered:
                        let t = FrameQuantizer.bayer[(y & 7) * 8 + (x & 7)] * 24
                        r += t; g += t; b += t
                    case .diffusion:
                        let e = (x - rect.x + 1) * 3
                        r += err0[e]; g += err0[e + 1]; b += err0[e + 2]
                    }
                    let ri = Int(max(0, min(255, r.rounded()))), gi = Int(max(0, min(255, g.rounded()))),
                        bi = Int(max(0, min(255, b.rounded())))
                    var k = mapper.index(ri, gi, bi)
                    var activity = 0
                    if x > 0 { for ch in 0..<3 { activity += abs(Int(px[o + ch]) - Int(px[o - 4 + ch])) } }
                    if y > 0 { for ch in 0..<3 { activity += abs(Int(px[o + ch]) - Int(px[o - w * 4 + ch])) } }
                    let flat = activity <= FrameQuantizer.flatActivity
                    // Lossy reuse only in texture: in flat gradients it would print bands.
                    if lossy > 0 && !flat {
                        // Reuse the previous pixel's or the one above's index when it is
                        // nearly as close: LZW then finds longer repeats.
                        let best = mapper.rgb[k]
                        @inline(__always) func err(_ c: (Float, Float, Float)) -> Float {
                            let dr = c.0 - r, dg = c.1 - g, db = c.2 - b
                            return dr * dr + dg * dg + db * db
                        }
                        let limit = err(best) + Float(lossy * lossy)
                        // Only neighbours mapped in this frame: older indices may belong to
                        // another frame's palette.
                        let prevX = x + (leftToRight ? -1 : 1)
                        if prevX >= 0 && prevX < w && (changed?[y * w + prevX] ?? true) {
                            let c = Int(indices[y * w + prevX])
                            if c != k && c < mapper.rgb.count && err(mapper.rgb[c]) <= limit { k = c }
                        }
                        if y > 0 && (changed?[(y - 1) * w + x] ?? true) && (prevX < 0 || prevX >= w || k != Int(indices[y * w + prevX])) {
                            let c = Int(indices[(y - 1) * w + x])
                            if c != k && c < mapper.rgb.count && err(mapper.rgb[c]) <= limit { k = c }
                        }
                    }
                    indices[p] = UInt8(k)
                    if dither == .diffusion {
                        let c = mapper.rgb[k]
                        let strength = flat ? flatStrength : texturedStrength
                        // Clamp the carried error so saturated regions do not smear.
                        let er = max(-48, min(48, (r - c.0) * strength)), eg = max(-48, min(48, (g - c.1) * strength)),
                            eb = max(-48, min(48, (b - c.2) * strength))
                        let e = (x - rect.x + 1) * 3
                        let fwd = leftToRight ? 3 : -3
                        // Floyd–Steinberg: 7/16 ahead, 3/16 behind-below, 5/16 below, 1/16 ahead-below.
                        if x + (leftToRight ? 1 : -1) >= rect.x && x + (leftToRight ? 1 : -1) < rect.x + rect.width {
                            err0[e + fwd] += er * 7 / 16; err0[e + fwd + 1] += eg * 7 / 16; err0[e + fwd + 2] += eb * 7 / 16
                        }
                        err1[e] += er * 5 / 16; err1[e + 1] += eg * 5 / 16; err1[e + 2] += eb * 5 / 16
                        if e - fwd >= 0 && e - fwd + 2 < err1.count {
                            err1[e - fwd] += er * 3 / 16; err1[e - fwd + 1] += eg * 3 / 16; err1[e - fwd + 2] += eb * 3 / 16
                        }
                        if e + fwd >= 0 && e + fwd + 2 < err1.count {
                            err1[e + fwd] += er / 16; err1[e + fwd + 1] += eg / 16; err1[e + fwd + 2] += eb / 16
                        }
                    }
                }
                swap(&err0, &err1)
                for i in 0..<err1.count { err1[i] = 0 }
            }
        }
    }
}
