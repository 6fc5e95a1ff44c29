import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A one-line progress bar on stderr (frames, frames per second, ETA), drawn only when
/// both stdout and stderr are terminals.
final class ProgressBar: Sendable {
    private let enabled: Bool
    private let label: String
    private let start = Date()
    /// What the bar remembers between frames; the mutex also keeps two threads' lines apart.
    private struct State {
        var lastDraw = Date.distantPast
        /// The first frame's report: the rate is measured from there, so that decoding the
        /// inputs (before any frame) does not inflate the first estimate.
        var first: (done: Int, time: Date)?
        var shownETA: Double?
    }
    private let state = Mutex(State())

    /// The ETA to show after `frames` frames in `seconds` (both counted from the first
    /// frame) with `remaining` to go, or nil while too little is known (under 3 frames or
    /// 0.5 s). Smoothed: the new estimate moves the shown one (`previous`, already counted
    /// down by the time since it was shown) a third of the way, so one slow frame does not
    /// make the number jump.
    static func eta(frames: Int, seconds: Double, remaining: Int, previous: Double?) -> Double? {
        guard frames >= 3, seconds >= 0.5 else { return nil }
        let raw = Double(remaining) * seconds / Double(frames)
        guard let previous else { return raw }
        return max(0, previous + (raw - previous) / 3)
    }

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
        state.withLock { st in
            let now = Date()
            if st.first == nil { st.first = (done, now) }
            if done < total && now.timeIntervalSince(st.lastDraw) < 0.1 { return }
            let sinceDraw = st.lastDraw == .distantPast ? 0 : now.timeIntervalSince(st.lastDraw)
            st.lastDraw = now
            let elapsed = now.timeIntervalSince(start)
            let fps = elapsed > 0 ? Double(done) / elapsed : 0
            let (firstDone, firstTime) = st.first ?? (done, now)
            st.shownETA = Self.eta(
                frames: done - firstDone, seconds: now.timeIntervalSince(firstTime), remaining: total - done,
                previous: st.shownETA.map { max(0, $0 - sinceDraw) })
            let width = 24
            let filled = total > 0 ? width * done / total : 0
            let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
            let eta = st.shownETA.map { String(format: "ETA %.1f s", $0) } ?? "ETA …"
            let line = String(format: "\r%@ %@ %d/%d frames  %.0f fps  %@ ", label, bar, done, total, fps, eta)
            TerminalText.write(line)
        }
    }

    func finish() {
        guard enabled else { return }
        TerminalText.write("\r\u{1B}[K")
    }
}
