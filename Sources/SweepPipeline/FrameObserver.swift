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

    init(fps: Double, total: Int, progress: Renderer.Progress?) {
        flashes = FlashDetector(fps: fps)
        self.total = total
        self.progress = progress
    }

    /// Frame number `done` − 1 is finished.
    func saw(_ frame: RGBAImage, done: Int) {
        flashes.add(LuminanceProbe.regions(frame))
        progress?(done, total)
    }

    /// The same for a Y′CbCr frame.
    func saw(_ frame: YUVImage, done: Int) {
        flashes.add(LuminanceProbe.regions(frame))
        progress?(done, total)
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
