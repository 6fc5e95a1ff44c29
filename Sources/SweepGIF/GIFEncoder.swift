import SweepImaging
import SweepSupport

/// A GIF from frames: SweepGIF's front door. It plans the palettes once, from frames spread
/// evenly over the animation (so colours weigh by screen time): the global table (for a
/// photo, fitted to what the frames after the first show unless they come back to it), the
/// first frame's own table, which it takes when that fits it better, and the tables of
/// stretches of frames; the overlay's colours stay exact. Then it codes each frame
/// (``GIFWriter``).
package final class GIFEncoder {
    /// What a GIF is asked for.
    package struct Settings: Sendable {
        package var quality: GIFQuality
        /// The most colours a palette may hold (`--colors`); the quality may give fewer.
        package var colors: Int
        package var dither: DitherMode
        /// An expert override of the lossy LZW budget, 0…100.
        package var lossy: Int?
        /// `nil` plays once; 0 forever; n repeats n times after the first play.
        package var loopCount: Int?
        /// The handle's and tags' colours: kept exact, with no lossy latitude near them.
        package var overlayColors: [RGBA8]
        /// Per frame written, whether its early-reset pass runs (nil: every frame's; see
        /// ``GIFWriter/earlyPasses``).
        package var earlyPasses: [Bool]?

        package init(
            quality: GIFQuality = .default, colors: Int = 256, dither: DitherMode = .diffusion, lossy: Int? = nil, loopCount: Int? = 0,
            overlayColors: [RGBA8] = []
        ) {
            (self.quality, self.colors, self.dither, self.lossy) = (quality, colors, dither, lossy)
            (self.loopCount, self.overlayColors) = (loopCount, overlayColors)
        }
    }

    private let writer: GIFWriter
    /// The global palette's size: the visible colours of its table.
    package let paletteColors: Int
    package var bytesWritten: Int { writer.bytesWritten }
    package var framesWritten: Int { writer.framesWritten }
    /// Frames that coding a recording again had to quantize again (see ``QuantizedFrames``).
    package var requantizedFrames: Int { writer.requantizedFrames }

    /// The frames the palettes are planned from: about twelve, spread evenly.
    package static func sampleIndices(frameCount: Int) -> [Int] {
        Array(stride(from: 0, to: frameCount, by: max(1, frameCount / 12)))
    }

    /// True when the planning also wants the last frame (no sample is it): a stretch's key
    /// frame, and a look easing back to the first frame's just before the end.
    package static func wantsLast(frameCount: Int, quality: GIFQuality) -> Bool {
        quality.allowsOwnTables && (sampleIndices(frameCount: frameCount).last ?? frameCount - 1) < frameCount - 1
    }

    /// Plans the palettes from `samples` (the frames at ``sampleIndices(frameCount:)``) and
    /// `last` (when ``wantsLast(frameCount:quality:)``), then opens `path` and writes the header.
    /// Given a `recording`, each frame's quantization is kept in it, for ``recode(_:lossy:path:destination:)``.
    package init(
        path: String, destination: String, width: Int, height: Int, frameCount count: Int, samples sampled: [RGBAImage],
        last: RGBAImage?, settings: Settings, recording: QuantizedFrames? = nil
    ) throws {
        let quality = settings.quality, reserved = settings.overlayColors
        let samples = sampled.map { (image: $0, weight: 1.0) }
        // A photo gets fewer colours below quality 80, any picture below 60, within --colors.
        let colors = GIFPalette.entries(for: samples, quality: quality, cap: settings.colors)
        // The first frame is written whole, once, and may take a table of its own, built on
        // the other core. Unless later frames come back to it, the global table is fitted to
        // what they show unlike it (``GIFPalette/changes(since:)``), weighed by screen time:
        // a wipe's after picture, not a compromise with the before picture, which the first
        // frame's table holds (E at quality 90: S-CIELAB ΔE 1.103 instead of 1.282;
        // docs/decisions/gif-encoder.md). Only for a photo from 70 up: below, as with the
        // stretches' tables, and on flat pictures (screenshots, gradients) at any setting, the
        // finer colours cost more bytes than their error is worth (a gradient pair: 22–27 % more
        // bytes from 60 down; two held-out pages: 2–3 % more at 70–90, for less quality per byte).
        // The last frame counts for what comes back (weight 0: it is not fitted twice).
        let later =
            quality.allowsOwnTables && GIFPalette.isTextured(samples)
            ? GIFPalette.changes(since: samples + (last.map { [($0, 0)] } ?? [])) : nil
        let iterations = quality.paletteIterations
        func build(_ samples: [(image: RGBAImage, weight: Double)]) -> GIFPalette {
            GIFPalette.build(samples: samples, count: colors, reserved: reserved, transparent: true, iterations: iterations)
        }
        // The global palette, and the first frame's own where there are several samples, on both cores.
        let built =
            samples.count > 1
            ? try Pending.both({ build(later ?? samples) }, { Optional(build([samples[0]])) })
            : (build(later ?? samples), nil)
        var palette = built.0
        let first = built.1
        var fittedToLater = later != nil
        if fittedToLater && palette.isExact {
            // The later frames alone have few colours: an exact table is coded losslessly and
            // brings pixels back as they were, so it must hold the first frame's colours too.
            palette = build(samples)
            fittedToLater = false
        }
        // Each stretch between samples (and the last frame) may get a palette of its own.
        var stretches = StretchPalettes.none
        if !palette.isExact && quality.allowsOwnTables {
            var keyFrames = zip(Self.sampleIndices(frameCount: count), sampled).map { (index: $0, image: $1) }
            if let last { keyFrames.append((count - 1, last)) }
            stretches = StretchPalettes.plan(keyFrames: keyFrames, global: palette, colors: colors, reserved: reserved, quality: quality)
        }
        writer = try GIFWriter(
            path: path, destination: destination, width: width, height: height, palette: palette, dither: settings.dither,
            quality: quality, lossy: settings.lossy, loopCount: settings.loopCount, firstFramePalette: first,
            firstFrameShare: fittedToLater ? 1 : 0.8,
            darkFirst: Self.meanLuma(samples.dropFirst()) <= Self.meanLuma(samples.prefix(1)),
            usage: ColorUsage(samples: sampled, step: max(1, count / 12), palette: palette),
            overlayColors: reserved, stretches: stretches, recording: recording)
        writer.earlyPasses = settings.earlyPasses
        paletteColors = palette.colors.count
    }

    private init(writer: GIFWriter) {
        self.writer = writer
        paletteColors = writer.palette.colors.count
    }

    /// Codes a finished encoder's `recording` again into `path` (normally an
    /// ``AtomicOutput``'s temporary path) with the lossy budget of `--lossy lossy` (1…100),
    /// without quantizing again: the same bytes as encoding the frames again with that
    /// `lossy`, the recording's other settings and its early-reset passes
    /// (``Settings/earlyPasses`` set to ``QuantizedFrames/earlyWins``) would give. The recording must be
    /// ``QuantizedFrames/replayable``. Returns the finished encoder (its bytes and frames).
    /// `watch` is told the bytes written after each frame and how many frames are done; it
    /// may throw to stop.
    package static func recode(
        _ recording: QuantizedFrames, lossy: Int, path: String, destination: String,
        watch: ((_ bytes: Int, _ done: Int) throws -> Void)? = nil
    ) throws -> GIFEncoder {
        GIFEncoder(writer: try GIFWriter.recode(recording, lossy: lossy, path: path, destination: destination, watch: watch))
    }

    /// Codes `frame`, shown for `delay` centiseconds; `screenTime` scales its lossy latitude.
    package func add(_ frame: RGBAImage, delay: Int, screenTime: ScreenTime?) throws {
        try writer.add(frame, delay: delay, screenTime: screenTime)
    }

    /// Writes what is held back and the trailer.
    package func finish() throws { try writer.finish() }

    /// The mean luma (0…255, BT.709 weights) of a sparse grid of the samples' pixels.
    static func meanLuma(_ samples: ArraySlice<(image: RGBAImage, weight: Double)>) -> Double {
        var sum = 0.0, n = 0.0
        for (image, _) in samples {
            let p = image.pixels
            for i in stride(from: 0, to: p.count, by: 4 * 61) {
                sum += 0.2126 * Double(p[i]) + 0.7152 * Double(p[i + 1]) + 0.0722 * Double(p[i + 2])
                n += 1
            }
        }
        return n > 0 ? sum / n : 0
    }
}
