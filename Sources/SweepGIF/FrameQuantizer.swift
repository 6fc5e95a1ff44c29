import SweepImaging

/// Turns RGBA frames into palette indices, touching only the pixels whose source colour
/// changed since the previous frame: a pixel that does not change never flickers.
struct FrameQuantizer {
    /// The palette frames are mapped to; a frame may switch it (a local colour table).
    var mapper: PaletteMapper
    let dither: DitherMode
    /// The lossy LZW error budget at full texture, as an OkLab distance (0 = lossless).
    let lzwBudget: Float
    /// Share of the diffusion strength used in smooth areas (``GIFQuality/ditherScale``).
    let ditherScale: Float
    /// Share of the textured strength used in texture (``GIFQuality/textureDitherScale``).
    let textureDitherScale: Float
    /// Share of full diffusion used in the texture of a noisy picture (``GIFQuality/noiseDitherScale``).
    let noiseDitherScale: Float
    /// Diffusion strength in texture where the palette is visibly off (``GIFQuality/textureGapDitherScale``),
    /// and the distances that set how far off that is (``GIFQuality/textureDitherThresholds``).
    let textureGapDitherScale: Float
    let textureDitherThresholds: (Float, Float)
    /// The lossy LZW budget where no texture masks the error (``GIFQuality/smoothBudget``).
    let smoothBudget: Float
    /// Below the first distance (RGB levels) from the source to its nearest entry a smooth
    /// pixel is not dithered; from the second on, fully (``GIFQuality/ditherThresholds``).
    let ditherThresholds: (Float, Float)
    let width: Int
    let height: Int
    /// Per pixel of the last quantized pixels: the squared OkLab error the LZW coder may add
    /// there (``LZWLatitude/budget``), from the texture around the pixel in the source and
    /// how long it stays on screen (``screenTime``).
    private(set) var budget: [Float]
    /// How long the next frame's pixels stay on screen (``ScreenTime``): their budgets scale
    /// with it. Nil keeps every budget as the texture sets it.
    var screenTime: ScreenTime?
    /// Per pixel of the last quantized pixels, its latitude's code (``latitudeCode``), kept
    /// only while ``records`` (empty otherwise).
    private(set) var codes: [UInt8] = []
    /// Whether ``codes`` are kept: a recording (``QuantizedFrames``) needs them.
    var records: Bool {
        get { !codes.isEmpty }
        set { codes = newValue ? [UInt8](repeating: 0, count: width * height) : [] }
    }

    /// Error rows for diffusion (current and next), reused across frames.
    private var err0: [Float]
    private var err1: [Float]

    /// The overlay's colours (RGB, as `r << 16 | g << 8 | b`): a pixel of one of them is
    /// drawn exactly, and no pixel next to one may stray (the knob, the divider and the
    /// tags' text keep their pixels and their anti-aliased rims).
    let protected: [UInt32]

    init(
        mapper: PaletteMapper, dither: DitherMode, lzwBudget: Float = 0, quality: GIFQuality = .init(100),
        protected: [RGBA8] = [], width: Int, height: Int
    ) {
        self.protected = protected.map { UInt32($0.r) << 16 | UInt32($0.g) << 8 | UInt32($0.b) }
        self.mapper = mapper
        self.dither = dither
        self.lzwBudget = lzwBudget
        ditherScale = quality.ditherScale
        textureDitherScale = quality.textureDitherScale
        noiseDitherScale = quality.noiseDitherScale
        textureGapDitherScale = quality.textureGapDitherScale
        textureDitherThresholds = quality.textureDitherThresholds
        smoothBudget = min(lzwBudget, quality.smoothBudget)
        ditherThresholds = quality.ditherThresholds
        self.width = width
        self.height = height
        budget = [Float](repeating: 0, count: width * height)
        err0 = [Float](repeating: 0, count: (width + 2) * 3)
        err1 = err0
    }

    /// Diffusion strength in flat areas and in texture (at full scale, see ``GIFQuality``), and
    /// the activity (sum of absolute differences to the left and upper neighbours over R, G,
    /// B) at or below which a pixel counts as flat. Tuned on the benchmark pairs and the
    /// demo's gradients (docs/decisions/gif-encoder.md).
    static let flatStrength: Float = 0.7
    static let texturedStrength: Float = 0.2
    static let flatActivity = 4

    /// A noisy picture (a high-ISO photo, the "before" of a restoration) is grainy everywhere:
    /// the 10th percentile of the activity of a frame's changed pixels (its noise floor) is
    /// high, where a clean photo's smoothest tenth is nearly flat. From quality 80 to 99 such a
    /// frame's texture is then dithered at full strength (rising from 71; none at 100), where a
    /// clean frame's texture gets weak diffusion around 80, and from 90 up diffusion only where
    /// the palette is far off (``GIFQuality/textureGapDitherScale``): the noise is
    /// incompressible anyway (a noisy frame grows about 1 %), and weak diffusion lets each
    /// area's mean colour drift (S-CIELAB ΔE 1.24 on a noisy photo's side at quality 90 with
    /// weak diffusion, 0.73 dithered fully, for SSIM 0.809 instead of 0.842). Floors measured
    /// at 720²: noisy photos 27–37, clean ones 0–6, a photo textured all over 10–12
    /// (docs/decisions/gif-encoder.md). From the first floor to the second the strength rises
    /// to full.
    static let noiseFloors = (clean: 12, noisy: 24)

    /// The 10th percentile of the activity of `rect`'s pixels for which `changed` holds (all
    /// when nil), from `act` (``activity``) measured over `area`, capped at one above
    /// ``noiseFloors``' noisy end (nothing above it matters); 0 when no pixel counts. Pixels of
    /// an overlay colour (`protected`) do not count: the divider and the knob are flat, and in
    /// a narrow strip of a wipe they would hide the noise around them.
    static func noiseFloor(
        _ act: UnsafeBufferPointer<Int32>, _ area: PixelRect, _ rect: PixelRect, changed: [Bool]?, width: Int,
        pixels px: UnsafeBufferPointer<UInt8>, protected: [UInt32]
    ) -> Int {
        let top = noiseFloors.noisy + 1
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: top + 1) { counts in
            counts.initialize(repeating: 0)
            var total = 0
            for y in rect.y..<(rect.y + rect.height) {
                let row = (y - area.y) * area.width - area.x
                for x in rect.x..<(rect.x + rect.width) {
                    let p = y * width + x
                    if let changed, !changed[p] { continue }
                    if !protected.isEmpty && isOverlay(px, protected, p * 4) { continue }
                    counts[min(top, Int(act[row + x]))] += 1
                    total += 1
                }
            }
            guard total > 0 else { return 0 }
            var seen = 0
            for level in 0..<top {
                seen += counts[level]
                if seen * 10 >= total { return level }
            }
            return top
        }
    }

    /// Activity (as ``flatActivity``) below which a pixel's neighbourhood gives the lossy
    /// coder no latitude, and the span over which the latitude grows to the full budget.
    static let maskFloor = 1
    static let maskRange: Float = 6

    /// Text and rules on flat UI fills are all edges, so the 3×3 measure takes them for
    /// texture; but an error there is plain to see. A pixel with at least ``edgeFlatCount``
    /// exactly flat pixels (activity 0) within ``edgeReach`` of it is such an edge, and the
    /// lossy coder treats it as unmasked. Photos almost never have exactly flat pixels: on
    /// the five benchmark photo pairs this takes back at most 3 % of their texture, on the UI
    /// pair 83–87 % (docs/decisions/gif-encoder.md).
    static let edgeReach = 4
    static let edgeFlatCount: Int32 = 6

    /// Activity (as ``flatActivity``) of each pixel of a rectangle, the sum over R, G, B of
    /// its absolute differences to its left and upper neighbours (those inside the picture),
    /// followed by the summed-area table of its exactly flat pixels (one row and column
    /// longer). Computed once per frame, it serves the pixel itself and its neighbours.
    private var activity: [Int32] = []

    /// The activity of the pixel at (x, y) of a picture `width` pixels wide: the sum over R,
    /// G, B of its absolute differences to its left and upper neighbours (those inside it).
    @inline(__always)
    static func activity(_ px: UnsafeBufferPointer<UInt8>, x: Int, y: Int, width: Int) -> Int32 {
        let o = (y * width + x) * 4
        var a: Int32 = 0
        for ch in 0..<3 {
            if x > 0 { a &+= Int32(abs(Int(px[o + ch]) - Int(px[o - 4 + ch]))) }
            if y > 0 { a &+= Int32(abs(Int(px[o + ch]) - Int(px[o - width * 4 + ch]))) }
        }
        return a
    }

    /// The noise floor of `rect` of `frame` over the pixels for which `changed` holds (see
    /// ``noiseFloors``), as ``quantize(_:rect:changed:history:into:)`` measures it.
    mutating func measuredNoiseFloor(_ frame: RGBAImage, rect: PixelRect, changed: [Bool]?) -> Int {
        frame.pixels.withUnsafeBufferPointer { px in measureActivity(px, rect) }
        return noiseFloor(of: frame, area: rect, rect: rect, changed: changed)
    }

    /// ``noiseFloor(_:_:_:changed:width:pixels:protected:)`` of `rect` of `frame`, from
    /// ``activity`` as last measured over `area`.
    private func noiseFloor(of frame: RGBAImage, area: PixelRect, rect: PixelRect, changed: [Bool]?) -> Int {
        frame.pixels.withUnsafeBufferPointer { px in
            activity.withUnsafeBufferPointer { act in
                Self.noiseFloor(act, area, rect, changed: changed, width: width, pixels: px, protected: protected)
            }
        }
    }

    /// Fills ``activity`` for `area` (which lies inside the picture), row by row.
    private mutating func measureActivity(_ px: UnsafeBufferPointer<UInt8>, _ area: PixelRect) {
        let w = width
        let count = area.width * area.height, sumsCount = (area.width + 1) * (area.height + 1)
        if activity.count < count + sumsCount { activity = [Int32](repeating: 0, count: count + sumsCount) }
        activity.withUnsafeMutableBufferPointer { act in
            let sums = UnsafeMutableBufferPointer(rebasing: act[count..<(count + sumsCount)])
            let sw = area.width + 1
            for i in 0..<sw { sums[i] = 0 }
            for y in area.y..<(area.y + area.height) {
                let row = (y - area.y) * area.width - area.x
                let sumRow = (y - area.y + 1) * sw - area.x + 1
                sums[sumRow + area.x - 1] = 0
                var rowFlat: Int32 = 0
                for x in area.x..<(area.x + area.width) {
                    let a = Self.activity(px, x: x, y: y, width: w)
                    act[row + x] = a
                    if a == 0 { rowFlat += 1 }
                    sums[sumRow + x] = sums[sumRow + x - sw] + rowFlat
                }
            }
        }
    }

    /// Whether the pixel at (x, y) is an edge of flat colour (``edgeFlatCount``), from the
    /// summed-area table in ``activity`` over `area`.
    @inline(__always)
    static func isFlatEdge(_ act: UnsafeMutableBufferPointer<Int32>, _ area: PixelRect, x: Int, y: Int) -> Bool {
        let sums = area.width * area.height, sw = area.width + 1
        let x0 = max(area.x, x - edgeReach) - area.x, x1 = min(area.x + area.width, x + edgeReach + 1) - area.x
        let y0 = max(area.y, y - edgeReach) - area.y, y1 = min(area.y + area.height, y + edgeReach + 1) - area.y
        let n = act[sums + y1 * sw + x1] - act[sums + y0 * sw + x1] - act[sums + y1 * sw + x0] + act[sums + y0 * sw + x0]
        return n >= edgeFlatCount
    }

    /// The least and the most activity among a pixel and its neighbours (the eight, fewer at
    /// the picture's border), from ``activity`` over `area`: the least is high only inside
    /// texture, low on an isolated edge (its flat sides are in the window); the most is 0
    /// only in a flat patch.
    @inline(__always)
    static func activityRange(
        _ act: UnsafeMutableBufferPointer<Int32>, _ area: PixelRect, x: Int, y: Int, width: Int, height: Int
    ) -> (least: Int, most: Int) {
        var least = Int32.max, most: Int32 = 0
        for yy in max(0, y - 1)...min(height - 1, y + 1) {
            let row = (yy - area.y) * area.width - area.x
            for xx in max(0, x - 1)...min(width - 1, x + 1) {
                let a = act[row + xx]
                least = min(least, a)
                most = max(most, a)
            }
        }
        return (Int(least), Int(most))
    }

    /// Rules, borders and the edges of panels on a UI page: a pixel whose exact colour (one
    /// the palette holds) runs down at least ``lineRun`` rows (itself included), and that
    /// differs from a neighbour in its row by at least ``lineContrast`` (the sum over R, G, B),
    /// gets no lossy budget. The coder reads rows, so a vertical line is a pixel or two in
    /// each, where taking the neighbours' colour saves a code per row and breaks the line: a
    /// sidebar's border 3 levels off white lost 501 of its 720 pixels at quality 90. Lines
    /// along a row are runs the dictionary matches exactly anyway; a glyph's stem is shorter; a
    /// gradient's contours step by a level or two and keep their budget
    /// (docs/decisions/gif-encoder.md).
    static let lineRun = 16
    static let lineContrast = 6

    /// Whether the pixel at offset `p` (row `y`, column `x`) of a picture `width` × `height`
    /// is on such an edge (see ``lineRun``).
    @inline(__always)
    static func onVerticalEdge(_ px: UnsafeBufferPointer<UInt8>, _ p: Int, x: Int, y: Int, width: Int, height: Int) -> Bool {
        let raw = UnsafeRawBufferPointer(px)
        func at(_ q: Int) -> UInt32 { raw.loadUnaligned(fromByteOffset: q * 4, as: UInt32.self) }
        let c = at(p)
        var n = 1, up = y - 1, down = y + 1
        while n < lineRun && up >= 0 && at(p - (y - up) * width) == c { n += 1; up -= 1 }
        while n < lineRun && down < height && at(p + (down - y) * width) == c { n += 1; down += 1 }
        guard n >= lineRun else { return false }
        // Across the row, a step of at least lineContrast to one side: an edge, not a
        // gradient's contour (a level or two).
        func step(_ q: Int) -> Int {
            abs(Int(px[q * 4]) - Int(px[p * 4])) + abs(Int(px[q * 4 + 1]) - Int(px[p * 4 + 1]))
                + abs(Int(px[q * 4 + 2]) - Int(px[p * 4 + 2]))
        }
        return (x > 0 && step(p - 1) >= lineContrast) || (x + 1 < width && step(p + 1) >= lineContrast)
    }

    /// The distance (RGB levels) from the source colour at byte offset `o` to its nearest
    /// palette entry: 0 exactly when the palette holds that colour.
    @inline(__always)
    static func gap(_ px: UnsafeBufferPointer<UInt8>, _ o: Int, _ mapper: PaletteMapper) -> Float {
        let q = mapper.rgb[mapper.index(Int(px[o]), Int(px[o + 1]), Int(px[o + 2]))]
        let dr = q.0 - Float(px[o]), dg = q.1 - Float(px[o + 1]), db = q.2 - Float(px[o + 2])
        return (dr * dr + dg * dg + db * db).squareRoot()
    }

    /// How visibly a pixel's nearest entry is off its colour, 0…1: none at or below the first
    /// of `thresholds` (a `distance` in RGB levels, as ``gap(_:_:_:)``), all from the second.
    @inline(__always)
    static func visibility(_ distance: Float, _ thresholds: (Float, Float)) -> Float {
        min(1, max(0, (distance - thresholds.0) / (thresholds.1 - thresholds.0)))
    }

    /// Whether the pixel at (x, y) or one of its eight neighbours has an overlay colour.
    @inline(__always)
    static func nearOverlay(_ px: UnsafeBufferPointer<UInt8>, _ protected: [UInt32], x: Int, y: Int, width: Int, height: Int) -> Bool {
        for yy in max(0, y - 1)...min(height - 1, y + 1) {
            for xx in max(0, x - 1)...min(width - 1, x + 1) where isOverlay(px, protected, (yy * width + xx) * 4) { return true }
        }
        return false
    }

    @inline(__always)
    static func isOverlay(_ px: UnsafeBufferPointer<UInt8>, _ protected: [UInt32], _ o: Int) -> Bool {
        let key = UInt32(px[o]) << 16 | UInt32(px[o + 1]) << 8 | UInt32(px[o + 2])
        return protected.contains(key)
    }

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
    /// palette's transparent index. A pixel whose source colour is one `history` remembers
    /// for it takes the colour it showed then, when the palette holds it, with no lossy
    /// latitude.
    /// The squared lossy LZW latitude of pixel `o / 4` (byte offset `o`): none on and next to
    /// the overlay; in texture it grows with the least activity around the pixel (texture
    /// masks the error), scaled by how long the pixel stays on screen (``ScreenTime``, never
    /// past ``GIFQuality/largestBudget``). What does not depend on the budgets is its code
    /// (``latitudeCode(_:_:x:y:width:height:activity:area:protected:mapper:gap:)``), kept so
    /// that a recorded frame can be coded again with another budget (``QuantizedFrames``).
    @inline(__always)
    static func latitude(
        _ px: UnsafeBufferPointer<UInt8>, _ o: Int, x: Int, y: Int, width w: Int, height h: Int,
        activity act: UnsafeMutableBufferPointer<Int32>, area: PixelRect, protected: [UInt32],
        budgets: (lzw: Float, smooth: Float), screenTime: ScreenTime?, mapper: PaletteMapper, gap: inout Float?
    ) -> (budget: Float, code: UInt8) {
        let code = latitudeCode(
            px, o, x: x, y: y, width: w, height: h, activity: act, area: area, protected: protected, mapper: mapper, gap: &gap)
        return (latitude(code: code, x: x, y: y, budgets: budgets, screenTime: screenTime), code)
    }

    /// The part of a pixel's latitude that the budgets do not change: how textured it is,
    /// 0…``maskRange`` (0 where no texture masks the error), or ``QuantizedFrames/noBudget``
    /// where it gets none (on and next to the overlay; a flat patch or vertical edge of a
    /// colour the palette holds).
    @inline(__always)
    static func latitudeCode(
        _ px: UnsafeBufferPointer<UInt8>, _ o: Int, x: Int, y: Int, width w: Int, height h: Int,
        activity act: UnsafeMutableBufferPointer<Int32>, area: PixelRect, protected: [UInt32], mapper: PaletteMapper,
        gap: inout Float?
    ) -> UInt8 {
        if !protected.isEmpty && nearOverlay(px, protected, x: x, y: y, width: w, height: h) { return QuantizedFrames.noBudget }
        let range = activityRange(act, area, x: x, y: y, width: w, height: h)
        var level = min(Int(maskRange), max(0, range.least - maskFloor))
        if level > 0 && isFlatEdge(act, area, x: x, y: y) { level = 0 }
        if level == 0 {
            // A flat patch, or an edge down the rows (``lineRun``), of a colour the palette
            // holds keeps none.
            let distance = gap ?? Self.gap(px, o, mapper)
            gap = distance
            if distance == 0 && (range.most == 0 || onVerticalEdge(px, o / 4, x: x, y: y, width: w, height: h)) {
                return QuantizedFrames.noBudget
            }
        }
        return UInt8(level)
    }

    /// The squared latitude of a pixel at (x, y) whose ``latitudeCode`` is `code`, under `budgets`.
    @inline(__always)
    static func latitude(code: UInt8, x: Int, y: Int, budgets: (lzw: Float, smooth: Float), screenTime: ScreenTime?) -> Float {
        if code == QuantizedFrames.noBudget { return 0 }
        let texture = Float(code) / maskRange
        // The smooth budget only ever tightens with screen time, since there a stray colour
        // shows as a streak, however briefly.
        let scale = screenTime?.scale(x: x, y: y) ?? 1
        let smooth = budgets.smooth * min(1, scale)
        var b = min(budgets.lzw * texture * scale, GIFQuality.largestBudget)
        // Where no texture masks it (gradients, edges, anti-aliased text) a pixel gets a small
        // budget; the carried error keeps each area's mean colour, as dithering would. A flat
        // patch of a colour the palette holds exactly (UI fills) keeps none (its code says so);
        // the overlay is protected. A little texture gets at least the smooth budget, never
        // less: the budget rises from it to the full one as texture grows.
        if texture == 0 {
            b = smooth
        } else {
            b = max(b, smooth)
        }
        return b * b
    }

    /// Spreads a pixel's quantization `error` (scaled by `strength`, clamped so that saturated
    /// regions do not smear) Floyd–Steinberg: 7/16 ahead on this row, 3/16 behind, 5/16 below
    /// and 1/16 ahead on the next; only the rectangle's columns (and one each side) carry it.
    @inline(__always)
    static func diffuse(
        _ error: (Float, Float, Float), strength: Float, x: Int, rect: PixelRect, leftToRight: Bool,
        row err0: inout [Float], next err1: inout [Float]
    ) {
        let er = max(-48, min(48, error.0 * strength)), eg = max(-48, min(48, error.1 * strength)),
            eb = max(-48, min(48, error.2 * strength))
        let e = (x - rect.x + 1) * 3
        let fwd = leftToRight ? 3 : -3
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

    /// Sets the budgets of a recorded frame's changed pixels in `rect` (`changed` as in
    /// ``quantize(_:rect:changed:history:into:)``) from their codes, as quantizing it again
    /// would with this quantizer's budgets.
    mutating func restoreBudgets(rect: PixelRect, changed: [Bool]?, codes: [UInt8]) {
        let budgets = (lzwBudget, smoothBudget), screenTime = screenTime
        for y in rect.y..<(rect.y + rect.height) {
            for x in rect.x..<(rect.x + rect.width) {
                let p = y * width + x
                if let changed, !changed[p] { continue }
                budget[p] = Self.latitude(code: codes[p] & 0x7F, x: x, y: y, budgets: budgets, screenTime: screenTime)
            }
        }
    }

    mutating func quantize(
        _ frame: RGBAImage, rect: PixelRect, changed: [Bool]?, history: PixelHistory? = nil, into indices: inout [UInt8]
    ) {
        let w = width
        let transparent = UInt8(mapper.palette.transparentIndex ?? 0)
        let hasTransparent = mapper.palette.transparentIndex != nil
        // Diffusion is strong where the source is flat (gradients band without it) and weak
        // where it is textured (the texture hides banding; dither there only adds noise
        // and bytes), unless the rectangle's changed pixels are noise all over (``noiseFloors``).
        let flatStrength = FrameQuantizer.flatStrength * ditherScale
        var texturedStrength = FrameQuantizer.texturedStrength * textureDitherScale
        let smoothThresholds = ditherThresholds
        // Activity around every pixel of the rectangle, as far as an edge of flat colour is looked
        // for; a lossless coder needs only each pixel's own (for dithering).
        let reach = lzwBudget > 0 ? Self.edgeReach : 0
        let x0 = max(0, rect.x - reach), y0 = max(0, rect.y - reach)
        let area = PixelRect(
            x: x0, y: y0, width: min(width, rect.x + rect.width + reach) - x0,
            height: min(height, rect.y + rect.height + reach) - y0)
        frame.pixels.withUnsafeBufferPointer { px in measureActivity(px, area) }
        if noiseDitherScale > 0 && dither == .diffusion {
            let floor = noiseFloor(of: frame, area: area, rect: rect, changed: changed)
            let (clean, noisy) = Self.noiseFloors
            let noise = min(1, max(0, Float(floor - clean) / Float(noisy - clean)))
            texturedStrength += (noiseDitherScale - texturedStrength) * noise
        }
        let gapStrength = textureGapDitherScale, textureThresholds = textureDitherThresholds
        let mapper = mapper, dither = dither, lzwBudget = lzwBudget, smoothBudget = smoothBudget, protected = protected
        let screenTime = screenTime
        let h = height
        // The buffers move out of `self` for the loop (no copies, no exclusivity checks).
        var activity: [Int32] = [], budget: [Float] = [], err0: [Float] = [], err1: [Float] = [], codes: [UInt8] = []
        swap(&activity, &self.activity); swap(&budget, &self.budget); swap(&err0, &self.err0); swap(&err1, &self.err1)
        swap(&codes, &self.codes)
        defer {
            swap(&activity, &self.activity); swap(&budget, &self.budget); swap(&err0, &self.err0); swap(&err1, &self.err1)
            swap(&codes, &self.codes)
        }
        let records = !codes.isEmpty
        frame.pixels.withUnsafeBufferPointer { px in
            activity.withUnsafeMutableBufferPointer { act in
                budget.withUnsafeMutableBufferPointer { budget in
                    indices.withUnsafeMutableBufferPointer { indices in
                        // Only the rectangle's columns (and one each side) carry error.
                        let used = min(err0.count, (rect.width + 2) * 3)
                        for i in 0..<used { err0[i] = 0; err1[i] = 0 }
                        for y in rect.y..<(rect.y + rect.height) {
                            // Serpentine only for diffusion, where it evens out the error's drift.
                            let leftToRight = dither != .diffusion || (y & 1) == 0
                            for n in 0..<rect.width {
                                let x = leftToRight ? rect.x + n : rect.x + rect.width - 1 - n
                                let p = y * w + x
                                if let changed, !changed[p] { continue }
                                let o = p * 4
                                if hasTransparent && px[o + 3] < 128 {
                                    indices[p] = transparent
                                    if records { codes[p] = QuantizedFrames.noBudget }
                                    continue
                                }
                                // A pixel coming back to a colour it showed, which this palette lacks,
                                // is quantized afresh (a recording marks it: ``QuantizedFrames/returned``).
                                var returned: UInt8 = 0
                                if let history {
                                    let c = history.recall(p, PixelHistory.key(px[o], px[o + 1], px[o + 2], px[o + 3]))
                                    if c != 0, let k = mapper.exactIndex(key: c) {
                                        indices[p] = UInt8(k)
                                        budget[p] = 0
                                        if records { codes[p] = QuantizedFrames.recalled }
                                        continue
                                    }
                                    if c != 0 { returned = QuantizedFrames.returned }
                                }
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
                                // The source colour's distance to its nearest entry, looked up when needed.
                                var gap: Float?
                                let overlay = !protected.isEmpty && Self.isOverlay(px, protected, o)
                                // An overlay pixel takes its own colour, whatever error its neighbours left.
                                if overlay { (r, g, b) = (Float(px[o]), Float(px[o + 1]), Float(px[o + 2])) }
                                let ri = Int(max(0, min(255, r.rounded()))), gi = Int(max(0, min(255, g.rounded()))),
                                    bi = Int(max(0, min(255, b.rounded())))
                                let flat = act[(y - area.y) * area.width + x - area.x] <= FrameQuantizer.flatActivity
                                // Smooth areas (gradients, UI) take the exact nearest entry: a half-level
                                // step there shows. Texture hides it, and its many colours would make the
                                // exact search the frame's largest cost.
                                let k = flat ? mapper.nearest(ri, gi, bi) : mapper.index(ri, gi, bi)
                                if lzwBudget > 0 {
                                    let l = Self.latitude(
                                        px, o, x: x, y: y, width: w, height: h, activity: act, area: area, protected: protected,
                                        budgets: (lzwBudget, smoothBudget), screenTime: screenTime, mapper: mapper, gap: &gap)
                                    budget[p] = l.budget
                                    if records { codes[p] = l.code | returned }
                                }
                                indices[p] = UInt8(k)
                                if dither == .diffusion {
                                    let c = mapper.rgb[k]
                                    var strength = flat ? flatStrength : texturedStrength
                                    // In a smooth area, dither only as far as the nearest entry is
                                    // visibly off the source: where the palette follows the gradient
                                    // closely, the noise would cost bytes and hide nothing. Texture
                                    // near the top takes the same rule as a floor (``textureGapDitherScale``).
                                    if flat {
                                        strength *= Self.visibility(gap ?? Self.gap(px, o, mapper), smoothThresholds)
                                    } else if gapStrength > strength {
                                        let visible = Self.visibility(gap ?? Self.gap(px, o, mapper), textureThresholds)
                                        strength = max(strength, gapStrength * visible)
                                    }
                                    Self.diffuse(
                                        (r - c.0, g - c.1, b - c.2), strength: strength, x: x, rect: rect, leftToRight: leftToRight,
                                        row: &err0, next: &err1)
                                }
                            }
                            swap(&err0, &err1)
                            for i in 0..<used { err1[i] = 0 }
                        }
                    }
                }
            }
        }
    }
}
