#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A one-line progress bar on stderr (frames, frames per second, ETA), drawn only when
/// both stdout and stderr are terminals.
final class ProgressBar: @unchecked Sendable {
    private let enabled: Bool
    private let label: String
    private let start = Date()
    private var lastDraw = Date.distantPast
    private let lock = NSLock()

    init(enabled: Bool, label: String = "") {
        self.enabled = enabled && isatty(1) == 1 && isatty(2) == 1
        self.label = label
    }

    /// Called by the renderer after each frame.
    var update: @Sendable (Int, Int) -> Void {
        { [self] done, total in draw(done, total) }
    }

    private func draw(_ done: Int, _ total: Int) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        let now = Date()
        if done < total && now.timeIntervalSince(lastDraw) < 0.1 { return }
        lastDraw = now
        let elapsed = now.timeIntervalSince(start)
        let fps = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = fps > 0 ? Double(total - done) / fps : 0
        let width = 24
        let filled = total > 0 ? width * done / total : 0
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let line = String(format: "\r%@ %@ %d/%d frames  %.0f fps  ETA %.1f s ", label, bar, done, total, fps, eta)
        TerminalText.write(line)
    }

    func finish() {
        guard enabled else { return }
        TerminalText.write("\r\u{1B}[K")
    }
}
