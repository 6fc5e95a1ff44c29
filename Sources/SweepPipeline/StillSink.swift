import SweepImaging
import SweepMedia
import SweepSupport

/// Writes one still (PNG, JPEG or WebP) of the first frame state.
struct StillSink: FrameSink, ~Copyable {
    private let output: AtomicOutput
    let format: StillEncoder.Format
    let quality: Int
    var formatName: String { format.rawValue }
    private(set) var bytes: Int
    private(set) var framesWritten: Int

    init(format: StillEncoder.Format, quality: Int, destination: String) throws {
        output = try AtomicOutput(destination: destination)
        self.format = format
        self.quality = quality
        bytes = 0
        framesWritten = 0
    }

    mutating func write(_ plan: FramePlan, observer: FrameObserver) throws {
        let frame = try plan.sample(0)
        let data = try StillEncoder.encode(frame, format: format, quality: quality, name: output.destination)
        try FileBytes.write(data, to: output.writePath, reportAs: output.destination)
        bytes = data.count
        framesWritten = 1
        try observer.saw(frame, done: 1)
    }

    consuming func commit() throws { try output.commit() }
}
