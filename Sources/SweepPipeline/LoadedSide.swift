import SweepImaging
import SweepMedia
import SweepSupport
import SweepWorker

/// One input as opened: a still picture, or a clip ready to play.
enum LoadedSide {
    case image(RGBAImage)
    /// A still the decode worker resized to the render's size; `source` is its own size.
    case resized(RGBAImage, source: (width: Int, height: Int))
    case clip(any ClipDecoder)

    /// The picture's upright size, as decoded.
    var size: (width: Int, height: Int) {
        switch self {
        case let .image(i): (i.width, i.height)
        case let .resized(_, source): source
        case let .clip(d): (d.width, d.height)
        }
    }

    /// Opens `source`: a video (or an animated GIF, APNG or WebP, unless `clip.firstFrame`)
    /// as a clip from `clip.start`, anything else as a still over `background`.
    ///
    /// With a worker, the file is probed and a still decoded in it (``DecodeWorker``), and
    /// resized there to `target` when the render's size is known; a clip plays in a worker of
    /// its own (``WorkerClipDecoder``).
    static func open(
        _ source: InputSource, clip: ClipOptions, background: RGBA8, maxPixels: Int, decoding: DecodeIsolation,
        target: StillTarget? = nil
    ) throws -> LoadedSide {
        switch source {
        case let .image(img): return .image(img)
        case let .file(path) where decoding == .worker:
            let answer = try DecodeWorker.load(
                path, maxPixels: maxPixels, background: background, hdr: clip.hdr, firstFrame: clip.firstFrame, target: target)
            switch answer {
            case let .image(image, source) where target != nil: return .resized(image, source: source)
            case let .image(image, _): return .image(image)
            case let .clip(kind):
                guard kind.playsAsClip(firstFrame: clip.firstFrame) else {
                    throw SweepError(.internalError, "the decode worker took a still for a clip", subject: path)
                }
                return .clip(
                    try WorkerClipDecoder(
                        path: path, animatedWebP: kind == .animatedWebP, start: clip.start, maxPixels: maxPixels,
                        decoderMemory: clip.decoderMemory, hdr: clip.hdr, background: background))
            }
        case let .file(path):
            if let decoder = try openClip(path, clip: clip, background: background, maxPixels: maxPixels) { return .clip(decoder) }
            return .image(try ImageDecoder.decode(path: path, background: background, maxPixels: maxPixels, hdr: clip.hdr))
        }
    }

    /// Another decoder for the clip `decoder` plays, at its start: in a worker when `decoder`
    /// plays in one.
    static func reopen(_ decoder: any ClipDecoder, clip: ClipOptions, background: RGBA8, maxPixels: Int) throws -> any ClipDecoder {
        if let proxy = decoder as? WorkerClipDecoder { return try proxy.reopened() }
        guard let again = try openClip(decoder.path, clip: clip, background: background, maxPixels: maxPixels) else {
            throw SweepError(.dataError, "the clip changed while it was read", subject: decoder.path, fix: "render again")
        }
        return again
    }

    /// The file at `path` opened as a clip from `clip.start`, or `nil` when it is a still.
    static func openClip(_ path: String, clip: ClipOptions, background: RGBA8, maxPixels: Int) throws -> (any ClipDecoder)? {
        try openClip(path, kind: MediaProbe.kind(of: path), clip: clip, background: background, maxPixels: maxPixels)
    }

    /// The file at `path`, of `kind`, opened as a clip, or `nil` when it is shown as a still.
    static func openClip(
        _ path: String, kind: MediaProbe.Kind, clip: ClipOptions, background: RGBA8, maxPixels: Int
    ) throws -> (any ClipDecoder)? {
        guard kind.playsAsClip(firstFrame: clip.firstFrame) else { return nil }
        if kind == .animatedWebP {
            return try AnimatedWebPDecoder(path: path, start: clip.start, background: background, maxPixels: maxPixels)
        }
        return try VideoDecoder(path: path, start: clip.start, maxPixels: maxPixels, maxMemory: clip.decoderMemory, hdr: clip.hdr)
    }
}
