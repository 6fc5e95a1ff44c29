import Dispatch
import SweepGIF
import SweepImaging
import SweepSupport
import SweepTimeline

/// Writes an animated GIF: a global palette built from frames spread evenly over time (so
/// colours weigh by screen time), for a photo fitted to what the frames after the first
/// show unless they come back to it, and one for the first frame, which it takes when that
/// fits it better; the overlay's colours exact.
struct GIFSink: FrameSink, ~Copyable {
    private let output: AtomicOutput
    private let writer: GIFWriter
    private let delays: [Int]
    let formatName = "gif"
    var bytes: Int { writer.bytesWritten }
    var framesWritten: Int { writer.framesWritten }
    let paletteColors: Int?

    init(spec: RenderSpec, plan: FramePlan, destination: String) throws {
        let output = try AtomicOutput(destination: destination)
        let count = plan.count
        let sampled = Array(stride(from: 0, to: count, by: max(1, count / 12)))
        let samples = try sampled.map { (image: try plan.sample($0), weight: 1.0) }
        let quality = GIFQuality(spec.quality)
        // The last frame, when no sample is it, for what it ends on: a stretch's key frame, and
        // a look easing back to the first frame's just before the end.
        let last = quality.allowsOwnTables && (sampled.last ?? count - 1) < count - 1 ? try plan.sample(count - 1) : nil
        try plan.rewind()
        let style = spec.style
        var reserved: [RGBA8] = []
        if style.showHandle { reserved += [style.dividerColor, style.knobColor] }
        if style.showLabels { reserved.append(style.labelColor) }
        // A photo gets fewer colours below quality 80, any picture below 60, within --colors.
        let colors = GIFPalette.entries(for: samples, quality: quality, cap: spec.gifColors)
        // The first frame is written whole, once, and may take a table of its own, built on
        // the other core. Unless later frames come back to it, the global table is fitted to
        // what they show unlike it (``GIFPalette/changes(since:)``), weighed by screen time:
        // a wipe's after picture, not a compromise with the before picture, which the first
        // frame's table holds (E at quality 90: S-CIELAB ΔE 1.282 → 1.103; Benchmarks/README.md,
        // sixteenth round). Only for a photo from 70 up: below, as with the stretches' tables,
        // and on flat pictures (screenshots, gradients) at any setting, the finer colours cost
        // more bytes than their error is worth (a gradient pair: 22–27 % more bytes from 60
        // down; two held-out pages: 2–3 % more at 70–90, for less quality per byte).
        // The last frame counts for what comes back (weight 0: it is not fitted twice).
        let later =
            quality.allowsOwnTables && GIFPalette.isTextured(samples)
            ? GIFPalette.changes(since: samples + (last.map { [($0, 0)] } ?? [])) : nil
        let iterations = quality.paletteIterations, overlay = reserved
        // The global palette, and the first frame's own where there are several samples, on both cores.
        func build(_ samples: [(image: RGBAImage, weight: Double)]) -> GIFPalette {
            GIFPalette.build(samples: samples, count: colors, reserved: overlay, transparent: true, iterations: iterations)
        }
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
            palette = GIFPalette.build(samples: samples, count: colors, reserved: overlay, transparent: true, iterations: iterations)
            fittedToLater = false
        }
        // Each stretch between samples (and the last frame) may get a palette of its own.
        var stretches = StretchPalettes.none
        if !palette.isExact && quality.allowsOwnTables {
            var keyFrames = zip(sampled, samples).map { (index: $0, image: $1.image) }
            if let last { keyFrames.append((count - 1, last)) }
            stretches = StretchPalettes.plan(
                keyFrames: keyFrames, global: palette, colors: colors, reserved: reserved, quality: quality)
        }
        // The NETSCAPE block counts repeats after the first play; none means play once.
        let loopCount: Int? =
            switch plan.animation.loop {
            case .once: nil
            case let .count(n): n <= 1 ? nil : n - 1
            case .forever, .boomerang: 0
            }
        writer = try GIFWriter(
            path: output.writePath, destination: destination, width: plan.width, height: plan.height,
            palette: palette, dither: spec.dither, quality: quality, lossy: spec.lossy, loopCount: loopCount,
            firstFramePalette: first, firstFrameShare: fittedToLater ? 1 : 0.8,
            darkFirst: Self.meanLuma(samples.dropFirst()) <= Self.meanLuma(samples.prefix(1)),
            usage: ColorUsage(samples: samples.map(\.image), step: max(1, count / 12), palette: palette),
            overlayColors: reserved, stretches: stretches)
        delays = GIFTiming.delays(count: count, fps: plan.fps)
        paletteColors = palette.colors.count
        self.output = output
    }

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

    mutating func write(_ plan: FramePlan, observer: FrameObserver) throws {
        let writer = writer, delays = delays, colors = paletteColors
        let times = ScreenTimePlan(plan: plan, delays: delays)
        try FramePump.run(count: plan.count, width: plan.width, height: plan.height, render: plan.render) { i, frame in
            try writer.add(frame, delay: delays[i], screenTime: times?.screenTime(frame: i))
            try observer.saw(frame, done: i + 1)
            try observer.wrote(bytes: writer.bytesWritten, done: i + 1, colors: colors)
        }
        try writer.finish()
    }

    consuming func commit() throws { try output.commit() }
}
