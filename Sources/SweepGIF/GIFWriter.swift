import Dispatch
import SweepImaging
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Writes an animated GIF89a frame by frame through giflib, keeping one frame in memory.
///
/// Each frame is compared with the previous one: only pixels whose source changed are
/// quantized again, only the changed rectangle is written, and inside it the pixels that
/// still show the right colour become transparent. A frame identical to the previous one
/// lengthens that frame's delay instead of being written.
///
/// The LZW coder may write a pixel as another palette entry within its error budget (lossy
/// LZW, see ``LZWLatitude``); the budget is zero on pixels whose source did not change, so
/// what is on screen there never changes (no flicker), and zero in flat areas. A pixel
/// whose source comes back to a colour it had shows exactly what it showed then
/// (``PixelHistory``): a split moving back brings the picture back as it was. Told how long
/// each frame's pixels stay on screen (``ScreenTime``), the budget grows where they stay
/// briefly and shrinks where they stay long.
package final class GIFWriter {
    package let width: Int
    package let height: Int
    package let palette: GIFPalette
    let destination: String
    private let file: GIFStream
    private var quantizer: FrameQuantizer
    private let globalMapper: PaletteMapper
    /// Compares each frame with the one before and fits its band's table, a frame ahead.
    private let preparer: FramePreparer
    /// The delay and screen time of the frame added last, which the preparer holds until the
    /// next one comes.
    private var held: (delay: Int, screenTime: ScreenTime?)?
    /// The pixels of the frame added last, for the preparer to compare the next one with.
    private var lastPixels: [UInt8]?
    private var indices: [UInt8]
    /// What each pixel shows: 0xFF000000 | RGB, or 0 while nothing is shown there.
    private var shown: [UInt32]
    /// OkLab of what each pixel shows (``LZWLatitude/none`` while nothing is shown), so that
    /// each colour is converted once, not once per pixel per frame.
    private var shownLab: [SIMD4<Float>]
    /// The local palette in use, kept while it keeps fitting (one palette per stretch of
    /// frames, so that unchanged colours stay transparent from frame to frame).
    private var activeLocal: PaletteMapper?
    private var changed: [Bool]
    /// What each pixel showed for its last few source colours (``PixelHistory``); nil for an
    /// exact palette coded losslessly, which shows a source colour the same way every time.
    private var history: PixelHistory?
    /// The first frame's own table, when it got one: a split moving back brings its colours
    /// back, and a band of them may take it again (see ``choosePalette``).
    private var firstFrameMapper: PaletteMapper?
    /// The share of the global table's error on the first frame below which it takes its own.
    private let firstFrameShare: Double
    /// Frames that got a palette of their own.
    package private(set) var localPaletteFrames = 0
    /// The frame waiting for its delay to be final: its candidate blocks and, per pixel of
    /// its rectangle, what the lossy coder needs and what was on screen before it.
    private var pending: (blocks: [GIFBlock], delay: Int, latitude: LZWLatitude, before: [UInt32])?
    /// Codes the pending frame on another core while the next frame is compared and quantized.
    private let coder = FrameCoder()
    /// Whether the coder has been given the pending frame.
    private var coding = false
    /// Where each palette index goes in the file's global table: the transparent index
    /// first, then the colours from dark to light or light to dark (see ``init``).
    private let fileOrder: [UInt8]
    /// The file's global table by file index (black where the transparent index is).
    private let fileColors: [RGBA8]
    /// OkLab of each file index of the global table (NaN for the transparent one and unused ones).
    private let fileLab: [SIMD4<Float>]
    /// Frames written to the file so far.
    package private(set) var framesWritten = 0
    /// The overlay's colours, kept exact in every palette and every frame.
    private let overlayColors: [RGBA8]
    /// A palette fitted to the first frame alone (see ``init``), until that frame is written.
    private var firstMapper: PaletteMapper?
    /// Palettes fitted to stretches of frames (see ``StretchPalettes``), and the next one due.
    private let stretches: StretchPalettes
    private var nextStretch = 0
    /// The palette of the stretch under way, until a frame takes it up.
    private var planned: PaletteMapper?
    /// Frames passed to ``add(_:delay:screenTime:)`` so far.
    private var framesAdded = 0
    /// The quality setting: it sizes a textured band's table and says whether a smooth band
    /// may get one (``GIFQuality/allowsOwnTables``).
    private let quality: GIFQuality
    /// Where each quantized frame is kept, to be coded again with another lossy budget
    /// (``QuantizedFrames``); nil when not recording, or once the recording cannot be replayed.
    private var recording: QuantizedFrames?
    /// Per pixel, the latitude codes and the source colours (RGBA) of a replayed frame
    /// (``replay(_:bytes:)``).
    private var replayCodes: [UInt8] = []
    private var replayPixels: [UInt8] = []
    /// Frames a replay quantized again (see ``replay(_:bytes:)``).
    package private(set) var requantizedFrames = 0
    /// Per frame written, whether its early-reset pass runs (see ``FrameCoder``); nil, or
    /// past its end: every frame's. Coding a recording again, it runs only where it won in
    /// the recording (``QuantizedFrames/earlyWins``): on a dissolve it almost never does, and
    /// coding once leaves the other core to code another budget at the same time.
    package var earlyPasses: [Bool]?

    /// How a writer was set up: what one coding its recording again needs.
    struct Plan {
        let width: Int, height: Int
        let palette: GIFPalette
        let dither: DitherMode
        let quality: GIFQuality
        let loopCount: Int?
        let firstFramePalette: GIFPalette?
        let firstFrameShare: Double
        let darkFirst: Bool
        let usage: ColorUsage
        let overlayColors: [RGBA8]
        let stretches: StretchPalettes
    }

    /// Opens `path` (normally an ``AtomicOutput``'s temporary path) and writes the header.
    ///
    /// - Parameters:
    ///   - quality: sets the lossy LZW budget and the dithering strength (``GIFQuality``);
    ///     an exact palette stays lossless at the default quality and above.
    ///   - lossy: an expert override of the LZW budget, 0…100 (see ``GIFQuality/budget(lossy:)``).
    ///   - loopCount: `nil` for no loop extension (play once); 0 for forever; n for n repeats.
    ///   - firstFramePalette: a palette fitted to the first frame, used for it (as a local
    ///     table) when it cuts that frame's error to `firstFrameShare` of `palette`'s or less.
    ///   - firstFrameShare: 0.8 by default: a split coming back to the first frame's colours
    ///     finds them exactly only in the table later frames use, so a table of its own must
    ///     fit the first frame clearly better. 1 when `palette` is fitted to the later frames
    ///     alone, which the samples show hardly ever coming back to the first frame's colours
    ///     (``GIFPalette/changes(since:)``).
    ///   - darkFirst: order the file's global table dark to light (when later frames show
    ///     darker content than the first), so that their indices and codes stay small.
    ///   - usage: which colours the frames after the first use together (``ColorUsage``);
    ///     those come first in the file's table, in the order that keeps most frames' codes
    ///     narrow (see ``fileOrder(_:darkFirst:usage:)``).
    ///   - overlayColors: the handle's and tags' colours: drawn exactly, with no lossy
    ///     latitude on or next to them.
    ///   - stretches: palettes fitted to stretches of frames; a stretch's palette becomes the
    ///     local table of its frames when it cuts their error by a fifth or more.
    package init(
        path: String, destination: String? = nil, width: Int, height: Int, palette: GIFPalette,
        dither: DitherMode = .diffusion, quality: GIFQuality = .default, lossy: Int? = nil, loopCount: Int? = 0,
        firstFramePalette: GIFPalette? = nil, firstFrameShare: Double = 0.8, darkFirst: Bool = true, usage: ColorUsage = .unknown,
        overlayColors: [RGBA8] = [],
        stretches: StretchPalettes = .none, recording: QuantizedFrames? = nil
    ) throws {
        precondition(width > 0 && width <= 65535 && height > 0 && height <= 65535)
        self.width = width
        self.height = height
        self.palette = palette
        self.destination = destination ?? path
        self.overlayColors = overlayColors
        self.stretches = stretches
        self.quality = quality
        self.firstFrameShare = firstFrameShare
        // Exact palettes stay lossless unless asked for less than the default quality.
        globalMapper = PaletteMapper(palette: palette)
        let budget =
            lossy.map(GIFQuality.budget(lossy:))
            ?? (palette.isExact && quality.value >= GIFQuality.default.value ? 0 : quality.lzwBudget)
        // Dithering an exact palette could only add error.
        quantizer = FrameQuantizer(
            mapper: globalMapper, dither: palette.isExact ? .none : dither, lzwBudget: budget, quality: quality,
            protected: overlayColors, width: width, height: height)
        (fileOrder, fileColors) = GIFWriter.fileOrder(palette, darkFirst: darkFirst, usage: usage)
        var lab = GIFWriter.labTable(fileColors)
        if palette.transparentIndex != nil { lab[0] = LZWLatitude.none }
        fileLab = lab
        if let firstFramePalette, !palette.isExact { firstMapper = PaletteMapper(palette: firstFramePalette) }
        indices = [UInt8](repeating: 0, count: width * height)
        shown = [UInt32](repeating: 0, count: width * height)
        shownLab = [SIMD4<Float>](repeating: LZWLatitude.none, count: width * height)
        changed = [Bool](repeating: true, count: width * height)
        history = palette.isExact && budget == 0 ? nil : PixelHistory(count: width * height)
        preparer = FramePreparer(
            palette: palette, width: width, height: height, overlayColors: overlayColors, quality: quality)
        file = try GIFStream(
            path: path, destination: destination ?? path, width: width, height: height, colors: fileColors,
            tableSize: palette.tableSize, loopCount: loopCount)
        if let recording {
            // Without a lossy budget there is nothing to code again differently, and the
            // quantizer measures no latitude to keep.
            if budget > 0 && history != nil && recording.frameCount == 0 {
                recording.plan = Plan(
                    width: width, height: height, palette: palette, dither: dither, quality: quality, loopCount: loopCount,
                    firstFramePalette: firstFramePalette, firstFrameShare: firstFrameShare, darkFirst: darkFirst, usage: usage,
                    overlayColors: overlayColors, stretches: stretches)
                self.recording = recording
                quantizer.records = true
            } else {
                recording.replayable = false
            }
        }
    }

    /// A writer coding `recording` again into `path` with the lossy budget of `--lossy
    /// lossy` (1…100): the same file, byte for byte, as quantizing its frames again with that
    /// budget and the recording's early-reset passes (``earlyPasses``) would give, at the cost
    /// of the LZW coding alone.
    /// `watch` is told the bytes written after each frame and how many frames are done; it
    /// may throw to stop.
    static func recode(
        _ recording: QuantizedFrames, lossy: Int, path: String, destination: String? = nil,
        watch: ((_ bytes: Int, _ done: Int) throws -> Void)? = nil
    ) throws -> GIFWriter {
        guard recording.replayable, recording.complete, let plan = recording.plan, lossy > 0 else {
            preconditionFailure("only a replayable recording with a lossy budget is coded again")
        }
        let writer = try GIFWriter(
            path: path, destination: destination, width: plan.width, height: plan.height, palette: plan.palette,
            dither: plan.dither, quality: plan.quality, lossy: lossy, loopCount: plan.loopCount,
            firstFramePalette: plan.firstFramePalette, firstFrameShare: plan.firstFrameShare, darkFirst: plan.darkFirst,
            usage: plan.usage, overlayColors: plan.overlayColors, stretches: plan.stretches)
        writer.replayCodes = [UInt8](repeating: 0, count: plan.width * plan.height)
        writer.replayPixels = [UInt8](repeating: 0, count: 4 * plan.width * plan.height)
        writer.earlyPasses = recording.earlyWins
        for (i, frame) in recording.frames.enumerated() {
            try writer.replay(frame, bytes: recording.bytes(of: frame))
            try watch?(writer.bytesWritten, i + 1)
        }
        try writer.finish()
        return writer
    }

    /// Makes a recorded frame the pending one, as ``write(_:delay:screenTime:)`` made it.
    private func replay(_ frame: QuantizedFrames.Frame, bytes: [UInt8]) throws {
        framesAdded += 1
        startCoding()
        let rect = frame.rect
        if rect.isEmpty {
            pending?.delay += frame.delay
            return
        }
        let n = QuantizedFrames.bytesPerPixel, area = rect.width * rect.height
        let palette = frame.palette ?? self.palette
        let mapper = frame.palette == nil ? globalMapper : PaletteMapper(palette: palette)
        // The frame's source follows its pixels' indices and codes.
        bytes.withUnsafeBufferPointer { b in
            replayPixels.withUnsafeMutableBufferPointer { d in
                _ = memcpy(d.baseAddress!, b.baseAddress! + n * area, 4 * width * height)
            }
        }
        // Pixels coming back to a colour they showed take it again from the history kept
        // here (see ``QuantizedFrames``); where the palette holds it under one budget and lacks
        // it under the other, the frame is quantized again from its source.
        var again = false
        var o = 0
        for y in rect.y..<(rect.y + rect.height) {
            for x in rect.x..<(rect.x + rect.width) {
                defer { o += n }
                let p = y * width + x, code = bytes[o + 1]
                let isChanged = code != QuantizedFrames.unchanged
                if !frame.whole { changed[p] = isChanged }
                guard isChanged else { continue }
                guard code == QuantizedFrames.recalled || code & QuantizedFrames.returned != 0 else {
                    (indices[p], replayCodes[p]) = (bytes[o], code)
                    continue
                }
                let q = 4 * p
                let c =
                    history?.recall(p, PixelHistory.key(replayPixels[q], replayPixels[q + 1], replayPixels[q + 2], replayPixels[q + 3]))
                    ?? 0
                let k = c == 0 ? nil : mapper.exactIndex(key: c)
                if code == QuantizedFrames.recalled, let k {
                    (indices[p], replayCodes[p]) = (UInt8(k), QuantizedFrames.noBudget)
                } else if code != QuantizedFrames.recalled, k == nil {
                    (indices[p], replayCodes[p]) = (bytes[o], code & ~QuantizedFrames.returned)
                } else {
                    again = true
                }
            }
        }
        quantizer.screenTime = frame.screenTime
        if again {
            quantizer.mapper = mapper
            let image = RGBAImage(width: width, height: height, pixels: replayPixels)
            quantizer.quantize(
                image, rect: rect, changed: frame.whole ? nil : changed, history: frame.whole ? nil : history, into: &indices)
            requantizedFrames += 1
        } else {
            quantizer.restoreBudgets(rect: rect, changed: frame.whole ? nil : changed, codes: replayCodes)
        }
        try emit(
            replayPixels, rect: rect, delay: frame.delay, first: framesWritten == 0 && pending == nil, palette: palette,
            isLocal: frame.palette != nil)
    }

    /// Keeps the frame just quantized in the recording, or ends the recording when the frame
    /// depended on what the coder wrote before.
    private func record(_ frame: RGBAImage, rect: PixelRect, delay: Int, screenTime: ScreenTime?, whole: Bool) throws {
        guard let recording else { return }
        let n = QuantizedFrames.bytesPerPixel
        var bytes = [UInt8](repeating: 0, count: n * rect.width * rect.height)
        var o = 0
        let codes = quantizer.codes
        for y in rect.y..<(rect.y + rect.height) {
            for x in rect.x..<(rect.x + rect.width) {
                let p = y * width + x
                if whole || changed[p] {
                    (bytes[o], bytes[o + 1]) = (indices[p], codes[p])
                    recording.count(code: codes[p])
                } else {
                    bytes[o + 1] = QuantizedFrames.unchanged
                }
                o += n
            }
        }
        // The source, for a replay that must quantize the frame again.
        bytes += frame.pixels
        let mapper = quantizer.mapper
        try recording.append(
            rect: rect, delay: delay, screenTime: screenTime, palette: mapper === globalMapper ? nil : mapper.palette, whole: whole,
            bytes: bytes)
    }

    /// OkLab of each of `colors` by index, padded with NaN to 256 entries.
    static func labTable(_ colors: [RGBA8]) -> [SIMD4<Float>] {
        var t = [SIMD4<Float>](repeating: LZWLatitude.none, count: 256)
        for (i, c) in colors.prefix(256).enumerated() { t[i] = LZWLatitude.lab(c.r, c.g, c.b) }
        return t
    }

    /// The order of the global table in the file. A frame coded with the global table gets
    /// codes as narrow as its largest index allows, so the indices most frames use should be
    /// small: the transparent index goes first, then the colours the frames after the first
    /// use, in the order that serves most of them (``ColorUsage``), then the rest by
    /// lightness, dark first when the animation moves towards darker content, light first
    /// otherwise (lightness also breaks ties in the usage order). Returns each palette
    /// index's file index and the file's table.
    static func fileOrder(_ palette: GIFPalette, darkFirst: Bool, usage: ColorUsage = .unknown) -> ([UInt8], [RGBA8]) {
        let n = palette.colors.count
        let byLightness = (0..<n).sorted {
            let a = palette.lab[$0].l, b = palette.lab[$1].l
            return darkFirst ? (a, $0) < (b, $1) : (a, $0) > (b, $1)
        }
        var lightness = [Int](repeating: 0, count: n)
        for (place, i) in byLightness.enumerated() { lightness[i] = place }
        let ranks = usage.ranks(colors: n, before: lightness)
        let ordered = byLightness.sorted { (ranks[$0] ?? n, lightness[$0]) < (ranks[$1] ?? n, lightness[$1]) }
        var order = [UInt8](repeating: 0, count: 256)
        var colors: [RGBA8] = []
        if let t = palette.transparentIndex {
            order[t] = 0
            colors.append(RGBA8(r: 0, g: 0, b: 0))
        }
        for i in ordered {
            order[i] = UInt8(colors.count)
            colors.append(palette.colors[i])
        }
        return (order, colors)
    }

    /// `block` with its indices as they go into the file: a block of the global table has
    /// them moved to ``fileOrder``; a local table's block is already in its own order.
    private func inFileOrder(_ block: GIFBlock) -> GIFBlock {
        guard block.localColors == nil else { return block }
        var b = block
        b.data = block.data.map { fileOrder[Int($0)] }
        b.transparent = block.transparent.map { Int(fileOrder[$0]) }
        return b
    }

    /// Adds a frame shown for `delay` centiseconds.
    ///
    /// The frame is quantized and written during the next call (or ``finish()``): meanwhile
    /// the frame after it is compared and its band's table fitted on another core
    /// (``FramePreparer``). Given how long its pixels stay on screen (`screenTime`), the
    /// lossy budget of each pixel it writes scales with that (``ScreenTime``).
    package func add(_ frame: RGBAImage, delay: Int, screenTime: ScreenTime? = nil) throws {
        precondition(frame.width == width && frame.height == height)
        precondition(screenTime.map { $0.lineCount == ($0.axis == .columns ? width : height) } ?? true)
        let ready = held.map { (preparer.result(), $0) }
        preparer.start(frame, previous: lastPixels)
        lastPixels = frame.pixels
        held = (delay, screenTime)
        guard let (prepared, (delay, screenTime)) = ready else { return }
        do {
            try write(prepared, delay: delay, screenTime: screenTime)
        } catch {
            // A frame after a failed one is never written, not even by finish().
            held = nil
            throw error
        }
    }

    /// Quantizes a prepared frame and makes it the pending one.
    private func write(_ prepared: FramePreparer.Prepared, delay: Int, screenTime: ScreenTime?) throws {
        defer { framesAdded += 1 }
        quantizer.screenTime = screenTime
        while nextStretch < stretches.starts.count && stretches.starts[nextStretch] <= framesAdded {
            if stretches.starts[nextStretch] == framesAdded { planned = PaletteMapper(palette: stretches.palettes[nextStretch]) }
            nextStretch += 1
        }
        // The pending frame's coding needs nothing of this frame: it runs meanwhile.
        startCoding()
        let frame = prepared.frame, rect = prepared.rect
        if let marks = prepared.changed {
            if rect.isEmpty {
                pending?.delay += delay
                try recording?.append(rect: rect, delay: delay, screenTime: nil, palette: nil, whole: false, bytes: [])
                return
            }
            changed = marks
            quantizer.mapper =
                palette.isExact
                ? globalMapper : choosePalette(prepared.band, returning: self.returning(frame, rect, count: prepared.count))
            quantizer.quantize(frame, rect: rect, changed: changed, history: history, into: &indices)
            try record(frame, rect: rect, delay: delay, screenTime: screenTime, whole: false)
        } else {
            if let first = firstMapper {
                // The first frame is the whole picture, coded once: a table of its own is
                // worth its 768 bytes when it fits the picture better (``firstFrameShare``).
                let sample = FrameChanges.sample(frame, rect: rect, changed: nil, width: width).pixels
                if FrameChanges.meanError(first, sample) < firstFrameShare * FrameChanges.meanError(globalMapper, sample) {
                    quantizer.mapper = first
                    firstFrameMapper = first
                }
                firstMapper = nil
            }
            quantizer.quantize(frame, rect: rect, changed: nil, into: &indices)
            try record(frame, rect: rect, delay: delay, screenTime: screenTime, whole: true)
        }
        let mapper = quantizer.mapper
        try emit(
            frame.pixels, rect: rect, delay: delay, first: framesWritten == 0 && pending == nil, palette: mapper.palette,
            isLocal: mapper !== globalMapper)
    }

    /// About how many of a band's pixels its table is fitted to (see ``choosePalette``).
    static let bandTableSamples = 4096
    /// The share of textured pixels from which a band always gets a table sized by its
    /// colours; a smoother band gets ``smoothBandEntries`` only when they cut the error by a
    /// fifth (see ``choosePalette``).
    static let bandTextureShare = 0.5
    /// Entries of a smooth band's table.
    static let smoothBandEntries = 32

    /// The palette for a frame, the one of least error among:
    /// - the global palette, and the local one in use (kept while it fits at least as well);
    /// - the palette planned for the stretch under way (``StretchPalettes``), when it cuts the
    ///   error by a fifth or more;
    /// - for a frame whose changes cover under 40 % of the picture (a band of a wipe) and are
    ///   at least half textured (``bandTextureShare``), a table fitted to its changes alone,
    ///   always, at every quality (unless the palette in hand already holds the band
    ///   exactly). It gets as many entries as the global palette effectively spends on the band
    ///   (``StretchPalettes/tableEntries(usage:reserved:quality:)``), and its codes start
    ///   narrower than the global table's 9 bits. A band is coded once, with a cold
    ///   dictionary, so the narrower codes and closer colours pay for the table: on four photo
    ///   pairs it takes 0.81–0.95 of the bytes for the same S-CIELAB ΔE and 0.84–0.93 for the
    ///   same SSIM at quality 70–90, and 0.87–0.97 / 0.89–0.96 at 40–60
    ///   (docs/decisions/gif-encoder.md);
    /// - for a smoother band, from quality 70, a table of ``smoothBandEntries`` fitted to it
    ///   when it cuts the error by a fifth or more: a smooth gradient written band by band,
    ///   each with its own fine table, shows each band's own steps as a patchwork (the demo's
    ///   grey sky, when the split moves back over it);
    /// - for a larger change (looks changing: Noir, then Dream, …), a fresh full palette when it
    ///   cuts the error by 85 % or more (a local table costs up to 768 bytes a frame, so it
    ///   must buy a clear gain).
    ///
    /// Then, for a smooth band (under ``bandTextureShare`` textured) where over a quarter of
    /// the changed pixels come back to colours they showed before (`returning`, see
    /// ``PixelHistory``: a split moving back over the before picture) and the palette chosen
    /// lacks some of those colours: the global palette, the local one in use or the first
    /// frame's own table if it holds them all and maps the other changed pixels at most 1.5
    /// times as far off; failing that, a table of those colours and the overlay's, with
    /// ``returningExtraEntries`` more fitted to the other pixels, when that fits in 256
    /// entries. Those pixels then come back exactly as they were shown, whatever tables
    /// their bands had: quantized afresh, a smooth sky would come back as a patchwork. A
    /// textured band is left as chosen: its texture hides the difference, and exactness there
    /// costs a photo's ping-pong 8 % more bytes.
    private func choosePalette(
        _ band: FramePreparer.Band?, returning: @autoclosure () -> Returning?
    ) -> PaletteMapper {
        guard let band else { return activeLocal ?? globalMapper }
        let active = activeLocal.map { FrameChanges.meanError($0, band.sample) } ?? .infinity
        var best: (PaletteMapper, Double) =
            active <= band.globalError ? (activeLocal!, active) : (globalMapper, band.globalError)
        if let planned {
            let e = FrameChanges.meanError(planned, band.sample)
            if e < 0.8 * best.1 { best = (planned, e) }
        }
        let plannedWon = planned != nil && best.0 === planned
        if let fresh = band.fresh, best.1 > 0 && fresh.error < fresh.share * best.1 { best = (fresh.mapper, fresh.error) }
        // A smooth band coming back to colours it showed (see the doc comment): texture
        // hides a band quantized afresh, and a table for exactness there costs bytes.
        let chosen = best
        if band.texturedShare < Self.bandTextureShare, let back = returning(), !back.sample.isEmpty,
            heldCount(chosen.0, back.sample) < back.sample.count
        {
            let othersError = { (m: PaletteMapper) in back.others.isEmpty ? 0 : FrameChanges.meanError(m, back.others) }
            let limit = 1.5 * othersError(chosen.0)
            let holding = [globalMapper, activeLocal, firstFrameMapper].compactMap { $0 }.first {
                $0 !== chosen.0 && heldCount($0, back.sample) == back.sample.count && othersError($0) <= limit
            }
            if let holding {
                best = (holding, holding === globalMapper ? band.globalError : FrameChanges.meanError(holding, band.sample))
            } else if let colors = back.colors, colors.count + overlayColors.count + Self.returningExtraEntries < 256 {
                let pixels = RGBAImage(
                    width: max(1, back.others.count / 4), height: 1, pixels: back.others.isEmpty ? [0, 0, 0, 255] : back.others)
                let kept = colors.map { RGBA8(r: UInt8(($0 >> 16) & 0xff), g: UInt8(($0 >> 8) & 0xff), b: UInt8($0 & 0xff)) }
                let table = GIFPalette.build(
                    samples: [(pixels, 1)], count: colors.count + overlayColors.count + Self.returningExtraEntries + 1,
                    reserved: overlayColors + kept)
                let mapper = PaletteMapper(palette: table)
                best = (mapper, FrameChanges.meanError(mapper, band.sample))
            }
        }
        // A stretch's palette is used up once it wins, unless returning pixels overruled it.
        if plannedWon && best.0 === chosen.0 { self.planned = nil }
        activeLocal = best.0 === globalMapper ? activeLocal : best.0
        return best.0
    }

    /// Entries a table for returning colours gets for the other changed pixels (the
    /// knob's shadow over the after picture, near a turn of the split).
    static let returningExtraEntries = 32

    /// How many of `colors` (`0xFF000000 | RGB`) the mapper's palette holds exactly.
    private func heldCount(_ mapper: PaletteMapper, _ colors: [UInt32]) -> Int {
        colors.reduce(0) { $0 + (mapper.exactIndex(key: $1) == nil ? 0 : 1) }
    }

    /// What the changed pixels of `frame` in `rect` (`count` of them) bring back
    /// (``PixelHistory``): the distinct colours shown before by those whose source colour
    /// the history remembers (nil past 256), about 4 000 of those colours, and about 4 000
    /// of the other changed pixels as RGBA bytes. Nil when under a quarter of them come back.
    private func returning(_ frame: RGBAImage, _ rect: PixelRect, count: Int) -> Returning? {
        guard let history else { return nil }
        let step = max(1, count / 4000)
        var hits = 0, misses = 0
        var colors: Set<UInt32>? = [], sample: [UInt32] = [], others: [UInt8] = []
        frame.pixels.withUnsafeBufferPointer { px in
            for y in rect.y..<(rect.y + rect.height) {
                for x in rect.x..<(rect.x + rect.width) where changed[y * width + x] {
                    let p = y * width + x, o = p * 4
                    let c = history.recall(p, PixelHistory.key(px[o], px[o + 1], px[o + 2], px[o + 3]))
                    if c != 0 {
                        hits += 1
                        if hits % step == 0 { sample.append(c) }
                        if colors != nil {
                            colors!.insert(c)
                            if colors!.count > 256 { colors = nil }
                        }
                    } else {
                        misses += 1
                        if misses % step == 0 { others += px[o..<(o + 4)] }
                    }
                }
            }
        }
        guard hits * 4 > hits + misses else { return nil }
        // The table chosen may then hold what the coder wrote: a recording cannot be coded
        // again with another budget (``QuantizedFrames``).
        if let recording {
            recording.replayable = false
            self.recording = nil
            quantizer.records = false
        }
        return Returning(colors: colors, sample: sample, others: others)
    }

    /// What a band brings back, as ``returning(_:_:count:)`` finds it.
    private struct Returning {
        let colors: Set<UInt32>?
        let sample: [UInt32]
        let others: [UInt8]
    }

    /// Turns the new index map of a frame (its RGBA `pixels`, read only for ``history``) into
    /// the pending frame, its indices into `palette` (a local table when `isLocal`), flushing
    /// the old one first: what it puts on screen decides what this one may leave transparent.
    private func emit(_ pixels: [UInt8], rect: PixelRect, delay: Int, first: Bool, palette: GIFPalette, isLocal: Bool) throws {
        try flushPending()
        let colors = palette.colors
        let t = palette.transparentIndex
        let count = rect.width * rect.height
        var plain = [UInt8](repeating: 0, count: count)
        var masked = plain
        var target = [SIMD4<Float>](repeating: LZWLatitude.none, count: count)
        var behind = target
        var budget = [Float](repeating: 0, count: count)
        var before = [UInt32](repeating: 0, count: count)
        var usesTransparency = false
        var plainPossible = !isLocal
        // OkLab of this frame's palette by index, and of what is on screen (``shownLab``).
        let paletteLab = Self.labTable(colors)
        let globalMapper = globalMapper
        let frameBudget = quantizer.budget
        var shown: [UInt32] = [], shownLab: [SIMD4<Float>] = [], history: PixelHistory? = nil
        swap(&shown, &self.shown); swap(&shownLab, &self.shownLab); swap(&history, &self.history)
        defer { swap(&shown, &self.shown); swap(&shownLab, &self.shownLab); swap(&history, &self.history) }
        pixels.withUnsafeBufferPointer { px in
            shown.withUnsafeMutableBufferPointer { shown in
                shownLab.withUnsafeMutableBufferPointer { shownLab in
                    for y in 0..<rect.height {
                        for x in 0..<rect.width {
                            let p = (rect.y + y) * width + rect.x + x
                            let i = y * rect.width + x
                            let isNew = first || changed[p]
                            let v = indices[p]
                            let want: UInt32
                            if isNew {
                                if let t, Int(v) == t {
                                    want = 0  // transparent in the source
                                } else {
                                    let c = colors[Int(v)]
                                    want = 0xFF00_0000 | UInt32(c.r) << 16 | UInt32(c.g) << 8 | UInt32(c.b)
                                }
                            } else {
                                want = shown[p]
                            }
                            // The lossy coder's view: what the pixel should show, what is on screen
                            // now, and how far it may stray (only where the source changed).
                            let old = shown[p]
                            if isNew, history != nil {
                                let o = p * 4
                                history!.move(p, to: PixelHistory.key(px[o], px[o + 1], px[o + 2], px[o + 3]), leaving: old)
                            }
                            before[i] = old
                            if old != 0 { behind[i] = shownLab[p] }
                            if want == 0 {
                                budget[i] = -1
                            } else {
                                // A pixel that shows something else than before is a new one.
                                target[i] = want == old ? behind[i] : paletteLab[Int(v)]
                                budget[i] = isNew ? frameBudget[p] : 0
                            }
                            // The plain form needs every pixel as an index of this frame's palette.
                            if isNew {
                                plain[i] = v
                            } else if plainPossible {
                                if let g = want == 0 ? t ?? 0 : globalMapper.exactIndex(key: want) {
                                    plain[i] = UInt8(g)
                                } else {
                                    plainPossible = false
                                }
                            }
                            if let t, !first, want == old {
                                masked[i] = UInt8(t)
                                usesTransparency = true
                            } else {
                                masked[i] = v
                            }
                            shown[p] = want
                            shownLab[p] = target[i]
                        }
                    }
                }
            }
        }
        let local = isLocal ? colors : nil
        // The candidates; the smallest once encoded is written.
        var blocks: [GIFBlock] = []
        if plainPossible { blocks.append(GIFBlock(rect: rect, data: plain, transparent: first ? t : nil, localColors: local)) }
        if usesTransparency || blocks.isEmpty { blocks.append(GIFBlock(rect: rect, data: masked, transparent: t, localColors: local)) }
        if !first && !isLocal { blocks += blocks.compactMap { $0.withLocalTable(self.palette) } }
        if isLocal {
            blocks = blocks.map { $0.withUsedColors() ?? $0 }
            localPaletteFrames += 1
        }
        let latitude = LZWLatitude(symbolColors: fileLab, transparent: nil, target: target, behind: behind, budget: budget)
        pending = (blocks, delay, latitude, before)
    }

    /// The latitude for one candidate block: its own table's colours and transparent index.
    /// Nil (plain, exact coding) when it allows no symbol but each pixel's own (see
    /// ``LZWLatitude/allowsSubstitutes``): the lossy search would find the same strings at
    /// twice the time (an exact picture's whole first frame).
    private func latitude(for block: GIFBlock, _ base: LZWLatitude) -> LZWLatitude? {
        var l = base
        if let local = block.localColors { l.symbolColors = GIFWriter.labTable(local) }
        if let t = block.transparent, t < l.symbolColors.count { l.symbolColors[t] = LZWLatitude.none }
        l.transparent = block.transparent
        return l.allowsSubstitutes ? l : nil
    }

    /// Hands the pending frame's candidate blocks to ``coder``, once.
    private func startCoding() {
        guard let p = pending, !coding else { return }
        coding = true
        let candidates = p.blocks.map(inFileOrder).map { ($0, latitude(for: $0, p.latitude)) }
        // The pending frame is the next one written.
        let early = earlyPasses.map { framesWritten >= $0.count || $0[framesWritten] } ?? true
        coder.start(candidates, globalTableSize: palette.tableSize, early: early)
    }

    private func flushPending() throws {
        guard let p = pending else { return }
        startCoding()
        let (block, stream, symbols, early) = coder.result()
        recording?.earlyWins.append(early)
        pending = nil
        coding = false
        // What is on screen now: the coder may have written other colours than asked.
        let colors = block.localColors ?? fileColors
        let lab = Self.labTable(colors)
        let rect = block.rect
        // Through buffer pointers: the properties' exclusivity checks, made per pixel, would
        // be a fifth of this loop's time.
        shown.withUnsafeMutableBufferPointer { shown in
            shownLab.withUnsafeMutableBufferPointer { shownLab in
                for y in 0..<rect.height {
                    for x in 0..<rect.width {
                        let i = y * rect.width + x
                        let s = Int(symbols[i])
                        let q = (rect.y + y) * width + rect.x + x
                        if s == block.transparent {
                            shown[q] = p.before[i]
                            shownLab[q] = p.latitude.behind[i]
                        } else if s < colors.count {
                            let c = colors[s]
                            shown[q] = 0xFF00_0000 | UInt32(c.r) << 16 | UInt32(c.g) << 8 | UInt32(c.b)
                            shownLab[q] = lab[s]
                        }
                    }
                }
            }
        }
        try file.writeFrame(
            block.bytes(stream: stream, minCodeSize: block.codeSize(globalTableSize: palette.tableSize)), delay: p.delay,
            transparent: block.transparent)
        framesWritten += 1
    }

    /// Writes the last frame and the trailer, and closes the file.
    package func finish() throws {
        if let (delay, screenTime) = held {
            held = nil
            try write(preparer.result(), delay: delay, screenTime: screenTime)
        }
        try flushPending()
        try file.close()
        recording?.complete = true
    }

    /// Bytes written so far.
    package var bytesWritten: Int { file.bytesWritten }
}
