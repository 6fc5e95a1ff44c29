import SweepImaging
import SweepMedia

/// One input as opened: a still picture, or a clip ready to play.
enum LoadedSide {
    case image(RGBAImage)
    case clip(VideoDecoder)

    /// The picture's upright size.
    var size: (width: Int, height: Int) {
        switch self {
        case let .image(i): (i.width, i.height)
        case let .clip(d): (d.width, d.height)
        }
    }

    /// Opens `source`: a video (or an animated GIF or APNG, unless `clip.firstFrame`) as a
    /// clip from `clip.start`, anything else as a still over `background` (an animated WebP
    /// too: FFmpeg 5.1 decodes its first frame only, which ``note(for:clip:)`` says).
    static func open(_ source: InputSource, clip: ClipOptions, background: RGBA8, maxPixels: Int) throws -> LoadedSide {
        switch source {
        case let .image(img): return .image(img)
        case let .file(path):
            let kind = try MediaProbe.kind(of: path)
            if kind == .video || (kind == .animation && !clip.firstFrame) {
                return .clip(try VideoDecoder(path: path, start: clip.start, maxPixels: maxPixels))
            }
            return .image(try ImageDecoder.decode(path: path, background: background, maxPixels: maxPixels))
        }
    }

    /// What to tell the user about how `source` was opened, if anything.
    static func note(for source: InputSource, clip: ClipOptions) -> String? {
        guard case let .file(path) = source, !clip.firstFrame, (try? MediaProbe.kind(of: path)) == .animatedWebP else { return nil }
        return "\(path) is an animated WebP, which this FFmpeg cannot play: its first frame is shown; convert it to GIF or MP4 to play it"
    }
}
