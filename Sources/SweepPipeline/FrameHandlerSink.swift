import SweepImaging

/// Hands each frame to a closure instead of writing a file (``Renderer/frames(_:progress:_:)``):
/// the same plan, sizes and clip timing a file would get.
struct FrameHandlerSink: FrameSink {
    let handle: (Int, RGBAImage) throws -> Void
    var formatName: String { "frames" }
    var bytes: Int { 0 }
    private(set) var framesWritten = 0

    mutating func write(_ plan: FramePlan, observer: FrameObserver) throws {
        var written = 0
        try FramePump.run(count: plan.count, width: plan.width, height: plan.height, render: plan.render) { i, frame in
            try handle(i, frame)
            written += 1
            try observer.saw(frame, done: i + 1)
        }
        framesWritten = written
    }

    consuming func commit() throws {}
}
