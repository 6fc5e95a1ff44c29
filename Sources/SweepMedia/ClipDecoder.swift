import SweepImaging

/// A moving input played forward: the frame on screen at a clip time, drawn into output
/// frames. ``VideoDecoder`` plays videos, animated GIFs and APNGs through FFmpeg;
/// ``AnimatedWebPDecoder`` plays animated WebPs through libwebp.
///
/// Time is the clip's own: 0 is its first frame (or `start`, when it was opened there).
package protocol ClipDecoder: AnyObject {
    /// The file, named in errors.
    var path: String { get }
    /// The picture's upright size.
    var width: Int { get }
    var height: Int { get }
    /// Frames per second (for variable rates, one at which every frame shows).
    var frameRate: Double { get }
    /// Seconds from the first frame shown to the end of the last.
    var duration: Double { get }
    /// Changes whenever the frame on screen changes (so each frame is converted once).
    var frameNumber: Int { get }
    /// The frames can go to a BT.709 4:2:0 video without an RGB round trip
    /// (``draw(into:fit:)-yuv`` may be called).
    var convertsToVideoYUVDirectly: Bool { get }
    /// "PQ" or "HLG" when the clip is HDR and tone-mapped to SDR; nil otherwise.
    var hdrTransfer: String? { get }
    /// Where the frames end when that is before the length the file states (see
    /// ``VideoDecoder/statedEnd``); nil when the two agree.
    var statedEnd: (frames: Double, stated: Double)? { get }
    /// What of a layered stream is drawn: a Dolby Vision clip's base layer, a spatial clip's
    /// base view (see ``LayeredStream``).
    var layers: LayeredStream { get }
    /// The area of the output frame the last RGBA ``draw(into:fit:)-rgba`` wrote (the rest
    /// kept the caller's pixels); nil when it wrote all of it.
    var drawnArea: (x: Int, y: Int, width: Int, height: Int)? { get }
    /// The clip times at which playing can start without decoding what comes before (key
    /// frames), as far as the file lists them; may be empty.
    var keyFrameTimes: [Double] { get }
    /// Tells the decoder the output frame it will draw into (it may prepare frames at that size).
    func expectOutput(width: Int, height: Int, fit: FitMode)
    /// Makes the frame on screen at clip time `t` current; past the end the last one stays.
    /// ``frameNumber`` tells whether it changed.
    func advance(to t: Double) throws
    /// Draws the current frame into an output frame, placed by `fit`; letterbox bars keep
    /// what `image` holds.
    func draw(into image: inout RGBAImage, fit: FitMode) throws
    /// Draws the current frame into BT.709 limited-range 4:2:0 planes filling `image`.
    func draw(into image: inout YUVImage, fit: FitMode) throws
}

extension VideoDecoder: ClipDecoder {}

extension ClipDecoder {
    /// Nothing to prepare by default.
    package func expectOutput(width: Int, height: Int, fit: FitMode) {}
    /// SDR by default.
    package var hdrTransfer: String? { nil }
    /// Whole by default.
    package var statedEnd: (frames: Double, stated: Double)? { nil }
    /// One layer and one view by default.
    package var layers: LayeredStream { LayeredStream() }
    /// None known by default.
    package var keyFrameTimes: [Double] { [] }
    /// The whole frame by default.
    package var drawnArea: (x: Int, y: Int, width: Int, height: Int)? { nil }
}
