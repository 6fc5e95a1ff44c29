import Foundation
import SweepMedia
import SweepSupport

/// What a render writes, chosen from the output path.
package enum OutputKind: Sendable, Equatable {
    /// An animated GIF.
    case gif
    /// A video file with this codec in this container (a libavformat muxer name).
    case video(VideoCodec, container: String)
    /// One lossless PNG per frame; the path holds a printf-style `%d`/`%04d` pattern.
    case pngSequence
    /// A single still image.
    case still(StillEncoder.Format)
    /// An interactive page (see ``HTMLExport``).
    case html

    /// The codecs a request may name: a GIF, a page, or a video codec.
    package static let codecNames = ["gif", "html"] + VideoCodec.all.map(\.name)
    /// The still formats a codec may name for a still whose name has no extension (`--codec png`).
    package static let stillCodecNames = ["png", "jpg", "jpeg"]

    /// The file itself says how often it plays (GIF, animated WebP, APNG): one pass is
    /// written and its count stored; a video holds each counted pass as frames.
    package var playsItsOwnLoops: Bool {
        switch self {
        case .gif: true
        case let .video(codec, _): codec.name == "webp" || codec.name == "apng"
        default: false
        }
    }

    /// One still image, not an animation.
    package var isStill: Bool {
        if case .still = self { true } else { false }
    }

    /// Infers the kind from `path`'s extension (and `%d` pattern for sequences).
    ///
    /// - Throws: `.usage` for an extension sweep does not write.
    package static func infer(path: String, still: Bool = false, codec: String? = nil) throws -> OutputKind {
        // URL drops a trailing slash, so `x.gif/` would render whole and then fail to be moved in.
        if path.hasSuffix("/") {
            throw SweepError(
                .usage, "the output ends in '/', so it names a folder", subject: path,
                fix: "give a file name, such as \(path)out.gif")
        }
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        if !still, ext == "png", path.range(of: #"%0?\d*d"#, options: .regularExpression) != nil { return .pngSequence }
        if still {
            if let f = StillEncoder.Format(extension: ext) ?? codec.flatMap({ StillEncoder.Format(extension: $0) }) { return .still(f) }
            if ext.isEmpty {
                throw SweepError(
                    .usage, "the name has no extension to say the still's format", subject: path,
                    fix: "add .png, .jpg or .webp (\(path).png)")
            }
            throw SweepError(.usage, "unknown still format '.\(ext)'", subject: path, fix: "use .png, .jpg or .webp")
        }
        if codec == "gif", !ext.isEmpty, ext != "gif" {
            // A GIF named .mov would open nowhere that expects a movie.
            throw SweepError(
                .usage, "a GIF cannot go in a .\(ext) file", subject: path, fix: "name the output .gif, or choose a video codec")
        }
        if (ext == "gif" && codec == nil) || codec == "gif" { return .gif }
        if ((ext == "html" || ext == "htm") && codec == nil) || codec == "html" { return .html }
        if let codec {
            guard let c = VideoCodec.named(codec) else {
                let names = Self.codecNames
                throw SweepError(
                    .usage, "unknown codec '\(codec)'",
                    fix: Suggestion.nearest(codec, in: names).map { "did you mean \($0)?" }
                        ?? "use one of \(names.joined(separator: ", "))",
                    field: .codec)
            }
            // No extension (a device such as /dev/full, a pipe): the codec's own container.
            let container = VideoCodec.container(forExtension: ext) ?? (ext == "png" ? "apng" : (ext.isEmpty ? c.container : nil))
            guard let container, c.containers.contains(container) else {
                throw SweepError(
                    .usage, "\(c.name) cannot go in a .\(ext) file", subject: path,
                    fix: "use .\(c.fileExtension) for \(c.name)")
            }
            return .video(c, container: container)
        }
        if let container = VideoCodec.container(forExtension: ext), let c = VideoCodec.forContainer(container) {
            return .video(c, container: container)
        }
        if ext == "png" {
            throw SweepError(
                .usage, "a single .png cannot hold an animation", subject: path,
                fix: "use a frame pattern such as frames/f-%04d.png, or `sweep preview` for one still")
        }
        if ext == "jpg" || ext == "jpeg" {
            throw SweepError(
                .usage, "a .\(ext) file holds one still, not an animation", subject: path,
                fix: "use `sweep preview` for one still, or .gif, .mp4, .webp for the animation")
        }
        throw SweepError(
            .usage, ext.isEmpty ? "the output has no extension" : "unknown output format '.\(ext)'",
            subject: path, fix: "use .gif, .mp4, .mov, .webm, .mkv, .webp, .apng, .html, or a PNG pattern like f-%04d.png")
    }
}
