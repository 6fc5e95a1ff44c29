import CWebP
import Foundation
import SweepImaging
import SweepSupport

/// Plays an animated WebP through libwebp's animation decoder (FFmpeg 5.1 reads only the
/// first frame of one).
///
/// libwebp composes each frame onto the full canvas and reports when it ends; a frame is on
/// screen from the previous frame's end. Only the canvas being composed is held.
package final class AnimatedWebPDecoder: ClipDecoder {
    package let path: String
    package let width: Int
    package let height: Int
    package let frameRate: Double
    package let duration: Double
    package private(set) var frameNumber = -1
    package var convertsToVideoYUVDirectly: Bool { false }

    /// The file's bytes, which libwebp reads from for as long as the decoder lives.
    private let bytes: [UInt8]
    private let decoder: OpaquePointer
    private let background: RGBA8
    /// The frame on screen (straight alpha, canvas size) and when it began and ends (ms).
    private var current: RGBAImage
    private var currentStart = 0
    private var currentEnd = 0
    private let startMS: Int

    /// The most canvas pixels composed over all frames (about 17 GB of RGBA copied: a few
    /// seconds): 100 frames of 40 MP, or 2000 of 1080p.
    package static let maxCanvasFrames = 4_300_000_000

    /// The most bytes read: animated WebPs are small, and libwebp needs them all in memory.
    package static let maxFileBytes = 256 << 20

    /// Opens the animated WebP at `path` from `start` seconds; frames are shown over `background`.
    ///
    /// - Throws: `.noInput` when unreadable, `.dataError` when it is not an animated WebP,
    ///   is corrupt, or its canvas is over `maxPixels`.
    package convenience init(
        path: String, start: Double = 0, background: RGBA8 = .black, maxPixels: Int = ImageDecoder.defaultMaxPixels
    ) throws {
        try self.init(
            bytes: try FileBytes.read(path, limit: Self.maxFileBytes, regularFileOnly: true), name: path, start: start,
            background: background, maxPixels: maxPixels, wholeClip: true)
    }

    /// The first frame of the animated WebP in `bytes`, composed on its canvas (a first frame
    /// may be smaller than the canvas, and offset on it) over `background`: what a still shows.
    ///
    /// - Throws: `.dataError` when it is corrupt or its canvas is over `maxPixels`.
    package static func firstFrame(bytes: [UInt8], name: String, background: RGBA8, maxPixels: Int) throws -> RGBAImage {
        let d = try AnimatedWebPDecoder(bytes: bytes, name: name, start: 0, background: background, maxPixels: maxPixels, wholeClip: false)
        return ImageDecoder.flatten(d.current, over: background)
    }

    /// Opens the animated WebP in `bytes` (named `name` in errors); `wholeClip` bounds the work
    /// of composing every frame, which a first frame alone does not need.
    private init(bytes: [UInt8], name path: String, start: Double, background: RGBA8, maxPixels: Int, wholeClip: Bool) throws {
        self.path = path
        self.background = background
        self.bytes = bytes
        if let (w, h) = ImageHeader.dimensions(bytes), ImageDecoder.exceeds(w, h, maxPixels) {
            throw ImageDecoder.overLimit(w, h, maxPixels, name: path)
        }
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw SweepError(.internalError, "libwebp's animation decoder is not the version sweep was built with", subject: path)
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        let made = bytes.withUnsafeBufferPointer { b -> OpaquePointer? in
            var data = WebPData(bytes: b.baseAddress, size: b.count)
            return WebPAnimDecoderNew(&data, &options)
        }
        guard let made else {
            throw SweepError(.dataError, "the animated WebP is corrupt", subject: path, fix: "re-export it, or convert it to GIF or MP4")
        }
        decoder = made
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(made, &info) != 0, info.canvas_width > 0, info.canvas_height > 0, info.frame_count > 0 else {
            WebPAnimDecoderDelete(made)
            throw SweepError(.dataError, "the animated WebP is corrupt", subject: path, fix: "re-export it, or convert it to GIF or MP4")
        }
        width = Int(info.canvas_width)
        height = Int(info.canvas_height)
        // libwebp also reads what the header check above does not recognise (a bare VP8L
        // bitstream, found by fuzzing): its canvas is held to the limit here, before any is allocated.
        if ImageDecoder.exceeds(width, height, maxPixels) {
            WebPAnimDecoderDelete(made)
            throw ImageDecoder.overLimit(width, height, maxPixels, name: path)
        }
        // Every frame is composed on the whole canvas: a tiny file can ask for hours of work
        // (a 10000² canvas of one-pixel frames), so the work is bounded before any is done.
        let frames = Int(info.frame_count)
        guard !wholeClip || width * height * frames <= Self.maxCanvasFrames else {
            WebPAnimDecoderDelete(made)
            throw SweepError(
                .dataError,
                "the animated WebP has \(frames) frames on a \(width)×\(height) canvas, over the limit of \(Self.maxCanvasFrames / 1_000_000) million pixels composed in all",
                subject: path, fix: "re-export it smaller or shorter, or convert it to MP4")
        }
        current = RGBAImage(width: width, height: height, fill: RGBA8(r: 0, g: 0, b: 0, a: 0))
        startMS = Int((start * 1000).rounded())
        // The length is the sum of the frames' durations, read from the container (nothing
        // is decoded), as libwebp times them.
        var total = 0
        if let demux = WebPAnimDecoderGetDemuxer(made) {
            var iter = WebPIterator()
            if WebPDemuxGetFrame(demux, 1, &iter) != 0 {
                repeat { total += Int(max(0, iter.duration)) } while WebPDemuxNextFrame(&iter) != 0
                WebPDemuxReleaseIterator(&iter)
            }
        }
        let seconds = Double(max(total, 1)) / 1000
        frameRate = min(FrameRateRange.highest, max(FrameRateRange.lowest, Double(frames) / seconds))
        guard startMS < max(total, 1) else {
            WebPAnimDecoderDelete(made)
            throw SweepError(
                .usage, String(format: "the clip lasts %.2f s, so nothing is left from %g s on", seconds, start), subject: path,
                fix: "choose an earlier start", field: .start)
        }
        duration = seconds - Double(startMS) / 1000
        if wholeClip {
            try advance(to: 0)
        } else {
            // A still: the first frame composed, whatever its duration (frames of 0 ms after it
            // are not composed, so a file of thousands of them costs one frame).
            var buffer: UnsafeMutablePointer<UInt8>?
            var end: Int32 = 0
            guard WebPAnimDecoderGetNext(made, &buffer, &end) != 0, let buffer else {
                throw SweepError(
                    .dataError, "the animated WebP is corrupt", subject: path, fix: "re-export it, or convert it to GIF or MP4")
            }
            current.pixels.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: buffer, count: width * height * 4) }
            frameNumber = 0
        }
    }

    deinit { WebPAnimDecoderDelete(decoder) }

    package func advance(to t: Double) throws {
        let ms = startMS + Int((t * 1000 + 0.5).rounded(.down))
        // The current frame covers [currentStart, currentEnd); move on while `ms` is past it.
        while frameNumber < 0 || (ms >= currentEnd && WebPAnimDecoderHasMoreFrames(decoder) != 0) {
            var buffer: UnsafeMutablePointer<UInt8>?
            var end: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &buffer, &end) != 0, let buffer else {
                throw SweepError(
                    .dataError, String(format: "the animated WebP is corrupt at %.3f s", Double(currentEnd) / 1000), subject: path,
                    fix: "re-export it, or convert it to GIF or MP4")
            }
            currentStart = currentEnd
            currentEnd = Int(end)
            // Frames before the start are composed but not shown.
            if currentEnd > startMS || WebPAnimDecoderHasMoreFrames(decoder) == 0 {
                current.pixels.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: buffer, count: width * height * 4) }
                frameNumber += 1
            }
        }
    }

    package func draw(into image: inout RGBAImage, fit: FitMode) throws {
        // Letterbox bars come out in the background colour, as the caller's frame has them.
        let flat = ImageDecoder.flatten(current, over: background)
        image = Resampler.resize(flat, width: image.width, height: image.height, mode: fit, background: background)
    }

    package func draw(into image: inout YUVImage, fit: FitMode) throws {
        throw SweepError(.internalError, "an animated WebP is drawn in RGBA", subject: path)
    }
}
