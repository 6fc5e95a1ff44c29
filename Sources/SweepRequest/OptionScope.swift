import SweepMedia
import SweepPipeline
import SweepSupport

/// Which outputs each option acts on: the one rule behind "this option cannot act on this
/// output". An option given where it would do nothing is refused (exit 64), naming the kind
/// of output it is for and the option that does the same here; set by a batch job, it is a
/// note instead, so that one file of jobs can serve GIFs and videos alike.
package enum OptionScope {
    /// The kinds of output, as options see them.
    package enum Output: Hashable, CaseIterable, Sendable {
        case gif, video, page, frames, still

        init(_ kind: OutputKind) {
            switch kind {
            case .gif: self = .gif
            case .video: self = .video
            case .html: self = .page
            case .pngSequence: self = .frames
            case .still: self = .still
            }
        }

        /// The output, in a message ("not on a video").
        var name: String {
            switch self {
            case .gif: "a GIF"
            case .video: "a video"
            case .page: "an HTML page"
            case .frames: "a PNG sequence"
            case .still: "a still"
            }
        }
    }

    /// Where an option acts, and what does its job elsewhere.
    package struct Rule: Sendable {
        package let acts: Set<Output>
        /// The option that does the same on another output (`--quality` on a video: `--crf`).
        package var instead: [Output: String] = [:]
    }

    /// Among videos, the codecs an option acts on, and what does its job on the others.
    package struct CodecRule: Sendable {
        package let acts: Set<String>
        package var instead: [String: String] = [:]
    }

    /// Options missing here act on every output (from ``OptionTable``).
    package static let rules: [String: Rule] = OptionTable.declarations.reduce(into: [:]) { rules, d in rules[d.name] = d.scope }

    /// Among videos, the codecs an option acts on (from ``OptionTable``).
    package static let codecs: [String: CodecRule] = OptionTable.declarations.reduce(into: [:]) { rules, d in rules[d.name] = d.codecs }

    /// The scope rule at `door` (``RequestDoor/refusesMisfits``) for the options `given` to an
    /// output of `kind`: throws the first that cannot act where the door refuses, else returns
    /// one note for each.
    package static func check(_ given: Set<String>, kind: OutputKind, door: RequestDoor) throws -> [String] {
        var video: (codec: VideoCodec, container: String)?
        if case let .video(codec, container) = kind { video = (codec, container) }
        let found = misfits(given, output: Output(kind), video: video, lossless: kind == .still(.png))
        if let first = found.first, door.refusesMisfits { throw first }
        return found.map { "\($0.subject ?? "") \($0.message), so it is ignored" }
    }

    /// The options in `given` that cannot act on `output`, each as the error a command line
    /// gets; `video` is the codec and container, for what only some videos hold (sound), and
    /// `lossless` says a still is a PNG (which has no quality to set).
    package static func misfits(
        _ given: Set<String>, output: Output, video: (codec: VideoCodec, container: String)? = nil, lossless: Bool = false
    ) -> [SweepError] {
        var found: [SweepError] = []
        for name in given.sorted() {
            if name == "quality", output == .still, lossless {
                found.append(
                    SweepError(.usage, "a PNG is lossless, so it has no quality to set", subject: "--quality", fix: "use .jpg or .webp"))
                continue
            }
            if name == "audio", output == .video, let video, !VideoCodec.holdsSound(video.container) {
                found.append(
                    SweepError(
                        .usage, "\(video.codec.name) video holds no sound", subject: "--audio",
                        fix: "use .mp4, .mov, .mkv or .webm for sound, or leave --audio out"))
                continue
            }
            if output == .video, let video, let only = codecs[name] {
                if !only.acts.contains(video.codec.name) {
                    let listed = only.acts.sorted().joined(separator: ", ")
                    found.append(
                        SweepError(
                            .usage, "acts on \(listed) video, not on \(video.codec.name)", subject: "--" + name,
                            fix: only.instead[video.codec.name].map { "use \($0) for \(video.codec.name)" } ?? "leave it out"))
                }
                continue
            }
            guard let rule = rules[name], !rule.acts.contains(output) else { continue }
            let targets = Output.allCases.filter { rule.acts.contains($0) }.map(\.name)
            let listed = targets.count > 1 ? targets.dropLast().joined(separator: ", ") + " or " + targets.last! : targets[0]
            let fix = rule.instead[output].map { "use \($0) for \(output.name)" } ?? "leave it out, or write \(listed)"
            found.append(SweepError(.usage, "acts on \(listed), not on \(output.name)", subject: "--" + name, fix: fix))
        }
        return found
    }
}
