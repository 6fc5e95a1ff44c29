import SweepGIF
import SweepImaging
import SweepSupport
import SweepTimeline

/// Writes an animated GIF: one palette for the whole animation, built from frames spread
/// evenly over time (so colours weigh by screen time), with the overlay's colours exact.
struct GIFSink: FrameSink, ~Copyable {
    private let output: AtomicOutput
    private let writer: GIFWriter
    private let delays: [Int]
    let formatName = "gif"
    var bytes: Int { writer.bytesWritten }
    var framesWritten: Int { writer.framesWritten }

    init(spec: RenderSpec, plan: FramePlan, destination: String) throws {
        let output = try AtomicOutput(destination: destination)
        let count = plan.count
        let samples = try stride(from: 0, to: count, by: max(1, count / 12)).map {
            (image: try plan.sample($0), weight: 1.0)
        }
        try plan.rewind()
        let style = spec.style
        var reserved: [RGBA8] = []
        if style.showHandle { reserved += [style.dividerColor, style.knobColor] }
        if style.showLabels { reserved.append(style.labelColor) }
        let quality = GIFQuality(spec.quality)
        let palette = GIFPalette.build(
            samples: samples, count: spec.gifColors, reserved: reserved, transparent: true,
            iterations: quality.paletteIterations)
        // The NETSCAPE block counts repeats after the first play; none means play once.
        let loopCount: Int? =
            switch plan.animation.loop {
            case .once: nil
            case let .count(n): n <= 1 ? nil : n - 1
            case .forever, .boomerang: 0
            }
        writer = try GIFWriter(
            path: output.temporaryPath, destination: destination, width: plan.width, height: plan.height,
            palette: palette, dither: spec.dither, quality: quality, lossy: spec.lossy, loopCount: loopCount)
        delays = GIFTiming.delays(count: count, fps: plan.fps)
        self.output = output
    }

    mutating func write(_ plan: FramePlan, observer: FrameObserver) throws {
        let writer = writer, delays = delays
        try FramePump.run(count: plan.count, width: plan.width, height: plan.height, render: plan.render) { i, frame in
            try writer.add(frame, delay: delays[i])
            observer.saw(frame, done: i + 1)
        }
        try writer.finish()
    }

    consuming func commit() throws { try output.commit() }
}
