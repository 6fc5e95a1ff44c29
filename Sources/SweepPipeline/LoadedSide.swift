import SweepImaging
import SweepMedia

/// One input as opened: a still picture, or a clip ready to play.
enum LoadedSide {
    case image(RGBAImage)
    case clip(any ClipDecoder)

    /// The picture's upright size.
    var size: (width: Int, height: Int) {
        switch self {
        case let .image(i): (i.width, i.height)
        case let .clip(d): (d.width, d.height)
        }
    }

    /// Opens `source`: a video (or an animated GIF, APNG or WebP, unless `clip.firstFrame`)
    /// as a clip from `clip.start`, anything else as a still over `background`.
    static func open(_ source: InputSource, clip: ClipOptions, background: RGBA8, maxPixels: Int) throws -> LoadedSide {
        switch source {
        case let .image(img): return .image(img)
        case let .file(path):
            if let decoder = try openClip(path, clip: clip, background: background, maxPixels: maxPixels) { return .clip(decoder) }
            return .image(try ImageDecoder.decode(path: path, background: background, maxPixels: maxPixels, hdr: clip.hdr))
        }
    }

    /// The file at `path` opened as a clip from `clip.start`, or `nil` when it is a still.
    static func openClip(_ path: String, clip: ClipOptions, background: RGBA8, maxPixels: Int) throws -> (any ClipDecoder)? {
        switch try MediaProbe.kind(of: path) {
        case .video,
            .animation where !clip.firstFrame:
            return try VideoDecoder(path: path, start: clip.start, maxPixels: maxPixels, hdr: clip.hdr)
        case .animatedWebP where !clip.firstFrame:
            return try AnimatedWebPDecoder(path: path, start: clip.start, background: background, maxPixels: maxPixels)
        default: return nil
        }
    }
}
