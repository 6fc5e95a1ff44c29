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
    /// clip from `clip.start`, anything else as a still over `background`.
    static func open(_ source: InputSource, clip: ClipOptions, background: RGBA8, maxPixels: Int) throws -> LoadedSide {
        switch source {
        case let .image(img): return .image(img)
        case let .file(path):
            if !clip.firstFrame, try MediaProbe.kind(of: path) == .video {
                return .clip(try VideoDecoder(path: path, start: clip.start, maxPixels: maxPixels))
            }
            return .image(try ImageDecoder.decode(path: path, background: background, maxPixels: maxPixels))
        }
    }
}
