/// What became of the sound in a render's output: carried (copied or re-encoded) from one
/// input, or none and why. Every video render reports one, so that a dropped or converted
/// soundtrack is never a surprise.
public struct SoundOutcome: Sendable, Equatable, Codable, CustomStringConvertible {
    /// What was done with the sound.
    public enum Action: String, Sendable, Equatable, Codable {
        /// The input's packets, unchanged.
        case copied
        /// Decoded and encoded again, because the container does not carry the input's codec.
        case reencoded = "re-encoded"
        /// The output has no sound (see ``SoundOutcome/reason``).
        case none
    }

    public var action: Action
    /// The input whose sound was carried.
    public var input: String?
    /// The input's audio codec (libavcodec's name, e.g. "vorbis").
    public var from: String?
    /// The output's audio codec (e.g. "aac").
    public var codec: String?
    /// Why the output has no sound.
    public var reason: String?

    /// Sound carried from `input`: copied when `copied`, else re-encoded from `from` to `codec`.
    public static func carried(from input: String, codec inputCodec: String, to outputCodec: String, copied: Bool) -> SoundOutcome {
        SoundOutcome(action: copied ? .copied : .reencoded, input: input, from: inputCodec, codec: outputCodec, reason: nil)
    }

    /// No sound, for `reason` ("the inputs have none", …).
    public static func none(_ reason: String) -> SoundOutcome {
        SoundOutcome(action: .none, input: nil, from: nil, codec: nil, reason: reason)
    }

    /// The summary line's phrase (``phrase``).
    public var description: String { phrase }

    /// One phrase for the summary line: "sound: aac, copied", "sound: vorbis → aac", "no sound (…)".
    public var phrase: String {
        switch action {
        case .copied: "sound: \(codec ?? "?"), copied"
        case .reencoded: "sound: \(from ?? "?") → \(codec ?? "?")"
        case .none: "no sound" + (reason.map { " (\($0))" } ?? "")
        }
    }
}
