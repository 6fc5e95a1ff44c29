import SweepImaging
import SweepPipeline
import SweepSupport
import SweepTimeline

/// A before/after comparison to render: the embedding API in one type.
///
/// ```swift
/// var comparison = Comparison(before: "before.jpg", after: "after.jpg")
/// comparison.size = (1080, 1080)
/// try comparison.render(to: "reveal.mp4")
/// ```
public struct Comparison: Sendable {
    /// Everything the renderer needs; the properties below are shortcuts into it.
    public var spec: RenderSpec

    /// A comparison of two image files (decoded by content: JPEG, PNG, WebP, TIFF, HEIC, AVIF, …).
    public init(before: String, after: String) {
        spec = RenderSpec(before: .file(before), after: .file(after), animation: RenderSpec.sweep())
    }

    /// A comparison of two images already in memory.
    public init(before: RGBAImage, after: RGBAImage) {
        spec = RenderSpec(before: .image(before), after: .image(after), animation: RenderSpec.sweep())
    }

    /// One photo against itself in another look.
    public init(photo: String, look: Adjustments) {
        spec = RenderSpec(
            before: .file(photo), after: nil,
            animation: RenderSpec.sweep(after: look))
    }

    /// Output size in pixels; `nil` uses the before image's size.
    public var size: (width: Int, height: Int)? {
        get { spec.width.flatMap { w in spec.height.map { (w, $0) } } }
        set { spec.width = newValue?.width; spec.height = newValue?.height }
    }

    /// Frames per second.
    public var fps: Double {
        get { spec.fps }
        set { spec.fps = newValue }
    }

    /// The animation: split position and each side's look over time.
    public var animation: Animation<Adjustments> {
        get { spec.animation }
        set { spec.animation = newValue }
    }

    /// How video inputs play: where the comparison starts and ends, each clip's own offset
    /// (`clip.afterOffset = 20` lines up an excerpt that starts 20 s into its original),
    /// the sound.
    public var clip: ClipOptions {
        get { spec.clip }
        set { spec.clip = newValue }
    }

    /// The slider's look: handle, labels, colours, orientation, corners.
    public var style: SliderStyle {
        get { spec.style }
        set { spec.style = newValue }
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
        format.apply(to: &spec, keeping: kept)
        self.format = format
    }

    /// A simple sweep lasting `duration` seconds, holds included (as `--duration`): hold on
    /// `from`, ease to `to`, hold.
    public static func sweep(
        from: Double = 1, to: Double = 0, duration: Double = 4, hold: Double = 0.5,
        curve: Curve = .easeInOut
    ) -> Animation<Adjustments> {
        RenderSpec.sweep(from: from, to: to, duration: duration, hold: hold, curve: curve)
    }

    /// Renders to a file; the format follows the extension (.gif, .mp4, .webm, …), or a
    /// still format's still at the middle.
    ///
    /// - Throws: ``SweepError`` naming the file and the fix.
    @discardableResult
    public func render(to path: String) throws -> RenderResult {
        let path = format?.outputPath(path) ?? path
        if format?.still == true { return try Renderer.preview(spec, position: 0.5, to: path) }
        return try Renderer.render(spec, to: path)
    }

    /// One still at split position `position` (.png, .jpg or .webp).
    @discardableResult
    public func still(at position: Double, to path: String) throws -> RenderResult {
        try Renderer.preview(spec, position: position, to: path)
    }

    /// Renders every frame and hands it to `body` in order, without writing a file: the
    /// frames a PNG sequence would hold (same default size, same clip timing).
    /// Frames are streamed: `body` must copy a frame it wants to keep.
    @discardableResult
    public func frames(_ body: (_ index: Int, _ frame: RGBAImage) throws -> Void) throws -> RenderResult {
        try Renderer.frames(spec, body)
    }
}
