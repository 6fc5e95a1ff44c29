import SweepImaging
import SweepTimeline

/// Pictures of an animation: each track's eased value over time and a storyboard.
package enum Planner {
    /// Draws the plan of `spec`'s animation (as reduced by `spec.reduceMotion`), with a
    /// storyboard of `shots` frames rendered from `spec`'s images.
    package static func plan(_ spec: RenderSpec, title: String, shots: Int = 6) throws -> RGBAImage {
        let anim = spec.animation
        let d = anim.passDuration
        let n = 240
        let times = (0...n).map { Double($0) / Double(n) * d }
        let states = anim.states(at: times, reduceMotion: spec.reduceMotion)
        var series = [
            PlanChart.Series(
                // What the frames show: in a dissolve, the handle moves where the fade passes half way.
                name: "split position", samples: zip(times, states.map(\.handlePosition)).map { ($0, $1) },
                keyframes: keyframes(anim.position, spec.reduceMotion))
        ]
        if states.contains(where: { $0.crossfade != nil }) {
            series.append(
                PlanChart.Series(
                    name: "dissolve", samples: zip(times, states.map { $0.crossfade?.fraction ?? 0 }).map { ($0, $1) },
                    keyframes: []))
        }
        let fields: [(String, KeyPath<Adjustments, Double>)] = [
            ("brightness", \.brightness), ("contrast", \.contrast),
            ("saturation", \.saturation), ("hue", \.hue),
        ]
        for (side, track, pick) in [
            ("before", anim.before, { (s: FrameState<Adjustments>) in s.before }),
            ("after", anim.after, { (s: FrameState<Adjustments>) in s.after }),
        ] {
            for (name, key) in fields {
                let values = states.map { pick($0)[keyPath: key] }
                if values.allSatisfy({ $0 == values[0] }) { continue }
                let keys = (spec.reduceMotion == .cut ? track.cut() : track).keyframes.map { ($0.time, $0.value[keyPath: key]) }
                series.append(PlanChart.Series(name: "\(side) \(name)", samples: zip(times, values).map { ($0, $1) }, keyframes: keys))
            }
        }
        let source = try FrameSource(spec: spec)
        let storyboard = (0..<shots).map { k -> (time: Double, image: RGBAImage) in
            let t = d * Double(k) / Double(max(1, shots - 1)) * 0.999
            return (t, source.render(anim.state(at: t, reduceMotion: spec.reduceMotion)))
        }
        return try PlanChart.draw(title: title, duration: d, series: series, storyboard: storyboard)
    }

    static func keyframes(_ track: Track<Double>, _ mode: ReduceMotion) -> [(Double, Double)] {
        (mode == .cut ? track.cut() : track).keyframes.map { ($0.time, $0.value) }
    }
}
