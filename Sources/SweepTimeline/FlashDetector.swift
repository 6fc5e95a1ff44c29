/// Checks an animation against WCAG 2.3.1 (three flashes): a flash is a pair of opposing
/// changes in relative luminance of at least 0.1 where the darker state is below 0.80.
/// More than three flashes in any one second fails.
///
/// Fed once per frame with the mean relative luminance of a few regions (each a quarter
/// of the frame, the success criterion's area), it tracks each region separately.
package struct FlashDetector: Sendable {
    /// Frames per second of the frames fed in.
    package let fps: Double
    private var regions: [RegionState] = []
    /// The most flashes seen in any one-second window, over all regions.
    package private(set) var maxFlashesPerSecond = 0
    /// Time of the first window with more than three flashes.
    package private(set) var firstViolation: Double?
    private var frame = 0

    struct RegionState: Sendable {
        var low = Double.infinity, high = -Double.infinity
        var lastDirection = 0
        var transitions: [Int] = []  // frame indices
    }

    /// A detector for frames at `fps`.
    package init(fps: Double) { self.fps = fps }

    /// True when more than three flashes fell within some second.
    package var fails: Bool { maxFlashesPerSecond > 3 }

    /// Adds one frame's region luminances (0…1, the same regions every frame).
    package mutating func add(_ luminances: [Double]) {
        if regions.isEmpty { regions = Array(repeating: RegionState(), count: luminances.count) }
        for (i, v) in luminances.enumerated() where i < regions.count {
            var r = regions[i]
            r.low = min(r.low, v)
            r.high = max(r.high, v)
            if r.lastDirection != 1, v - r.low >= 0.1, r.low < 0.8 {
                r.transitions.append(frame); r.lastDirection = 1; r.high = v; r.low = v
            } else if r.lastDirection != -1, r.high - v >= 0.1, v < 0.8 {
                r.transitions.append(frame); r.lastDirection = -1; r.low = v; r.high = v
            }
            // Count opposing-change pairs inside the last second.
            let window = Int(fps.rounded())
            r.transitions.removeAll { $0 <= frame - window }
            let flashes = r.transitions.count / 2
            if flashes > maxFlashesPerSecond { maxFlashesPerSecond = flashes }
            if flashes > 3 && firstViolation == nil { firstViolation = Double(frame) / fps }
            regions[i] = r
        }
        frame += 1
    }
}
