import Foundation
import SweepImaging
import SweepPipeline
import SweepRequest
import SweepSupport
import SweepTimeline

/// A before/after comparison to render: the embedding API in one type.
///
/// ```swift
/// var comparison = Comparison(before: beforeURL, after: afterURL)
/// comparison.size = .exact(width: 1080, height: 1080)
/// comparison.gif.quality = 80
/// let result = try await comparison.render(to: outputURL)
/// ```
///
/// Renders are streamed frame by frame, and an output appears only when it is complete: a
/// failed or cancelled render leaves nothing behind and keeps any file already there.
public struct Comparison: Sendable {
    /// Everything the renderer needs but the timing; the properties below are views of it.
    package var spec: RenderSpec

    /// The sweep as asked, made into keyframes when the comparison renders, after its format;
    /// nil once ``animation`` was given keyframes of its own.
    public var timing: SweepTiming? = SweepTiming()

    /// Each side's look under the asked sweep (``timing``).
    private var looks = (before: Adjustments.identity, after: Adjustments.identity)

    /// The format's settings the app keeps its own of (``apply(_:keeping:)``).
    private var kept: Set<SweepError.Field> = []

    /// The settings the app set, by the command line's option names, for the scope rule
    /// (``RequestDoor/sweepKit``): a setting that cannot act on the output is refused, as
    /// `sweep render` refuses the option. A value counts when it was set, or, for the
    /// timing, when it differs from the default. ``gif`` and ``video`` are not counted: they
    /// say how each kind is written, so one comparison may write a GIF and an MP4.
    private var set: Set<String> = []

    /// The option names the app set (``set``), the timing's included.
    private var given: Set<String> {
        guard let t = timing else { return set }
        let plain = SweepTiming()
        let changed: [(Bool, String)] = [
            (t.from != plain.from, "from"), (t.to != plain.to, "to"), (t.duration != nil, "duration"), (t.hold != plain.hold, "hold"),
            (t.curve != plain.curve, "ease"), (t.loop != plain.loop, "loop"),
        ]
        return set.union(changed.filter(\.0).map(\.1))
    }

    /// A comparison of two image or video files (decoded by content: JPEG, PNG, WebP, TIFF,
    /// HEIC, AVIF, MP4, MOV, WebM, …).
    public init(before: URL, after: URL) {
        spec = RenderSpec(before: .file(before.path), after: .file(after.path), animation: RenderSpec.sweep())
    }

    /// A comparison of two images already in memory.
    public init(before: RGBAImage, after: RGBAImage) {
        spec = RenderSpec(before: .image(before), after: .image(after), animation: RenderSpec.sweep())
    }

    /// One photo against itself in another look.
    public init(photo: URL, look: Adjustments) {
        spec = RenderSpec(before: .file(photo.path), after: nil, animation: RenderSpec.sweep(after: look))
        looks.after = look
    }

    /// What is rendered: the spec with the keyframes made from ``timing`` for a pass of its
    /// own duration, else the format's, else 4 s (holds as asked, at most a quarter of the
    /// pass each, as `sweep render --hold` gives); keyframes given to ``animation`` are
    /// stretched to the format's duration instead. Made at render time, so the order in which
    /// the timing and the format were set does not matter.
    package func resolved() -> RenderSpec {
        var s = spec
        let formatPass = kept.contains(.duration) ? nil : format?.duration
        if let t = timing {
            s.animation = RenderSpec.sweep(
                from: t.from, to: t.to, duration: t.duration ?? formatPass ?? 4, hold: t.hold, curve: t.curve,
                before: looks.before, after: looks.after, loop: t.loop)
        } else if let formatPass {
            s.animation = s.animation.withPass(formatPass)
        }
        return s
    }

    /// The output's size; nil takes the before image's, within 800 px for a GIF and 1920 px
    /// otherwise.
    public var size: OutputSize? {
        get {
            switch (spec.width, spec.height) {
            case let (w?, h?): .exact(width: w, height: h)
            case let (w?, nil): .width(w)
            case let (nil, h?): .height(h)
            case (nil, nil): nil
            }
        }
        set {
            switch newValue {
            case let .exact(w, h)?: (spec.width, spec.height) = (w, h)
            case let .width(w)?: (spec.width, spec.height) = (w, nil)
            case let .height(h)?: (spec.width, spec.height) = (nil, h)
            case nil: (spec.width, spec.height) = (nil, nil)
            }
        }
    }

    /// How a picture of another shape fills the frame (default ``FitMode/fill``, a centre crop).
    public var fit: FitMode {
        get { spec.fit }
        set { spec.fit = newValue }
    }

    /// Frames per second (default 30; with video inputs, the before clip's unless set).
    public var fps: Double {
        get { spec.fps }
        set {
            spec.fps = newValue
            spec.clip.followClipRate = false
            set.insert("fps")
        }
    }

    /// The animation: split position and each side's look over time, as it will render (made
    /// from ``timing`` when there is one). Setting it gives keyframes of the app's own, and
    /// ``timing`` becomes nil; a format's duration then stretches them.
    public var animation: Animation<Adjustments> {
        get { resolved().animation }
        set {
            spec.animation = newValue
            timing = nil
        }
    }

    /// Reduced motion: a cut or a cross-fade instead of the moving split.
    public var reduceMotion: ReduceMotion {
        get { spec.reduceMotion }
        set {
            spec.reduceMotion = newValue
            set.insert("reduce-motion")
        }
    }

    /// How video inputs play: where the comparison starts and ends, each clip's own offset
    /// (`clip.afterOffset = 20` lines up an excerpt that starts 20 s into its original),
    /// the sound.
    public var clip: ClipOptions {
        get { spec.clip }
        set { spec.clip = newValue }
    }

    /// Where the inputs are decoded. ``DecodeIsolation/worker``, the default, decodes them
    /// in a sandboxed helper process that the first render starts (or the one
    /// `DecodeWorker.startAtLaunch()` forked): a decoder crash on a crafted file fails this
    /// render with a data error and the app goes on. ``DecodeIsolation/inProcess`` decodes
    /// them in the app's own process, where such a crash ends the app: only for files you trust.
    public var decoding: DecodeIsolation {
        get { spec.decoding }
        set { spec.decoding = newValue }
    }

    /// The slider's look: handle, labels, colours, orientation, corners.
    public var style: SliderStyle {
        get { spec.style }
        set { spec.style = newValue }
    }

    /// How a GIF is encoded.
    public var gif: GIFSettings {
        get { GIFSettings(quality: spec.quality, colors: spec.gifColors) }
        set { (spec.quality, spec.gifColors) = (newValue.quality, newValue.colors) }
    }

    /// How a video is encoded.
    public var video: VideoSettings {
        get { VideoSettings(crf: spec.videoOptions.last { $0.0 == "crf" }.flatMap { Int($0.1) }, codec: spec.codec) }
        set {
            spec.videoOptions.removeAll { $0.0 == "crf" }
            if let crf = newValue.crf { spec.videoOptions.append(("crf", String(crf))) }
            spec.codec = newValue.codec
        }
    }

    /// A size cap in bytes: a GIF gives up quality, then colours, frame rate and size to fit
    /// it; a video raises its rate factor; a JPEG or WebP still lowers its quality.
    public var maxBytes: Int? {
        get { spec.maxBytes }
        set {
            spec.maxBytes = newValue
            if newValue != nil { set.insert("max-bytes") }
        }
    }

    /// The social format applied last, if any: a still format makes ``render(to:)`` write a
    /// still, and a name without an extension takes the format's.
    public private(set) var format: FormatPreset?

    /// Takes a social format's size, frame rate, codec, duration and size limit, except the
    /// settings in `kept`, as `sweep render --format` does.
    ///
    /// ```swift
    /// comparison.apply(try PresetLibrary.locate().format("instagram-square"))
    /// ```
    public mutating func apply(_ format: FormatPreset, keeping kept: Set<SweepError.Field> = []) {
        // The duration is applied when rendering (``resolved()``), after the timing, whenever
        // that was set.
        format.apply(to: &spec, keeping: kept.union([.duration]))
        self.format = format
        self.kept = kept
    }

    /// A simple sweep lasting `duration` seconds, holds included (as `--duration`): hold on
    /// `from`, ease to `to`, hold.
    public static func sweep(
        from: Double = 1, to: Double = 0, duration: Double = 4, hold: Double = 0.5,
        curve: Curve = .easeInOut
    ) -> Animation<Adjustments> {
        RenderSpec.sweep(from: from, to: to, duration: duration, hold: hold, curve: curve)
    }

    /// Renders to a file; the format follows the extension (.gif, .mp4, .webm, .webp, .apng,
    /// .mov, .html, or a `f-%04d.png` pattern), or a still format's still at the middle.
    ///
    /// - Throws: ``SweepError`` naming the file and the fix.
    @discardableResult
    public func render(to url: URL) throws -> RenderResult {
        let job = try prepared(for: url)
        return try Self.write(job, spec: job.spec, progress: nil)
    }

    /// Renders to a file on a thread of its own, reporting progress after each frame.
    /// Cancelling the task stops the render at its next frame with `CancellationError`,
    /// and nothing is left behind.
    @discardableResult
    public func render(to url: URL, progress: (@Sendable (RenderProgress) -> Void)? = nil) async throws -> RenderResult {
        let job = try prepared(for: url)
        return try await Self.cancellable(job.spec) { spec in try Self.write(job, spec: spec, progress: progress) }
    }

    /// Renders into memory: the bytes of the file `render(to:)` would write with this
    /// extension (`gif`, `mp4`, `webm`, `webp`, …), for a server that answers with them.
    public func data(as fileExtension: String, progress: (@Sendable (RenderProgress) -> Void)? = nil) async throws -> Data {
        let comparison = self
        return try await Self.inMemory(resolved(), fileExtension: fileExtension) { spec, url in
            var job = try comparison.prepared(for: url)
            job.spec.cancellation = spec.cancellation
            return try Self.write(job, spec: job.spec, progress: progress)
        }
    }

    /// One still with the split resting at `position` (the share 0…1 showing before), as
    /// .png, .jpg or .webp.
    @discardableResult
    public func still(at position: Double, to url: URL) throws -> RenderResult {
        try Renderer.preview(resolved(), position: position, to: url.path)
    }

    /// One still in memory (`png`, `jpg` or `webp`): an og:image for a server.
    public func stillData(at position: Double, as fileExtension: String) async throws -> Data {
        try await Self.inMemory(resolved(), fileExtension: fileExtension) { spec, url in
            try Renderer.preview(spec, position: position, to: url.path)
        }
    }

    /// Renders every frame and hands it to `body` in order, without writing a file: the
    /// frames a PNG sequence would hold (same default size, same clip timing).
    /// Frames are streamed: `body` must copy a frame it wants to keep.
    @discardableResult
    public func frames(_ body: (_ index: Int, _ frame: RGBAImage) throws -> Void) throws -> RenderResult {
        try Renderer.frames(resolved(), body)
    }

    /// What a render to `url` writes: the resolved spec, the path (with a still format's
    /// extension when it has none), whether it is a still, and the notes the command line
    /// gives for the same request. The format is fitted to the output's kind by the rule the
    /// command line follows (``FormatPreset/fit(output:spec:codecGiven:capGiven:called:)``).
    private struct Job: Sendable {
        var spec: RenderSpec
        var path: String
        var still: Bool
        var notes: [String]
    }

    private func prepared(for url: URL) throws -> Job {
        var job = Job(spec: resolved(), path: format?.outputPath(url.path) ?? url.path, still: format?.still == true, notes: [])
        if let format, !job.still,
            let note = try format.fit(
                output: job.path, spec: &job.spec, codecGiven: kept.contains(.codec), capGiven: kept.contains(.maxBytes),
                called: format.name ?? "the format")
        {
            job.notes.append(note)
        }
        // The scope rule of the table every door reads: a setting that cannot act here.
        let kind = try OutputKind.infer(path: job.path, still: job.still, codec: job.spec.codec)
        job.notes += try OptionScope.check(given, kind: kind, door: .sweepKit)
        // A still's JPEG/WebP quality is 90 (``gif`` says how a GIF is written, not a still).
        if job.still { job.spec.quality = 90 }
        return job
    }

    /// The one way a comparison is written: a still format's still (JPEG and WebP at quality
    /// 90, under the format's cap), else the animation; `spec` is the job's, with the
    /// render's cancellation.
    private static func write(_ job: Job, spec: RenderSpec, progress: Renderer.Progress?) throws -> RenderResult {
        var result =
            job.still
            ? try Renderer.preview(spec, position: Renderer.restingPosition, to: job.path, quality: spec.quality, maxBytes: spec.maxBytes)
            : try Renderer.render(spec, to: job.path, progress: progress)
        result.notes.insert(contentsOf: job.notes, at: 0)
        return result
    }

    /// Runs `work` on a thread of its own (a render is long and CPU-bound: not a job for the
    /// cooperative pool), stopping it at its next frame when the task is cancelled.
    private static func cancellable<T: Sendable>(
        _ spec: RenderSpec, _ work: @escaping @Sendable (RenderSpec) throws -> T
    ) async throws -> T {
        try Task.checkCancellation()
        let flag = CancellationFlag()
        var spec = spec
        spec.cancellation = flag
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
                let thread = Thread { [spec] in done.resume(with: Result { try work(spec) }) }
                thread.stackSize = 8 << 20  // as the main thread's: the pixel loops recurse little, decoders more
                thread.start()
            }
        } onCancel: {
            flag.cancel()
        }
    }

    /// Renders through `work` into a private folder and returns the file's bytes; the folder
    /// is removed, whatever happens.
    private static func inMemory(
        _ spec: RenderSpec, fileExtension: String, _ work: @escaping @Sendable (RenderSpec, URL) throws -> RenderResult
    ) async throws -> Data {
        guard !fileExtension.isEmpty, fileExtension.count <= 8, fileExtension.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else {
            throw SweepError(.usage, "'\(fileExtension)' is not a file extension", fix: "give one such as gif, mp4 or png")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sweepkit-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("output." + fileExtension.lowercased())
        let result = try await cancellable(spec) { spec in try work(spec, url) }
        return try Data(contentsOf: URL(fileURLWithPath: result.output))
    }
}
