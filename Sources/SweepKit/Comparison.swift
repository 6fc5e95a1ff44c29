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
    /// The request every door resolves (`RenderRequest.resolve(_:door:)`): the properties
    /// below are views of its fields, and a render resolves it as a batch job's is resolved,
    /// by the scope rule of `RequestDoor.sweepKit`.
    package var request: RenderRequest

    /// The request's render settings, as earlier versions held them.
    package var spec: RenderSpec {
        get { request.spec }
        set { request.spec = newValue }
    }

    /// The settings ``apply(_:keeping:)`` keeps over the format: a kept duration, codec or
    /// cap counts as given when the comparison renders, as the flag that wins over `--format`.
    private var kept: Set<SweepError.Field> = []

    /// The presets a comparison names: none but the built-in ones (an app applies a format
    /// it located itself, ``apply(_:keeping:)``).
    private static let library = PresetLibrary(directory: nil)

    /// A comparison of two image or video files (decoded by content: JPEG, PNG, WebP, TIFF,
    /// HEIC, AVIF, MP4, MOV, WebM, …).
    public init(before: URL, after: URL) {
        self.init(.file(before.path), .file(after.path), look: .identity)
    }

    /// A comparison of two images already in memory.
    public init(before: RGBAImage, after: RGBAImage) {
        self.init(.image(before), .image(after), look: .identity)
    }

    /// One photo against itself in another look.
    public init(photo: URL, look: Adjustments) {
        self.init(.file(photo.path), nil, look: look)
    }

    private init(_ before: InputSource, _ after: InputSource?, look: Adjustments) {
        request = RenderRequest(spec: RenderSpec(before: before, after: after, animation: RenderSpec.sweep(after: look)))
        request.sources = (before, after)
        request.afterAdjustments = look
        request.spec.decoding = .worker
    }

    /// The sweep as asked, made into keyframes when the comparison renders, after its format;
    /// nil once ``animation`` was given keyframes of its own. Its settings that differ from
    /// `sweep render`'s defaults count as given, as the flags would (`--hold`, `--ease`, …).
    public var timing: SweepTiming? {
        get {
            guard request.keyframes == nil else { return nil }
            let r = request
            return SweepTiming(
                from: r.from ?? 1, to: r.to ?? 0, duration: r.duration, hold: r.hold ?? 0.5, curve: r.curve ?? .easeInOut,
                loop: r.loop ?? .forever)
        }
        set {
            guard let t = newValue else {
                // No timing: the keyframes as they stand, stretched to a format's duration.
                request.keyframes = request.keyframes ?? request.spec.animation
                forgetTiming()
                return
            }
            let plain = SweepTiming()
            // A value at the default is not given, as a flag left out is not.
            func given<T: Equatable>(_ value: T, _ standard: T, _ name: String) -> T? {
                if value == standard { request.given.remove(name); return nil }
                request.given.insert(name)
                return value
            }
            request.from = given(t.from, plain.from, "from")
            request.to = given(t.to, plain.to, "to")
            request.duration = t.duration
            if t.duration == nil { request.given.remove("duration") } else { request.given.insert("duration") }
            request.hold = given(t.hold, plain.hold, "hold")
            request.curve = given(t.curve, plain.curve, "ease")
            request.loop = given(t.loop, plain.loop, "loop")
            request.keyframes = nil
        }
    }

    /// The output's size; nil takes the before image's, within 800 px for a GIF and 1920 px
    /// otherwise.
    public var size: OutputSize? {
        get {
            switch (request.spec.width, request.spec.height) {
            case let (w?, h?): .exact(width: w, height: h)
            case let (w?, nil): .width(w)
            case let (nil, h?): .height(h)
            case (nil, nil): nil
            }
        }
        set {
            switch newValue {
            case let .exact(w, h)?: (request.spec.width, request.spec.height) = (w, h)
            case let .width(w)?: (request.spec.width, request.spec.height) = (w, nil)
            case let .height(h)?: (request.spec.width, request.spec.height) = (nil, h)
            case nil: (request.spec.width, request.spec.height) = (nil, nil)
            }
        }
    }

    /// How a picture of another shape fills the frame (default ``FitMode/fill``, a centre crop).
    public var fit: FitMode {
        get { request.spec.fit }
        set { request.spec.fit = newValue }
    }

    /// Frames per second (default 30; with video inputs, the before clip's unless set).
    /// Once set, it is given, as `--fps` is: a still notes it as ignored.
    public var fps: Double {
        get { request.spec.fps }
        set {
            request.spec.fps = newValue
            request.given.insert("fps")
        }
    }

    /// The animation: split position and each side's look over time, as it will render (made
    /// from ``timing`` when there is one). Setting it gives keyframes of the app's own, and
    /// ``timing`` becomes nil; a format's duration then stretches them.
    public var animation: Animation<Adjustments> {
        get {
            var r = request
            r.makeTiming()
            try? r.resolveLooks(Self.library)  // nothing is named, so nothing can fail
            return r.spec.animation
        }
        set {
            request.keyframes = newValue
            forgetTiming()
        }
    }

    /// Clears the timing asked (keyframes of the app's own replace it), as flags left out.
    private mutating func forgetTiming() {
        for name in ["from", "to", "duration", "hold", "ease", "loop"] { request.given.remove(name) }
        (request.from, request.to, request.duration, request.hold, request.curve, request.loop) = (nil, nil, nil, nil, nil, nil)
    }

    /// Reduced motion: a cut or a cross-fade instead of the moving split. Once set, it is
    /// given, as `--reduce-motion` is: a still notes it as ignored.
    public var reduceMotion: ReduceMotion {
        get { request.spec.reduceMotion }
        set {
            request.spec.reduceMotion = newValue
            request.given.insert("reduce-motion")
        }
    }

    /// How video inputs play: where the comparison starts and ends, each clip's own offset
    /// (`clip.afterOffset = 20` lines up an excerpt that starts 20 s into its original),
    /// the sound.
    public var clip: ClipOptions {
        get { request.spec.clip }
        set { request.spec.clip = newValue }
    }

    /// Where the inputs are decoded. ``DecodeIsolation/worker``, the default, decodes them
    /// in a sandboxed helper process that the first render starts (or the one
    /// `DecodeWorker.startAtLaunch()` forked): a decoder crash on a crafted file fails this
    /// render with a data error and the app goes on. ``DecodeIsolation/inProcess`` decodes
    /// them in the app's own process, where such a crash ends the app: only for files you trust.
    public var decoding: DecodeIsolation {
        get { request.spec.decoding }
        set { request.spec.decoding = newValue }
    }

    /// The slider's look: handle, labels, colours, orientation, corners.
    public var style: SliderStyle {
        get { request.spec.style }
        set { request.spec.style = newValue }
    }

    /// How a GIF is encoded.
    public var gif: GIFSettings {
        get { GIFSettings(quality: request.spec.quality, colors: request.spec.gifColors) }
        set { (request.spec.quality, request.spec.gifColors) = (newValue.quality, newValue.colors) }
    }

    /// How a video is encoded.
    public var video: VideoSettings {
        get { VideoSettings(crf: request.spec.videoOptions.last { $0.0 == "crf" }.flatMap { Int($0.1) }, codec: request.spec.codec) }
        set {
            request.spec.videoOptions.removeAll { $0.0 == "crf" }
            if let crf = newValue.crf { request.spec.videoOptions.append(("crf", String(crf))) }
            request.spec.codec = newValue.codec
        }
    }

    /// A size cap in bytes: a GIF gives up quality, then colours, frame rate and size to fit
    /// it; a video raises its rate factor; a JPEG or WebP still lowers its quality.
    public var maxBytes: Int? {
        get { request.spec.maxBytes }
        set {
            request.spec.maxBytes = newValue
            if newValue == nil { request.given.remove("max-bytes") } else { request.given.insert("max-bytes") }
        }
    }

    /// The social format applied last, if any: a still format makes ``render(to:)`` write a
    /// still, and a name without an extension takes the format's.
    public var format: FormatPreset? { request.appliedFormat }

    /// Takes a social format's size, frame rate, codec, duration and size limit, except the
    /// settings in `kept`, as `sweep render --format` does.
    ///
    /// ```swift
    /// comparison.apply(try PresetLibrary.locate().format("instagram-square"))
    /// ```
    public mutating func apply(_ format: FormatPreset, keeping kept: Set<SweepError.Field> = []) {
        // The duration is applied when rendering (``RenderRequest/resolve(_:door:)``), after
        // the timing, whenever that was set. The settings kept count as given, as the flags
        // that win over `--format` do.
        format.apply(to: &request.spec, keeping: kept.union([.duration]))
        request.appliedFormat = format
        self.kept = kept
        // What the format just set is the format's now, not the app's (the duration is the
        // timing's until the render).
        var overwritten: Set<SweepError.Field> = [.size, .maxBytes]
        if format.fps != nil { overwritten.insert(.fps) }
        if format.codec != nil { overwritten.insert(.codec) }
        for d in OptionTable.declarations where d.field.map({ overwritten.contains($0) && !kept.contains($0) }) == true {
            request.given.remove(d.name)
        }
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
        try Self.write(try resolved(to: url), progress: nil)
    }

    /// Renders to a file on a thread of its own, reporting progress after each frame.
    /// Cancelling the task stops the render at its next frame with `CancellationError`,
    /// and nothing is left behind.
    @discardableResult
    public func render(to url: URL, progress: (@Sendable (RenderProgress) -> Void)? = nil) async throws -> RenderResult {
        let r = try resolved(to: url)
        return try await Self.cancellable(r) { r in try Self.write(r, progress: progress) }
    }

    /// Renders into memory: the bytes of the file `render(to:)` would write with this
    /// extension (`gif`, `mp4`, `webm`, `webp`, …), for a server that answers with them.
    public func data(as fileExtension: String, progress: (@Sendable (RenderProgress) -> Void)? = nil) async throws -> Data {
        try await Self.inMemory(fileExtension: fileExtension) { url in
            let r = try resolved(to: url)
            return try await Self.cancellable(r) { r in try Self.write(r, progress: progress) }
        }
    }

    /// One still with the split resting at `position` (the share 0…1 showing before), as
    /// .png, .jpg or .webp: what `sweep preview --position` writes, under ``maxBytes``.
    @discardableResult
    public func still(at position: Double, to url: URL) throws -> RenderResult {
        try Self.write(try resolved(to: url, still: position), progress: nil)
    }

    /// One still in memory (`png`, `jpg` or `webp`): an og:image for a server.
    public func stillData(at position: Double, as fileExtension: String) async throws -> Data {
        try await Self.inMemory(fileExtension: fileExtension) { url in
            let r = try resolved(to: url, still: position)
            return try await Self.cancellable(r) { r in try Self.write(r, progress: nil) }
        }
    }

    /// Renders every frame and hands it to `body` in order, without writing a file: the
    /// frames a PNG sequence would hold (same default size, same clip timing).
    /// Frames are streamed: `body` must copy a frame it wants to keep.
    @discardableResult
    public func frames(_ body: (_ index: Int, _ frame: RGBAImage) throws -> Void) throws -> RenderResult {
        var frames = self
        frames.request.appliedFormat?.still = false  // every frame, as a PNG sequence holds them
        let r = try frames.resolved(to: URL(fileURLWithPath: "frame-%04d.png"))
        var result = try Renderer.frames(r.spec, body)
        result.notes.insert(contentsOf: r.notes, at: 0)
        return result
    }

    /// The request resolved for an output at `url` (a still at `position` when one is given,
    /// as `sweep preview` makes one), as every door resolves it.
    private func resolved(to url: URL, still position: Double? = nil) throws -> ResolvedRender {
        var r = request
        r.output = url.path
        if let position { (r.still, r.position) = (true, position) }
        // The settings kept over the format that the resolution reads as given.
        let kept = OptionTable.declarations.filter {
            [.duration, .codec, .maxBytes].contains($0.field) && $0.field.map(self.kept.contains) == true
        }
        r.given.formUnion(kept.map(\.name))
        r.makeTiming()
        return try r.resolve(Self.library, door: .sweepKit)
    }

    /// The one way a comparison is written, as every door writes a resolved request.
    private static func write(_ r: ResolvedRender, progress: Renderer.Progress?) throws -> RenderResult {
        try RenderRun.perform(r, progress: progress)[0]
    }

    /// Runs `work` on a thread of its own (a render is long and CPU-bound: not a job for the
    /// cooperative pool), stopping it at its next frame when the task is cancelled.
    private static func cancellable<T: Sendable>(
        _ r: ResolvedRender, _ work: @escaping @Sendable (ResolvedRender) throws -> T
    ) async throws -> T {
        try Task.checkCancellation()
        let flag = CancellationFlag()
        var r = r
        r.spec.cancellation = flag
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
                let thread = Thread { [r] in done.resume(with: Result { try work(r) }) }
                thread.stackSize = 8 << 20  // as the main thread's: the pixel loops recurse little, decoders more
                thread.start()
            }
        } onCancel: {
            flag.cancel()
        }
    }

    /// Renders through `work` into a private folder and returns the file's bytes; the folder
    /// is removed, whatever happens.
    private static func inMemory(fileExtension: String, _ work: (URL) async throws -> RenderResult) async throws -> Data {
        guard !fileExtension.isEmpty, fileExtension.count <= 8, fileExtension.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else {
            throw SweepError(.usage, "'\(fileExtension)' is not a file extension", fix: "give one such as gif, mp4 or png")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sweepkit-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("output." + fileExtension.lowercased())
        let result = try await work(url)
        return try Data(contentsOf: URL(fileURLWithPath: result.output))
    }
}
