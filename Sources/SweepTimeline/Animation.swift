/// A whole comparison animation: the split position and each side's look over time.
///
/// Generic over the look type so that the timeline stays free of any imaging code.
public struct Animation<Look: Interpolatable>: Sendable, Equatable {
    /// Split position: the fraction showing *before* (docs/REFERENCE.md §look), 0…1.
    public var position: Track<Double>
    /// The before side's look over time.
    public var before: Track<Look>
    /// The after side's look over time.
    public var after: Track<Look>
    /// Length of one pass; `nil` means the last keyframe's time.
    public var duration: Double?
    /// How the animation repeats.
    public var loop: LoopMode

    /// An animation from its three tracks; `duration` defaults to the last keyframe.
    public init(
        position: Track<Double>, before: Track<Look>, after: Track<Look>,
        duration: Double? = nil, loop: LoopMode = .forever
    ) {
        self.position = position
        self.before = before
        self.after = after
        self.duration = duration
        self.loop = loop
    }

    /// Seconds of one forward pass.
    public var passDuration: Double {
        duration ?? max(position.endTime, before.endTime, after.endTime)
    }

    /// Number of frames at `fps`: round(duration · fps) per pass, doubled less the turning
    /// frames for boomerang, times the play count for `.count(n)` when `expandLoops` is set.
    public func frameCount(fps: Double, expandLoops: Bool = false) -> Int {
        let n = max(1, Int((passDuration * fps).rounded()))
        switch loop {
        case .boomerang: return max(1, 2 * n - 2)
        case let .count(k) where expandLoops: return n * max(1, k)
        default: return n
        }
    }

    /// The time within a pass that frame `i` shows: t = i / fps, folded for boomerang and loops.
    public func time(ofFrame i: Int, fps: Double) -> Double {
        let n = max(1, Int((passDuration * fps).rounded()))
        switch loop {
        case .boomerang:
            let period = max(1, 2 * n - 2)
            let j = i % period
            return Double(j < n ? j : period - j) / fps
        default:
            return Double(i % n) / fps
        }
    }

    /// What frame `i` shows under the given reduced-motion choice.
    public func state(ofFrame i: Int, fps: Double, reduceMotion: ReduceMotion = .off) -> FrameState<Look> {
        state(at: time(ofFrame: i, fps: fps), reduceMotion: reduceMotion)
    }

    /// What the animation shows at time `t`.
    public func state(at t: Double, reduceMotion: ReduceMotion = .off) -> FrameState<Look> {
        states(at: [t], reduceMotion: reduceMotion)[0]
    }

    /// What the animation shows at each of `times`; the reduced tracks are derived once.
    public func states(at times: [Double], reduceMotion: ReduceMotion = .off) -> [FrameState<Look>] {
        switch reduceMotion {
        case .off:
            return times.map { FrameState(position: position.value(at: $0), before: before.value(at: $0), after: after.value(at: $0)) }
        case .cut:
            let p = position.cut(), b = before.cut(), a = after.cut()
            return times.map { FrameState(position: p.value(at: $0), before: b.value(at: $0), after: a.value(at: $0)) }
        case .dissolve, .auto:
            // The handle rests at a segment's start and the next state fades in over it.
            let resting = position.cut()
            return times.map { t in
                let b = before.value(at: t), a = after.value(at: t)
                if let move = position.transition(at: t) {
                    return FrameState(
                        position: move.from, before: b, after: a,
                        crossfade: Crossfade(position: move.to, fraction: move.progress))
                }
                return FrameState(position: resting.value(at: t), before: b, after: a)
            }
        }
    }

    /// What frames `0..<count` show at `fps` (see ``time(ofFrame:fps:)``).
    public func states(frames count: Int, fps: Double, reduceMotion: ReduceMotion = .off) -> [FrameState<Look>] {
        states(at: (0..<count).map { time(ofFrame: $0, fps: fps) }, reduceMotion: reduceMotion)
    }
}
