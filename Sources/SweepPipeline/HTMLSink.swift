import SweepImaging
import SweepSupport

/// Writes the interactive page: the sides and the timeline, not frames (the browser draws
/// those). Each state is still shown to the observer, rendered small, so the flash check
/// and progress work as for every other output.
struct HTMLSink: FrameSink, ~Copyable {
    private let output: AtomicOutput
    private let spec: RenderSpec
    let formatName: String
    private(set) var bytes: Int
    let framesWritten = 1

    init(spec: RenderSpec, destination: String) throws {
        output = try AtomicOutput(destination: destination)
        self.spec = spec
        formatName = spec.html.fragment ? "html-fragment" : "html"
        bytes = 0
    }

    mutating func write(_ plan: FramePlan, observer: FrameObserver) throws {
        let page = try HTMLExport.page(spec, source: plan.source, name: output.destination)
        try FileBytes.write(page, to: output.writePath, reportAs: output.destination)
        bytes = page.count
        let small = try HTMLExport.flashProbeSource(spec, source: plan.source)
        var frame = RGBAImage(width: small.width, height: small.height)
        for (i, state) in plan.states.enumerated() {
            small.render(state, into: &frame)
            try observer.saw(frame, done: i + 1)
        }
    }

    consuming func commit() throws { try output.commit() }
}
