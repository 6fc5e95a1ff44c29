import Foundation
import SweepImaging
import SweepMedia
import SweepSupport

/// A social format (`presets/formats/NAME.json`), version 1: output size, frame rate,
/// duration, codec and the platform's size limit.
///
/// `{"version": 1, "description": "…", "size": "1080x1080", "fps": 30, "duration": 4,
///   "extension": "mp4", "codec": "h264", "maxBytes": 650000000, "still": false}`
/// A size of `"800x"` keeps the before image's aspect ratio at 800 pixels wide. `duration`
/// is one pass, holds included (as `--duration`). Optional `"safeInsets": {"top": 0.14,
/// "bottom": 0.2}` keeps the slider's tags and knob out of the platform's own interface.
public struct FormatPreset: Sendable, Decodable {
    public var version: Int
    public var description: String?
    public var width: Int
    public var height: Int?
    public var fps: Double?
    public var duration: Double?
    public var fileExtension: String
    public var codec: String?
    public var maxBytes: Int?
    public var still: Bool
    /// Margins where the platform draws its own interface (shares of the frame); the
    /// slider's tags and knob stay inside them. Optional: `{"top": 0.14, "bottom": 0.2}`.
    public var safeInsets: SafeInsets?
    /// The name or file it was loaded by (``PresetLibrary/format(_:)``), for notes.
    public var name: String?

    enum Keys: String, CodingKey, CaseIterable {
        case version, description, size, fps, duration, codec, maxBytes, still, safeInsets
        case fileExtension = "extension"
    }

    public init(from decoder: any Decoder) throws {
        try StrictJSON.rejectUnknownKeys(in: decoder, allowed: Set(Keys.allCases.map(\.rawValue)))
        let c = try decoder.container(keyedBy: Keys.self)
        version = try StrictJSON.version(c, key: .version)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        let size = try c.decode(String.self, forKey: .size)
        let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), (2...16384).contains(w),
            parts[1].isEmpty || Int(parts[1]).map({ (2...16384).contains($0) }) == true
        else {
            throw SweepError(.dataError, "field size is \"\(size)\"", fix: "write WIDTHxHEIGHT or WIDTHx, e.g. 1080x1080")
        }
        width = w
        height = parts[1].isEmpty ? nil : Int(parts[1])
        fps = try c.decodeIfPresent(Double.self, forKey: .fps)
        if let fps { try StrictJSON.check(fps, "fps", in: FrameRateRange.values, decoder: decoder) }
        duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        if let duration { try StrictJSON.check(duration, "duration", in: 0.1...RenderLimits.maxDuration, decoder: decoder) }
        fileExtension = try c.decode(String.self, forKey: .fileExtension)
        codec = try c.decodeIfPresent(String.self, forKey: .codec)
        maxBytes = try c.decodeIfPresent(Int.self, forKey: .maxBytes)
        if let m = maxBytes { try StrictJSON.check(Double(m), "maxBytes", in: 1024...1e15, decoder: decoder) }
        still = try c.decodeIfPresent(Bool.self, forKey: .still) ?? false
        safeInsets = try c.decodeIfPresent(InsetsField.self, forKey: .safeInsets)?.insets
    }

    /// The `safeInsets` object: unknown keys refused, each share 0…0.45.
    struct InsetsField: Decodable {
        let insets: SafeInsets
        enum Keys: String, CodingKey, CaseIterable { case top, left, bottom, right }
        init(from decoder: any Decoder) throws {
            try StrictJSON.rejectUnknownKeys(in: decoder, allowed: Set(Keys.allCases.map(\.rawValue)))
            let c = try decoder.container(keyedBy: Keys.self)
            var v: [Double] = []
            for key in Keys.allCases {
                let x = try c.decodeIfPresent(Double.self, forKey: key) ?? 0
                try StrictJSON.check(x, key.rawValue, in: 0...0.45, decoder: decoder)
                v.append(x)
            }
            insets = SafeInsets(top: v[0], left: v[1], bottom: v[2], right: v[3])
        }
    }

    /// Sets the format's size, frame rate, codec, duration and size limit on `spec`, except
    /// the settings in `kept` (those a user chose explicitly win over the format).
    ///
    /// The duration is one pass, holds included (a plain sweep keeps its holds; any other
    /// animation is scaled in time). The rate is the platform's, so clips are converted to it
    /// (and told so). A still format's output is a still, and ``outputPath(_:)`` gives a name
    /// without an extension the format's.
    package func apply(to spec: inout RenderSpec, keeping kept: Set<SweepError.Field> = []) {
        if !kept.contains(.size) { (spec.width, spec.height) = (width, height) }
        if !kept.contains(.fps), let fps {
            spec.fps = fps
            spec.clip.followClipRate = false
            spec.clip.rateChosenBy = "the format " + (name ?? description ?? "")
        }
        if !kept.contains(.duration), let duration { spec.animation = spec.animation.withPass(duration) }
        if !kept.contains(.codec), let codec { spec.codec = codec }
        if !kept.contains(.maxBytes) { spec.maxBytes = maxBytes }
        if let safeInsets { spec.safeInsets = safeInsets }
    }

    /// Fits an animated output named `output` to this format, one rule for every door: an
    /// output named for another kind of file (x.gif under a video format) follows its name,
    /// unless `codecGiven` (the codec was asked for by name); then the platform's limits no
    /// longer apply, and its cap is dropped unless `capGiven`. Returns the note that says so,
    /// naming the format as `called`, or nil when the output is the format's own kind.
    ///
    /// - Throws: what ``OutputKind/infer(path:still:codec:)`` throws for a name it cannot write.
    package func fit(output: String, spec: inout RenderSpec, codecGiven: Bool, capGiven: Bool, called: String) throws -> String? {
        if !codecGiven, (try? OutputKind.infer(path: output, codec: spec.codec)) == nil { spec.codec = nil }
        let chosen: String? =
            switch try OutputKind.infer(path: output, codec: spec.codec) {
            case .gif: "gif"
            case let .video(c, _): c.name
            default: nil
            }
        guard let wanted = codec, let chosen, chosen != wanted else { return nil }
        var note = "\(called) is made for \(wanted); this is \(chosen), so the platform's own limits no longer apply"
        if !capGiven, let m = maxBytes {
            spec.maxBytes = nil
            note += " (its \(m)-byte cap is not enforced)"
        }
        return note
    }

    /// `path`, with the format's extension when it has none.
    public func outputPath(_ path: String) -> String {
        URL(fileURLWithPath: path).pathExtension.isEmpty ? path + "." + fileExtension : path
    }
}
