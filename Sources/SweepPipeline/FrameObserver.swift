import Foundation
import SweepImaging
import SweepSupport
import SweepTimeline

/// Sees every finished frame of a render, whatever the sink: it feeds the WCAG 2.3.1 flash
/// check and reports progress. One per render, used on the thread that writes frames.
final class FrameObserver {
    private var flashes: FlashDetector
    private let progress: Renderer.Progress?
    private let total: Int
    private let watch: Watch?
    private let cancellation: CancellationFlag?

    /// How far a render has got: frames done (of `frames`) and bytes written so far, and
    /// the colours of the output's palette, where it has one.
    struct Written {
        let done: Int
        let frames: Int
        let bytes: Int
        let colors: Int?
    }

    /// Looks at each frame's bytes as they are written; throws to stop the render there
    /// (nothing is then committed).
    typealias Watch = (Written) throws -> Void

    init(fps: Double, total: Int, progress: Renderer.Progress?, watch: Watch? = nil, cancellation: CancellationFlag? = nil) {
        self.cancellation = cancellation
        flashes = FlashDetector(fps: fps)
        self.total = total
        self.progress = progress
        self.watch = watch
    }

    /// The sink has `bytes` written after frame `done` − 1 (some frames may still be on their
    /// way to the file); the watch may stop the render.
    func wrote(bytes: Int, done: Int, colors: Int?) throws {
        try watch?(Written(done: done, frames: total, bytes: bytes, colors: colors))
    }

    /// Frame number `done` − 1 is finished.
    ///
    /// - Throws: `CancellationError` once the render was cancelled.
    func saw(_ frame: RGBAImage, done: Int) throws {
        if cancellation?.isCancelled == true { throw CancellationError() }
        flashes.add(LuminanceProbe.regions(frame))
        progress?(RenderProgress(done: done, total: total))
    }

    /// The same for a Y′CbCr frame.
    func saw(_ frame: YUVImage, done: Int) throws {
        if cancellation?.isCancelled == true { throw CancellationError() }
        flashes.add(LuminanceProbe.regions(frame))
        progress?(RenderProgress(done: done, total: total))
    }

    /// The flash warning for the frames seen, or nil when they pass.
    ///
    /// - Throws: ``SweepError/Code/dataError`` instead when `refuse` is set.
    func flashWarning(refuse: Bool, output: String) throws -> String? {
        guard flashes.fails else { return nil }
        let at = String(format: "%.2f", flashes.firstViolation ?? 0)
        let what = "flashes \(flashes.maxFlashesPerSecond) times within one second (from \(at) s), over WCAG 2.3.1's limit of 3"
        if refuse {
            throw SweepError(.dataError, what, subject: output, fix: "slow the changes down, or use reduced motion (dissolve)")
        }
        return "warning: " + what
    }
}
