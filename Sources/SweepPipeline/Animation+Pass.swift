import SweepImaging
import SweepTimeline

extension Animation where Look == Adjustments {
    /// The animation with one pass lasting `duration` seconds, holds included: the rule
    /// `--duration`, presets and formats share. A plain sweep (hold, ease, hold, as
    /// ``RenderSpec/sweep(from:to:duration:hold:curve:before:after:loop:)`` makes it) keeps
    /// its holds, at most a quarter of the pass each, and the sweep takes the rest; any other
    /// animation is scaled in time, as a preset is.
    package func withPass(_ duration: Double) -> Animation<Adjustments> {
        let k = position.keyframes
        if k.count == 4, k[0].time == 0, k[0].curve == .hold, k[1].curve == .hold, k[1].value == k[0].value,
            k[3].curve == .hold, k[3].value == k[2].value, abs((k[1].time - k[0].time) - (k[3].time - k[2].time)) < 1e-9,
            before.keyframes.count == 1, after.keyframes.count == 1, self.duration == nil
        {
            return RenderSpec.sweep(
                from: k[0].value, to: k[2].value, duration: duration, hold: k[1].time, curve: k[2].curve,
                before: before.keyframes[0].value, after: after.keyframes[0].value, loop: loop)
        }
        let scale = duration / max(passDuration, 1e-9)
        func scaled<V>(_ track: Track<V>) -> Track<V> {
            Track(track.keyframes.map { Keyframe(time: $0.time * scale, value: $0.value, curve: $0.curve) })
        }
        return Animation(
            position: scaled(position), before: scaled(before), after: scaled(after),
            duration: self.duration.map { $0 * scale }, loop: loop)
    }
}
