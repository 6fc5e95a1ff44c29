/// Keyframes of one animated value, sorted by time.
public struct Track<Value: Interpolatable>: Sendable, Equatable {
    public private(set) var keyframes: [Keyframe<Value>]

    /// A track from keyframes in any order; it must have at least one. Keyframes at the
    /// same time keep their given order, so a pair of them makes an instant jump.
    public init(_ keyframes: [Keyframe<Value>]) {
        precondition(!keyframes.isEmpty, "a track needs at least one keyframe")
        self.keyframes = keyframes.enumerated()
            .sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
    }

    /// A track that holds one value.
    public init(constant value: Value) { self.init([Keyframe(time: 0, value: value, curve: .hold)]) }

    /// Time of the last keyframe.
    public var endTime: Double { keyframes.last!.time }

    /// True when the value never changes.
    public var isConstant: Bool { keyframes.allSatisfy { $0.value == keyframes[0].value } }

    /// The index of the keyframe that ends the segment in progress at `t`, or `nil`
    /// before the first and after the last keyframe.
    func segmentEnd(at t: Double) -> Int? {
        if t < keyframes[0].time { return nil }
        for i in 1..<keyframes.count where t < keyframes[i].time { return i }
        return nil
    }

    /// The eased value at time `t`.
    public func value(at t: Double) -> Value {
        guard let i = segmentEnd(at: t) else { return t < keyframes[0].time ? keyframes[0].value : keyframes.last!.value }
        let a = keyframes[i - 1], b = keyframes[i]
        let f = b.curve.progress(elapsed: t - a.time, duration: b.time - a.time)
        return a.value.interpolated(to: b.value, f)
    }

    /// The segment in progress at `t` as its two end values and the eased progress
    /// clamped to 0…1, or `nil` when no segment is moving at `t`.
    public func transition(at t: Double) -> (from: Value, to: Value, progress: Double)? {
        guard let i = segmentEnd(at: t) else { return nil }
        let a = keyframes[i - 1], b = keyframes[i]
        if a.value == b.value || b.curve == .hold { return nil }
        let f = b.curve.progress(elapsed: t - a.time, duration: b.time - a.time)
        return (a.value, b.value, max(0, min(1, f)))
    }

    /// Every change applied instantly at the start of its segment (`withAnimation(nil)`).
    public func cut() -> Track<Value> {
        var out: [Keyframe<Value>] = [keyframes[0]]
        for i in 1..<keyframes.count {
            let a = keyframes[i - 1], b = keyframes[i]
            if b.curve == .hold {
                out.append(b)
            } else {
                out.append(Keyframe(time: a.time, value: b.value, curve: .hold))
                out.append(Keyframe(time: b.time, value: b.value, curve: .hold))
            }
        }
        return Track(out)
    }

    /// The same keyframes with every value transformed.
    public func map(_ transform: (Value) -> Value) -> Track<Value> {
        Track(keyframes.map { Keyframe(time: $0.time, value: transform($0.value), curve: $0.curve) })
    }
}
