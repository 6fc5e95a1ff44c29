import SweepGIF
import SweepImaging
import SweepSupport
import SweepTimeline

/// Writes an animated GIF through ``GIFEncoder``, which plans its palettes from sample frames
/// of the plan: the sink picks the samples, the overlay's colours, the loop and the delays.
struct GIFSink: FrameSink, ~Copyable {
    private let output: AtomicOutput
    private let encoder: GIFEncoder
    private let delays: [Int]
    let formatName = "gif"
    var bytes: Int { encoder.bytesWritten }
    var framesWritten: Int { encoder.framesWritten }
    var paletteColors: Int? { encoder.paletteColors }

    /// Given a `recording`, the encoder keeps each frame's quantization in it (``QuantizedFrames``).
    init(spec: RenderSpec, plan: FramePlan, destination: String, recording: QuantizedFrames? = nil) throws {
        let output = try AtomicOutput(destination: destination)
        let count = plan.count
        let quality = GIFQuality(spec.quality)
        let samples = try GIFEncoder.sampleIndices(frameCount: count).map { try plan.sample($0) }
        let last = GIFEncoder.wantsLast(frameCount: count, quality: quality) ? try plan.sample(count - 1) : nil
        try plan.rewind()
        let style = spec.style
        var reserved: [RGBA8] = []
        if style.showHandle { reserved += [style.dividerColor, style.knobColor] }
        if style.showLabels { reserved.append(style.labelColor) }
        // The NETSCAPE block counts repeats after the first play; none means play once.
        let loopCount: Int? =
            switch plan.animation.loop {
            case .once: nil
            case let .count(n): n <= 1 ? nil : n - 1
            case .forever, .boomerang: 0
            }
        encoder = try GIFEncoder(
            path: output.writePath, destination: destination, width: plan.width, height: plan.height, frameCount: count,
            samples: samples, last: last,
            settings: GIFEncoder.Settings(
                quality: quality, colors: spec.gifColors, dither: spec.dither, lossy: spec.lossy, loopCount: loopCount,
                overlayColors: reserved), recording: recording)
        delays = GIFTiming.delays(count: count, fps: plan.fps)
        self.output = output
    }

    mutating func write(_ plan: FramePlan, observer: FrameObserver) throws {
        let encoder = encoder, delays = delays, colors = paletteColors
        let times = ScreenTimePlan(plan: plan, delays: delays)
        try FramePump.run(count: plan.count, width: plan.width, height: plan.height, render: plan.render) { i, frame in
            try encoder.add(frame, delay: delays[i], screenTime: times?.screenTime(frame: i))
            try observer.saw(frame, done: i + 1)
            try observer.wrote(bytes: encoder.bytesWritten, done: i + 1, colors: colors)
        }
        try encoder.finish()
    }

    consuming func commit() throws { try output.commit() }
}
