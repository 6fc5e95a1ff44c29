import Foundation
import SweepPipeline
import SweepSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Progress on stderr: a one-line bar (frames, frames per second, ETA) when both stdout
/// and stderr are terminals; otherwise, for a log, one line every 10 s of a render that
/// runs that long. A size cap's attempts show as "attempt k of ≤ n", each timed on its own.
final class ProgressBar: Sendable {
    private enum Mode { case off, bar, lines }
    private let mode: Mode
    private let label: String
    /// The output, named in the lines written for a log.
    private let output: String
    private let start = Date()
    /// What the bar remembers between frames; the mutex also keeps two threads' lines apart.
    private struct State {
        var lastDraw = Date.distantPast
        var lastLine: Date
        /// The attempt the timing below belongs to.
        var attempt = 0
        /// When the attempt began (its rate counts from there).
        var attemptStart: Date
        /// The first frame's report: the rate is measured from there, so that decoding the
        /// inputs (before any frame) does not inflate the first estimate.
        var first: (done: Int, time: Date)?
        var shownETA: Double?
    }
    private let state: Mutex<State>

    /// How often a line goes to a log.
    static let lineInterval = 10.0

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

    init(enabled: Bool, label: String = "", output: String) {
        mode = !enabled ? .off : isatty(1) == 1 && isatty(2) == 1 ? .bar : .lines
        self.label = label
        self.output = output
        let now = Date()
        state = Mutex(State(lastLine: now, attemptStart: now))
    }

    /// Called by the renderer after each frame.
    var update: @Sendable (RenderProgress) -> Void {
        { [self] p in report(p) }
    }

    private func report(_ p: RenderProgress) {
        guard mode != .off else { return }
        state.withLock { st in
            let now = Date()
            if p.attempt != st.attempt {
                // A new attempt: its own frames, rate and ETA.
                (st.attempt, st.attemptStart, st.first, st.shownETA) = (p.attempt, now, nil, nil)
            }
            if st.first == nil { st.first = (p.done, now) }
            let attempt = p.attempts > 1 ? "attempt \(p.attempt) of ≤ \(p.attempts)" + (p.trying.isEmpty ? "" : " (\(p.trying))") : ""
            if mode == .lines {
                guard now.timeIntervalSince(st.lastLine) >= Self.lineInterval else { return }
                st.lastLine = now
                let what = attempt.isEmpty ? "" : attempt + ": "
                TerminalText.write(
                    String(
                        format: "sweep: %@: %@frame %d of %d, %.0f s so far\n", TerminalText.escape(output), what, p.done, p.total,
                        now.timeIntervalSince(start)))
                return
            }
            if p.done < p.total && now.timeIntervalSince(st.lastDraw) < 0.1 { return }
            let sinceDraw = st.lastDraw == .distantPast ? 0 : now.timeIntervalSince(st.lastDraw)
            st.lastDraw = now
            let elapsed = now.timeIntervalSince(st.attemptStart)
            let fps = elapsed > 0 ? Double(p.done) / elapsed : 0
            let (firstDone, firstTime) = st.first ?? (p.done, now)
            st.shownETA = Self.eta(
                frames: p.done - firstDone, seconds: now.timeIntervalSince(firstTime), remaining: p.total - p.done,
                previous: st.shownETA.map { max(0, $0 - sinceDraw) })
            let width = 24
            let filled = p.total > 0 ? width * p.done / p.total : 0
            let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
            let eta = st.shownETA.map { String(format: "ETA %.1f s", $0) } ?? "ETA …"
            let head = [label, attempt].filter { !$0.isEmpty }.joined(separator: " ")
            let line = String(format: "\r%@ %@ %d/%d frames  %.0f fps  %@ \u{1B}[K", head, bar, p.done, p.total, fps, eta)
            TerminalText.write(line)
        }
    }

    func finish() {
        guard mode == .bar else { return }
        TerminalText.write("\r\u{1B}[K")
    }
}
