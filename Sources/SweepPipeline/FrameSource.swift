import SweepImaging
import SweepMedia
import SweepSupport
import SweepTimeline

/// Turns frame states into finished RGBA frames for one render.
///
/// The two sides are decoded and resized once; each look is applied once per distinct
/// value (a pure sweep applies it once in all); the overlay is drawn once. Per frame
/// only the split, the overlay sprites and, in dissolves, one blend remain.
public final class FrameSource {
    public let width: Int
    public let height: Int
    public let overlay: SliderOverlay
    let beforeBase: RGBAImage
    let afterBase: RGBAImage
    private var beforeCache: SideCache
    private var afterCache: SideCache
    private var scratch: RGBAImage

    /// Decodes and prepares both sides at the output size.
    public init(spec: RenderSpec) throws {
        let bg = spec.style.background
        let before = try Self.load(spec.before, background: bg, maxPixels: spec.maxPixels)
        let after = try spec.after.map { try Self.load($0, background: bg, maxPixels: spec.maxPixels) } ?? before
        let w = spec.width ?? before.width, h = spec.height ?? before.height
        try Self.validate(width: w, height: h, maxPixels: spec.maxPixels)
        width = w
        height = h
        beforeBase = Resampler.resize(before, width: w, height: h, mode: spec.fit, background: bg)
        afterBase = Resampler.resize(after, width: w, height: h, mode: spec.fit, background: bg)
        overlay = SliderOverlay(width: w, height: h, style: spec.style)
        beforeCache = SideCache(base: beforeBase)
        afterCache = SideCache(base: afterBase)
        scratch = RGBAImage(width: w, height: h)
    }

    static func validate(width: Int, height: Int, maxPixels: Int) throws {
        guard width >= 2, height >= 2, width <= 16384, height <= 16384, width * height <= maxPixels else {
            throw SweepError(.usage, "output size \(width)x\(height) is out of range", subject: "--size",
                             fix: "use 2…16384 pixels per side and at most \(maxPixels) pixels")
        }
    }

    static func load(_ source: InputSource, background: RGBA8, maxPixels: Int) throws -> RGBAImage {
        switch source {
        case let .file(path): return try ImageDecoder.decode(path: path, background: background, maxPixels: maxPixels)
        case let .image(img): return img
        }
    }

    /// Renders the frame for `state` into `frame` (which must have the output size).
    public func render(_ state: FrameState<Adjustments>, into frame: inout RGBAImage) {
        let (b, bm) = beforeCache.side(for: state.before)
        let (a, am) = afterCache.side(for: state.after)
        SplitCompositor.render(before: b, beforeMatrix: bm, after: a, afterMatrix: am, overlay: overlay,
                               position: state.position, into: &frame)
        if let fade = state.crossfade, fade.fraction > 0 {
            SplitCompositor.render(before: b, beforeMatrix: bm, after: a, afterMatrix: am, overlay: overlay,
                                   position: fade.position, into: &scratch)
            SplitCompositor.dissolve(&frame, towards: scratch, fraction: fade.fraction)
        }
    }

    /// Both sides at the output size in the given looks (each applied once and kept).
    public func sides(before b: Adjustments, after a: Adjustments) -> (before: RGBAImage, after: RGBAImage) {
        (b.apply(to: beforeBase), a.apply(to: afterBase))
    }

    /// A new frame for `state`.
    public func render(_ state: FrameState<Adjustments>) -> RGBAImage {
        var f = RGBAImage(width: width, height: height)
        render(state, into: &f)
        return f
    }
}

/// One side's pixels under a look. A look held for two frames in a row is applied once and
/// kept; a look that changes every frame is applied on the fly while compositing, to the
/// visible pixels only.
struct SideCache {
    let base: RGBAImage
    private var cached: (look: Adjustments, image: RGBAImage)?
    private var previous: Adjustments?

    init(base: RGBAImage) { self.base = base }

    mutating func side(for look: Adjustments) -> (RGBAImage, FixedColorMatrix?) {
        defer { previous = look }
        if look.isIdentity { return (base, nil) }
        if let c = cached, c.look == look { return (c.image, nil) }
        if look == previous {
            let img = look.apply(to: base)
            cached = (look, img)
            return (img, nil)
        }
        return (base, look.matrix.fixed)
    }
}
