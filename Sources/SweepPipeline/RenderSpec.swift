import SweepGIF
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTimeline
import SweepWorker

/// Everything a render needs: inputs, size, animation, look, output.
package struct RenderSpec: Sendable {
    package var before: InputSource
    /// The after side; `nil` means the before photo again (with the after look).
    package var after: InputSource?
    /// Output size; `nil` takes the before image's size, and one side alone takes the
    /// other from the before image's aspect ratio.
    package var width: Int?
    package var height: Int?
    package var fps: Double = Self.defaultFPS
    /// The frame rate when none is given (and no clip gives one).
    package static let defaultFPS = 30.0
    /// Round the output size down to even sides (4:2:0 video needs them).
    package var evenSize = false
    /// When no size is given, the longest side the output may take from the before image
    /// (the renderer sets 800 for GIF and 1920 for video; `nil` keeps the image's size).
    package var defaultLongSide: Int?
    package var animation: Animation<Adjustments>
    package var style = SliderStyle()
    package var fit: FitMode = .fill
    /// Margins the tags and knob stay out of (a platform's own interface); see ``SafeInsets``.
    package var safeInsets = SafeInsets.zero
    package var reduceMotion: ReduceMotion = .off
    package var maxPixels = ImageDecoder.defaultMaxPixels
    /// Refuse (instead of warning about) output that flashes more than three times in a
    /// second (WCAG 2.3.1).
    package var refuseFlashes = false
    /// A byte budget for GIF output (see ``Renderer/render(_:to:progress:)``).
    package var maxBytes: Int?
    /// GIF options.
    package var gifColors = 256
    package var dither: DitherMode = .diffusion
    /// GIF size against fidelity, 1…100 (``GIFQuality``): the lossy LZW budget, dithering
    /// strength and palette effort together. A size cap lowers it first.
    package var quality = GIFQuality.default.value
    /// An expert override of the lossy LZW budget, 0…100 (`nil`: the one `quality` sets).
    package var lossy: Int?
    /// `--codec`: h264, hevc, vp9, webp, apng, prores or gif; `nil` follows the extension.
    package var codec: String?
    /// Video options: encoder settings that override the codec's defaults.
    package var videoOptions: [(String, String)] = []
    /// How video inputs play: trimming, length, frame rate, sound.
    package var clip = ClipOptions()
    /// Interactive page options (`.html` output).
    package var html = HTMLExport.Options()
    /// A PNG sequence may replace and remove files at its pattern's names that sweep did not
    /// write (`--overwrite`); otherwise such a file stops the render before it starts.
    package var overwrite = false
    /// Where inputs are decoded: in a worker process when ``DecodeWorker`` was started at
    /// launch (the default), or in this process, which is faster but unsafe for files from
    /// strangers (`--decode in-process`).
    package var decoding = DecodeIsolation.worker
    /// The files the settings were read from (a look, preset or format given as a file),
    /// each with the option that named it: no output may replace them.
    package var settingsFiles: [(option: String, path: String)] = []
    /// A setting that cannot act on these inputs is a note, not an error (a batch job).
    package var lenient = false
    /// Renders only `windows` runs of ``Renderer/sampleLength`` frames spread evenly over the
    /// timeline (a size cap's estimate; see ``SizeCap``), nil for every frame.
    package var sampleWindows: Int?
    /// The most pixels an output frame may have, when a server sets fewer than ``maxPixels``
    /// (`sweep serve --max-frame-pixels`): one request's memory and time to its next frame.
    package var maxFramePixels: Int?
    /// Set from another thread to stop the render at its next frame (SweepKit's async API).
    package var cancellation: CancellationFlag?
    /// The still inputs as decoded, shared by a size cap's attempts (``DecodedStills``).
    package var stills: DecodedStills?
    /// Told, once, what would keep a capped render's look (``CapAdvice``): a GIF's before
    /// the long work; a video's as soon as it is shown.
    package var advise: (@Sendable (CapAdvice) -> Void)?

    package init(before: InputSource, after: InputSource?, animation: Animation<Adjustments>) {
        self.before = before
        self.after = after
        self.animation = animation
    }

    /// The default sweep: one pass of `duration` seconds, holds included (as everywhere in
    /// sweep: the command line, presets and formats): hold on `from`, ease to `to`, hold.
    /// The holds take at most a quarter of the pass each (``holdTime(pass:hold:)``).
    package static func sweep(
        from: Double = 1, to: Double = 0, duration: Double = 4, hold: Double = 0.5,
        curve: Curve = .easeInOut, before: Adjustments = .identity, after: Adjustments = .identity,
        loop: LoopMode = .forever
    ) -> Animation<Adjustments> {
        let (hold, duration) = (holdTime(pass: duration, hold: hold), sweepTime(pass: duration, hold: hold))
        var keys = [Keyframe(time: 0, value: from, curve: .hold)]
        if hold > 0 { keys.append(Keyframe(time: hold, value: from, curve: .hold)) }
        keys.append(Keyframe(time: hold + duration, value: to, curve: curve))
        if hold > 0 { keys.append(Keyframe(time: hold + duration + hold, value: to, curve: .hold)) }
        return Animation(position: Track(keys), before: Track(constant: before), after: Track(constant: after), loop: loop)
    }

    /// The hold at each end of a pass of `pass` seconds: as asked, but at most a quarter of
    /// the pass, so that the sweep keeps at least half of it.
    package static func holdTime(pass: Double, hold: Double) -> Double { min(hold, pass / 4) }

    /// The sweep's share of a pass of `pass` seconds with `hold` at each end.
    package static func sweepTime(pass: Double, hold: Double) -> Double { max(0.01, pass - 2 * holdTime(pass: pass, hold: hold)) }

    /// The built-in demo's animation: a seamless loop around the middle.
    package static let demoAnimation = Animation<Adjustments>(
        position: Track([
            Keyframe(time: 0, value: 0.5, curve: .hold),
            Keyframe(time: 0.4, value: 0.5, curve: .hold),
            Keyframe(time: 1.3, value: 0.15, curve: .easeInOut),
            Keyframe(time: 1.7, value: 0.15, curve: .hold),
            Keyframe(time: 3.1, value: 0.85, curve: .easeInOut),
            Keyframe(time: 3.5, value: 0.85, curve: .hold),
            Keyframe(time: 4.4, value: 0.5, curve: .easeInOut),
        ]),
        before: Track(constant: .identity), after: Track(constant: .identity), loop: .forever)
}

extension SweepError.Field {
    /// A server's limit on an output frame's pixels (``RenderSpec/maxFramePixels``).
    package static let maxFramePixels = SweepError.Field("maxFramePixels")
}
