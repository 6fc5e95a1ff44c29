import SweepImaging
import SweepSupport
import SweepTimeline

/// A look in a preset: a preset name (`"vivid"`, `"original"`) or the values themselves.
package enum LookRef: Sendable, Equatable, Decodable, Interpolatable {
    case named(String)
    case values(Adjustments)

    package init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            self = .named(name)
            return
        }
        try StrictJSON.rejectUnknownKeys(in: decoder, allowed: ["brightness", "contrast", "saturation", "hue"])
        self = .values(try LookPreset.decodeAdjustments(try decoder.container(keyedBy: AnyKey.self), decoder: decoder))
    }

    /// Looks are resolved before interpolation; this conformance only lets keyframes hold them.
    package func interpolated(to other: LookRef, _ fraction: Double) -> LookRef { fraction < 1 ? self : other }

    func resolve(_ library: PresetLibrary, file: String) throws -> Adjustments {
        switch self {
        case let .values(a): return a
        case .named("original"), .named("identity"): return .identity
        case let .named(n):
            do { return try library.look(n, subject: file) } catch let e as SweepError {
                throw SweepError(.dataError, "unknown look \"\(n)\" in a keyframe", subject: file, fix: e.fix)
            }
        }
    }
}
