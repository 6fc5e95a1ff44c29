import Foundation
import SweepMedia
import SweepSupport

/// What a render writes, chosen from the output path.
public enum OutputKind: Sendable, Equatable {
    /// An animated GIF.
    case gif
    /// A video file with this codec.
    case video(VideoCodec)
    /// One lossless PNG per frame; the path holds a printf-style `%d`/`%04d` pattern.
    case pngSequence
    /// A single still image.
    case still(StillEncoder.Format)

    /// Infers the kind from `path`'s extension (and `%d` pattern for sequences).
    ///
    /// - Throws: `.usage` for an extension sweep does not write.
    public static func infer(path: String, still: Bool = false) throws -> OutputKind {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        if !still, ext == "png", path.range(of: #"%0?\d*d"#, options: .regularExpression) != nil { return .pngSequence }
        if still {
            if let f = StillEncoder.Format(extension: ext) { return .still(f) }
            throw SweepError(.usage, "unknown still format '.\(ext)'", subject: path, fix: "use .png, .jpg or .webp")
        }
        if ext == "gif" { return .gif }
        if let codec = VideoCodec.forExtension(ext) { return .video(codec) }
        if ext == "png" {
            throw SweepError(.usage, "a single .png cannot hold an animation", subject: path,
                             fix: "use a frame pattern such as frames/f-%04d.png, or `sweep preview` for one still")
        }
        throw SweepError(.usage, ext.isEmpty ? "the output has no extension" : "unknown output format '.\(ext)'",
                         subject: path, fix: "use .gif, .mp4, or a PNG pattern like f-%04d.png")
    }
}
