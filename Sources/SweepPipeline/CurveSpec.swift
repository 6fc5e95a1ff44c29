import SweepSupport
import SweepTimeline

/// A curve in a preset: a name, `{"timingCurve": [x1, y1, x2, y2]}`,
/// `{"spring": {"response": 0.5, "dampingFraction": 0.825}}` or
/// `{"spring": {"duration": 0.5, "bounce": 0.2}}`.
struct CurveSpec: Decodable {
    let curve: Curve

    init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            guard let c = Curve.named[name] else {
                let near = Suggestion.nearest(name, in: Curve.named.keys.sorted())
                throw SweepError(
                    .dataError, "\(StrictJSON.path(decoder.codingPath)) is the unknown curve \"\(name)\"",
                    fix: near.map { "did you mean \"\($0)\"?" } ?? "use \(Curve.named.keys.sorted().joined(separator: ", "))")
            }
            curve = c
            return
        }
        try StrictJSON.rejectUnknownKeys(in: decoder, allowed: ["timingCurve", "spring"])
        let c = try decoder.container(keyedBy: AnyKey.self)
        if let pts = try c.decodeIfPresent([Double].self, forKey: AnyKey(stringValue: "timingCurve")) {
            guard pts.count == 4, pts.allSatisfy(\.isFinite), (0...1).contains(pts[0]), (0...1).contains(pts[2]) else {
                throw SweepError(.dataError, "\(StrictJSON.path(decoder.codingPath)).timingCurve needs 4 numbers with x in 0…1")
            }
            curve = .timingCurve(pts[0], pts[1], pts[2], pts[3])
        } else if c.contains(AnyKey(stringValue: "spring")) {
            let s = try c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(stringValue: "spring"))
            let nested = try c.superDecoder(forKey: AnyKey(stringValue: "spring"))
            try StrictJSON.rejectUnknownKeys(in: nested, allowed: ["response", "dampingFraction", "duration", "bounce"])
            if let d = try s.decodeIfPresent(Double.self, forKey: AnyKey(stringValue: "duration")) {
                let b = try s.decodeIfPresent(Double.self, forKey: AnyKey(stringValue: "bounce")) ?? 0
                try StrictJSON.check(d, "duration", in: 0.01...60, decoder: nested)
                try StrictJSON.check(b, "bounce", in: -0.99...0.99, decoder: nested)
                curve = .spring(Spring(duration: d, bounce: b))
            } else {
                let r = try s.decodeIfPresent(Double.self, forKey: AnyKey(stringValue: "response")) ?? 0.5
                let z = try s.decodeIfPresent(Double.self, forKey: AnyKey(stringValue: "dampingFraction")) ?? 0.825
                try StrictJSON.check(r, "response", in: 0.01...60, decoder: nested)
                try StrictJSON.check(z, "dampingFraction", in: 0.01...10, decoder: nested)
                curve = .spring(Spring(response: r, dampingFraction: z))
            }
        } else {
            throw SweepError(
                .dataError, "\(StrictJSON.path(decoder.codingPath)) is not a curve",
                fix: "use a name, {\"timingCurve\": […]} or {\"spring\": {…}}")
        }
    }
}
