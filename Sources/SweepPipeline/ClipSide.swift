import SweepImaging
import SweepMedia

/// One side played from a video: its decoder and the frame on screen at the output size.
///
/// Each decoded frame is scaled (and turned upright) straight into the output frame once;
/// a frame shown for several output frames is not converted again.
///
/// Safe to send: one thread at a time uses a side (the render thread, or one iteration of
/// the two-sided decode, which joins before the sides are read).
final class ClipSide: @unchecked Sendable {
    let fit: FitMode
    private(set) var decoder: any ClipDecoder
    /// The frame on screen, at the output size (letterbox bars in the background colour).
    private(set) var frame: RGBAImage
    /// The same in 4:2:0, drawn only for the Y′CbCr fast path.
    private var yuv: YUVImage?
    private var drawnRGBA = -1
    /// Counts the RGBA frames drawn (so a holder of an older copy knows it is stale).
    private(set) var shown = 0
    private var drawnYUV = -1

    /// Opens the clip again at its start (for ``rewind()``).
    private let reopen: () throws -> any ClipDecoder

    /// Uses an already opened decoder (still at its first frame); `reopen` opens another.
    init(decoder: any ClipDecoder, width: Int, height: Int, fit: FitMode, background: RGBA8, reopen: @escaping () throws -> any ClipDecoder)
    {
        self.fit = fit
        self.reopen = reopen
        self.decoder = decoder
        decoder.expectOutput(width: width, height: height, fit: fit)
        frame = RGBAImage(width: width, height: height, fill: background)
    }

    /// Shows the frame on screen at clip time `t` (seconds after the start); ``shown``
    /// counts up when the RGBA frame changed.
    func advance(to t: Double) throws {
        try decoder.advance(to: t)
        guard decoder.frameNumber != drawnRGBA else { return }
        try decoder.draw(into: &frame, fit: fit)
        drawnRGBA = decoder.frameNumber
        shown += 1
    }

    /// The frame on screen at clip time `t` in 4:2:0 (the fast path; see
    /// ``VideoDecoder/convertsToVideoYUVDirectly``).
    func yuvFrame(at t: Double) throws -> YUVImage {
        try decoder.advance(to: t)
        if decoder.frameNumber != drawnYUV || yuv == nil {
            var image = yuv ?? YUVImage(width: frame.width, height: frame.height)
            yuv = nil  // drawn in place, without a copy
            try decoder.draw(into: &image, fit: fit)
            yuv = image
            drawnYUV = decoder.frameNumber
        }
        return yuv!
    }

    /// Plays from the start again (after frames were sampled ahead, e.g. for a GIF palette).
    func rewind() throws {
        decoder = try reopen()
        decoder.expectOutput(width: frame.width, height: frame.height, fit: fit)
        drawnRGBA = -1
        drawnYUV = -1
        try advance(to: 0)
    }
}
