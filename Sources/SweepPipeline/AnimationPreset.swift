import Foundation
import SweepImaging
import SweepSupport
import SweepTimeline

/// An animation preset file (`presets/animations/NAME.json`), version 1. See the README for
/// the schema. Position values are in presets' own 0…1 terms: 1 means `--from` and 0 means
/// `--to` (defaults 1 and 0), so the shortcuts retarget any preset.
package struct AnimationPreset: Sendable, Decodable {
    package var version: Int
    package var description: String?
    package var loop: LoopMode
    package var duration: Double?
    package var position: [KeyframeSpec<Double>]
    package var before: [KeyframeSpec<LookRef>]?
    package var after: [KeyframeSpec<LookRef>]?

    enum Keys: String, CodingKey, CaseIterable { case version, description, loop, duration, position, before, after }

    /// The most keyframes a track may have.
    package static let maxKeyframes = 10_000

    package init(from decoder: any Decoder) throws {
        try StrictJSON.rejectUnknownKeys(in: decoder, allowed: Set(Keys.allCases.map(\.rawValue)))
        let c = try decoder.container(keyedBy: Keys.self)
        version = try StrictJSON.version(c, key: .version)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        if let text = try? c.decodeIfPresent(String.self, forKey: .loop) {
            switch text {
            case "once": loop = .once
            case "forever": loop = .forever
            case "boomerang": loop = .boomerang
            default: throw SweepError(.dataError, "field loop is \"\(text)\"", fix: "use once, forever, boomerang or a count")
            }
        } else if let n = try c.decodeIfPresent(Int.self, forKey: .loop) {
            guard (1...65535).contains(n) else { throw SweepError(.dataError, "field loop is \(n), outside 1…65535") }
            loop = n == 1 ? .once : .count(n)
        } else {
            loop = .forever
        }
        duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        if let d = duration { try StrictJSON.check(d, "duration", in: 0.01...RenderLimits.maxDuration, decoder: decoder) }
        position = try c.decode([KeyframeSpec<Double>].self, forKey: .position)
        before = try c.decodeIfPresent([KeyframeSpec<LookRef>].self, forKey: .before)
        after = try c.decodeIfPresent([KeyframeSpec<LookRef>].self, forKey: .after)
        for (name, keys) in [
            ("position", position.map(\.time)), ("before", before?.map(\.time) ?? []), ("after", after?.map(\.time) ?? []),
        ] {
            if name == "position" && keys.isEmpty { throw SweepError(.dataError, "field position needs at least one keyframe") }
            // Every keyframe is kept and searched per frame: a bound keeps memory and time sane.
            if keys.count > Self.maxKeyframes {
                throw SweepError(
                    .dataError, "field \(name) has \(keys.count) keyframes, over the limit of \(Self.maxKeyframes)",
                    fix: "use fewer keyframes")
            }
            if zip(keys, keys.dropFirst()).contains(where: { $0 > $1 }) {
                throw SweepError(.dataError, "field \(name): keyframe times must not go backwards", fix: "sort the keyframes by time")
            }
        }
    }

    /// The animation, with looks resolved through `library` and the shortcuts applied:
    /// positions mapped so that 1 → `from` and 0 → `to`, times scaled to `duration`, and
    /// every moving position segment given `curve`.
    package func animation(
        library: PresetLibrary, from: Double = 1, to: Double = 0, duration newDuration: Double? = nil,
        curve: Curve? = nil, file: String
    ) throws -> Animation<Adjustments> {
        let length = duration ?? ([position.last?.time, before?.last?.time, after?.last?.time].compactMap { $0 }.max() ?? 0)
        let scale = newDuration.map { length > 0 ? $0 / length : 1 } ?? 1
        func track<V: Interpolatable>(_ keys: [KeyframeSpec<V>], _ value: (V) throws -> V, retime: Bool) rethrows -> Track<V> {
            Track(
                try keys.map { k in
                    var c = k.curve
                    if retime, let curve, c != .hold { c = curve }
                    return Keyframe(time: k.time * scale, value: try value(k.value), curve: c)
                })
        }
        let pos = track(position, { to + (from - to) * $0 }, retime: true)
        func looks(_ keys: [KeyframeSpec<LookRef>]?) throws -> Track<Adjustments> {
            guard let keys, !keys.isEmpty else { return Track(constant: .identity) }
            let resolved = try keys.map { k in
                KeyframeSpec(time: k.time, value: try k.value.resolve(library, file: file), curve: k.curve)
            }
            return track(resolved, { $0 }, retime: false)
        }
        return Animation(
            position: pos, before: try looks(before), after: try looks(after),
            duration: duration.map { $0 * scale }, loop: loop)
    }
}

/// One keyframe in a preset file: `{"time": 1.2, "value": 0.5, "curve": "easeInOut"}`
/// (looks use `"look"` instead of `"value"`).
package struct KeyframeSpec<Value: Interpolatable>: Sendable {
    package var time: Double
    package var value: Value
    package var curve: Curve
}

extension KeyframeSpec: Decodable where Value: Decodable {
    enum Keys: String, CodingKey, CaseIterable { case time, value, look, curve }

    package init(from decoder: any Decoder) throws {
        let isLook = Value.self == LookRef.self
        try StrictJSON.rejectUnknownKeys(in: decoder, allowed: ["time", "curve", isLook ? "look" : "value"])
        let c = try decoder.container(keyedBy: Keys.self)
        time = try c.decode(Double.self, forKey: .time)
        try StrictJSON.check(time, "time", in: 0...RenderLimits.maxDuration, decoder: decoder)
        value = try c.decode(Value.self, forKey: isLook ? .look : .value)
        if let v = value as? Double { try StrictJSON.check(v, "value", in: 0...1, decoder: decoder) }
        curve = try c.decodeIfPresent(CurveSpec.self, forKey: .curve)?.curve ?? .easeInOut
    }
}
