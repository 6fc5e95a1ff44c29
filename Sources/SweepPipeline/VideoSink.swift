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

    /// - Parameter audio: a clip's sound to carry along (see ``Renderer/soundtrack``).
    init(spec: RenderSpec, plan: FramePlan, codec: VideoCodec, container: String, destination: String, audio: AudioInput? = nil) throws {
        let output = try AtomicOutput(destination: destination)
        writer = try VideoWriter(
            path: output.temporaryPath, destination: destination, width: plan.width,
            height: plan.height, fps: plan.fps, codec: codec, container: container,
            alpha: spec.style.background.a < 255, options: spec.videoOptions, audio: audio)
        formatName = codec.name
        bytes = 0
        self.output = output
    }

    mutating func write(_ plan: FramePlan, observer: FrameObserver) throws {
        let writer = writer
        let (w, h) = (plan.width, plan.height)
        if writer.acceptsYUV420 && plan.onlySplitMoves, plan.clipTimes != nil {
            try writeClipsInYUV(plan, observer: observer)
        } else if writer.acceptsYUV420 && plan.onlySplitMoves {
            let looks = plan.source.sides(
                before: plan.animation.before.keyframes[0].value,
                after: plan.animation.after.keyframes[0].value)
            let yuv = YUVCompositor(
                before: try writer.convert(looks.before), after: try writer.convert(looks.after),
                overlay: plan.source.overlay)
            let states = plan.states
            try FramePump.run(
                count: plan.count, make: { YUVImage(width: w, height: h) },
                render: { i, frame in yuv.render(position: states[i].position, into: &frame) }
            ) { _, frame in
                try writer.add(frame)
                observer.saw(frame, done: writer.framesWritten)
            }
        } else {
            try FramePump.run(count: plan.count, width: w, height: h, render: plan.render) { _, frame in
                try writer.add(frame)
                observer.saw(frame, done: writer.framesWritten)
            }
        }
        try writer.finish()
        bytes = FileBytes.size(output.temporaryPath)
    }

    /// Video inputs whose frames need no look and can be scaled straight into the encoder's
    /// Y′CbCr are composed there; otherwise each frame goes through RGBA.
    private func writeClipsInYUV(_ plan: FramePlan, observer: FrameObserver) throws {
        let writer = writer
        let (w, h) = (plan.width, plan.height)
        let source = plan.source, times = plan.clipTimes!, states = plan.states
        let looks = (plan.animation.before.keyframes[0].value, plan.animation.after.keyframes[0].value)
        guard let direct = source.yuvSides(before: looks.0, after: looks.1, writer: writer) else {
            try FramePump.run(count: plan.count, width: w, height: h, render: plan.render) { _, frame in
                try writer.add(frame)
                observer.saw(frame, done: writer.framesWritten)
            }
            return
        }
        let yuv = YUVCompositor(before: direct.stillBefore, after: direct.stillAfter, overlay: source.overlay)
        try FramePump.run(
            count: plan.count, make: { YUVImage(width: w, height: h) },
            render: { i, frame in
                let (b, a) = try source.yuvFrames(at: times[i], stills: direct)
                yuv.render(position: states[i].position, before: b, after: a, into: &frame)
            }
        ) { _, frame in
            try writer.add(frame)
            observer.saw(frame, done: writer.framesWritten)
        }
    }

    consuming func commit() throws { try output.commit() }
}
