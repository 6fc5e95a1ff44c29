import Foundation
import SweepGIF
import SweepImaging
import SweepTimeline

/// How long the pixels each frame of a plan writes stay on screen (``ScreenTime``), worked out
/// from the plan's states, not from rendered frames: a line of pixels across the split shows
/// its side's picture, so it shows the same thing again whenever it is on the same side.
///
/// A stay counts every frame that shows the same side, not only the first run of them: a
/// split moving back brings pixels back exactly as they were shown (``PixelHistory`` in the
/// writer), so what a frame writes is seen each time the line comes back to it. Every guess
/// errs towards a longer stay, which only tightens a budget: a look easing is taken to change
/// nothing (many of its steps round to the same colours), so what an earlier frame wrote
/// stays on through it, and the lines rewritten only for a look get no scaling. Pixels where
/// the two sides agree never change as the split passes; they are marked as shared and
/// never loosened. Lines the divider leaves count as written by the frame that uncovers them.
///
/// Only stills without a dissolve get one: a clip's frames and a dissolve change pixels the
/// lines do not follow, and a stay guessed short would loosen pixels that stay up long.
struct ScreenTimePlan {
    private let axis: ScreenTime.Axis
    private let lines: Int
    /// Per frame: the lines wholly on the first side (``OverlayLayout``).
    private let whole: [Int]
    /// Per frame: the coverage of the edge line (0 when no line mixes both sides).
    private let coverage: [Int]
    /// Per frame: the lines under the divider, if it is drawn.
    private let divider: [ClosedRange<Int>?]
    /// When each frame starts, in seconds; the last entry is the loop's length.
    private let starts: [Double]
    /// Whether the last frame stays up when the animation ends (it plays a set number of times).
    private let lastStays: Bool
    /// Per pixel, whether both sides show the same colour there (nil when nowhere).
    private let shared: [Bool]?
    /// The output's width, for ``shared``.
    private let width: Int
    /// The geometric mean of the stay of every line every frame writes.
    private(set) var typical = 0.0

    /// Frames looked ahead for a line's stay, which is cut off there: a stay that long is
    /// near the scale's floor already, and a long render stays linear in its frames.
    static let horizon = 600

    /// The screen times of `plan`'s frames, shown for `delays` (centiseconds, one per frame);
    /// nil for a plan with clips or a dissolve.
    init?(plan: FramePlan, delays: [Int]) {
        precondition(delays.count >= plan.count)
        guard plan.clipTimes == nil, plan.count > 0, plan.states.allSatisfy({ ($0.crossfade?.fraction ?? 0) == 0 })
        else { return nil }
        let source = plan.source
        let layouts = plan.states.map { source.overlay.layout(position: $0.position) }
        let vertical = layouts[0].vertical
        axis = vertical ? .rows : .columns
        let lines = vertical ? plan.height : plan.width
        self.lines = lines
        width = plan.width
        whole = layouts.map(\.wholeLines)
        coverage = layouts.map(\.edgeCoverage)
        divider = layouts.map { $0.dividerLines(extent: lines) }
        var starts = [0.0]
        for d in delays.prefix(plan.count) { starts.append(starts[starts.count - 1] + Double(d) / 100) }
        self.starts = starts
        lastStays =
            switch plan.animation.loop {
            case .once, .count(_): true
            case .forever, .boomerang: false
            }
        // Where the sides agree: in their one look each, or (looks changing) before any look.
        // A look that maps two colours to one (clipping) can make sides agree unmarked; such
        // areas are flat, where the budget is 0 anyway.
        let looks = (plan.states[0].before, plan.states[0].after)
        let constant = plan.states.allSatisfy { ($0.before, $0.after) == looks }
        let sides = constant ? source.sides(before: looks.0, after: looks.1) : source.sides(before: .identity, after: .identity)
        var agree = [Bool](repeating: false, count: plan.width * plan.height)
        var any = false
        sides.before.pixels.withUnsafeBufferPointer { b in
            sides.after.pixels.withUnsafeBufferPointer { a in
                for p in agree.indices {
                    let o = p * 4
                    if b[o] == a[o] && b[o + 1] == a[o + 1] && b[o + 2] == a[o + 2] && b[o + 3] == a[o + 3] {
                        agree[p] = true
                        any = true
                    }
                }
            }
        }
        shared = any ? agree : nil
        // The typical stay: a geometric mean, as the budget's scale is a ratio of stays.
        var logSum = 0.0, n = 0
        for i in 0..<plan.count {
            for stay in stays(frame: i) where stay > 0 {
                logSum += log(stay)
                n += 1
            }
        }
        typical = n > 0 ? exp(logSum / Double(n)) : 0
    }

    /// The screen time of frame `i`'s pixels.
    func screenTime(frame i: Int) -> ScreenTime {
        ScreenTime(axis: axis, stays: stays(frame: i), typical: typical, shared: shared, width: width)
    }

    /// Per line, how long (seconds) what frame `i` writes there is on screen: every frame
    /// from `i` on (up to the horizon) on the same side, and the whole loop if the last frame
    /// is and stays up; at most the loop. 0 on lines frame `i` leaves as they were, or
    /// rewrites only for a look.
    func stays(frame i: Int) -> [Double] {
        let count = whole.count
        let loop = starts[count]
        // Added up over ranges of lines (a difference array): each later frame shows the same
        // first side on the lines both have on it, the same second side likewise, the same
        // edge only where it is the same line at the same coverage.
        var sum = [Double](repeating: 0, count: lines + 1)
        let end = min(count, i + Self.horizon)
        let edge = coverage[i] > 0 ? whole[i] : -1
        func add(_ g: Int, _ time: Double) {
            let upper = min(whole[i], whole[g])
            if upper > 0 { sum[0] += time; sum[upper] -= time }
            let lower = max(secondStart(i), secondStart(g))
            if lower < lines { sum[lower] += time; sum[lines] -= time }
            if edge >= 0 && whole[g] == edge && coverage[g] == coverage[i] { sum[edge] += time; sum[edge + 1] -= time }
        }
        for g in i..<end { add(g, starts[g + 1] - starts[g]) }
        if end == count && lastStays { add(count - 1, loop) }
        var out = [Double](repeating: 0, count: lines)
        var running = 0.0
        for s in 0..<lines {
            running += sum[s]
            if i == 0 || changes(at: i, line: s) { out[s] = min(max(running, 0), loop) }
        }
        return out
    }

    /// The first line of the second side in frame `f` (past the edge line when it mixes both).
    private func secondStart(_ f: Int) -> Int { coverage[f] > 0 ? whole[f] + 1 : whole[f] }

    /// Whether frame `g` writes line `s` for the split: it changes side (or edge coverage),
    /// or the divider uncovers it.
    private func changes(at g: Int, line s: Int) -> Bool {
        if let d = divider[g - 1], d.contains(s), !(divider[g]?.contains(s) ?? false) { return true }
        let (was, now) = (side(s, g - 1), side(s, g))
        return was != now || (now == .edge && coverage[g] != coverage[g - 1])
    }

    private enum Side { case first, edge, second }

    /// Which side line `s` shows in frame `f` (as ``SplitCompositor`` composes it).
    private func side(_ s: Int, _ f: Int) -> Side {
        s < whole[f] ? .first : (s == whole[f] && coverage[f] > 0 ? .edge : .second)
    }
}
