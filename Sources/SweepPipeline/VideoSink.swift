import SweepImaging
import SweepMedia
import SweepSupport
import SweepTimeline

/// Writes a video through libavcodec/libavformat.
///
/// When the encoder takes 4:2:0 and nothing but the split moves, both sides are converted
/// to Y′CbCr once and every frame is composed there (``YUVCompositor``): no per-frame
/// RGB → Y′CbCr conversion remains.
struct VideoSink: FrameSink, ~Copyable {
    private let output: AtomicOutput
    private let writer: VideoWriter
    let formatName: String
    private(set) var bytes: Int
    var framesWritten: Int { writer.framesWritten }
    var audioCodecs: (input: String, output: String, copied: Bool)? { writer.audioCodecs }

    /// - Parameter audio: a clip's sound to carry along (see ``Renderer/soundtrack``).
    init(spec: RenderSpec, plan: FramePlan, codec: VideoCodec, container: String, destination: String, audio: AudioInput? = nil) throws {
        let output = try AtomicOutput(destination: destination)
        writer = try VideoWriter(
            path: output.writePath, destination: destination, width: plan.width,
            height: plan.height, fps: plan.fps, codec: codec, container: container,
            alpha: spec.style.background.a < 255, options: spec.videoOptions, audio: audio,
            plays: Self.plays(plan.animation.loop))
        formatName = codec.name
        bytes = 0
        self.output = output
    }

    /// How often an animated WebP or APNG plays: every play counted, 0 for forever (a
    /// boomerang's way back is in its frames).
    static func plays(_ loop: LoopMode) -> Int {
        switch loop {
        case .once: 1
        case let .count(n): max(1, n)
        case .forever, .boomerang: 0
        }
    }

    mutating func write(_ plan: FramePlan, observer: FrameObserver) throws {
        let writer = writer
        let (w, h) = (plan.width, plan.height)
        if writer.acceptsYUV420 && plan.onlySplitMoves, let render = try composeInYUV(plan) {
            try FramePump.run(count: plan.count, make: { YUVImage(width: w, height: h) }, render: render) { _, frame in
                try writer.add(frame)
                try observer.saw(frame, done: writer.framesWritten)
            }
        } else {
            try FramePump.run(count: plan.count, width: w, height: h, render: plan.render) { _, frame in
                try writer.add(frame)
                try observer.saw(frame, done: writer.framesWritten)
            }
        }
        try writer.finish()
        bytes = FileBytes.size(output.temporaryPath)
    }

    /// How frame *i* is composed in the encoder's Y′CbCr when nothing but the split moves:
    /// stills converted once; clips whose frames need no look go straight there too. `nil`
    /// when a clip needs the RGBA path.
    private func composeInYUV(_ plan: FramePlan) throws -> ((Int, inout YUVImage) throws -> Void)? {
        let source = plan.source, states = plan.states
        let looks = (before: plan.animation.before.keyframes[0].value, after: plan.animation.after.keyframes[0].value)
        guard let times = plan.clipTimes else {
            let sides = source.sides(before: looks.before, after: looks.after)
            let yuv = YUVCompositor(
                before: try writer.convert(sides.before), after: try writer.convert(sides.after), overlay: source.overlay)
            return { i, frame in yuv.render(position: states[i].position, into: &frame) }
        }
        guard let stills = source.yuvSides(before: looks.before, after: looks.after, writer: writer) else { return nil }
        let yuv = YUVCompositor(before: stills.stillBefore, after: stills.stillAfter, overlay: source.overlay)
        return { i, frame in
            let (b, a) = try source.yuvFrames(at: times[i], stills: stills)
            yuv.render(position: states[i].position, before: b, after: a, into: &frame)
        }
    }

    consuming func commit() throws { try output.commit() }
}
