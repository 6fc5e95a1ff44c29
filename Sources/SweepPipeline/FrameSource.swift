import Dispatch
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
    /// The before image's own size, as decoded.
    public let beforeSize: (width: Int, height: Int)
    /// The size before `evenSize` dropped an odd last column or row, if it did.
    public let unevenSize: (width: Int, height: Int)?
    let beforeBase: RGBAImage
    let afterBase: RGBAImage
    private var beforeCache: SideCache
    private var afterCache: SideCache
    private var scratch: RGBAImage

    /// Decodes and prepares both sides at the output size.
    public init(spec: RenderSpec) throws {
        let bg = spec.style.background
        // The two sides decode on both cores at once (each decoder is single-threaded).
        let sources = [spec.before, spec.after ?? spec.before]
        let loaded = LoadSlots(count: spec.after == nil ? 1 : 2)
        DispatchQueue.concurrentPerform(iterations: loaded.count) { i in
            loaded.set(i, Result { try Self.load(sources[i], background: bg, maxPixels: spec.maxPixels) })
        }
        let before = try loaded.get(0)
        let after = loaded.count == 2 ? try loaded.get(1) : before
        // A width alone keeps the before image's aspect ratio (even, for video). No size at
        // all takes the before image's, shrunk to fit `defaultLongSide` when that is set.
        beforeSize = (before.width, before.height)
        // (A 1-pixel side becomes 2: the smallest output there is.)
        var w = spec.width ?? max(2, before.width)
        var h = spec.height ?? (spec.width != nil ? max(2, Int((Double(w) * Double(before.height) / Double(before.width) / 2).rounded()) * 2)
                                                  : max(2, before.height))
        if spec.width == nil, spec.height == nil, let limit = spec.defaultLongSide, max(w, h) > limit {
            let s = Double(limit) / Double(max(w, h))
            w = max(2, Int((Double(w) * s / 2).rounded()) * 2)
            h = max(2, Int((Double(h) * s / 2).rounded()) * 2)
        }
        if spec.evenSize && (w % 2 == 1 || h % 2 == 1) {
            unevenSize = (w, h)
            w = max(2, w & ~1)
            h = max(2, h & ~1)
        } else {
            unevenSize = nil
        }
        try Self.validate(width: w, height: h, maxPixels: spec.maxPixels)
        width = w
        height = h
        beforeBase = Resampler.resize(before, width: w, height: h, mode: spec.fit, background: bg)
        afterBase = loaded.count == 2 ? Resampler.resize(after, width: w, height: h, mode: spec.fit, background: bg) : beforeBase
        overlay = SliderOverlay(width: w, height: h, style: spec.style)
        beforeCache = SideCache(base: beforeBase)
        afterCache = SideCache(base: afterBase)
        scratch = RGBAImage(width: w, height: h)
    }

    static func validate(width: Int, height: Int, maxPixels: Int) throws {
        guard width >= 2, height >= 2, width <= 16384, height <= 16384, width * height <= maxPixels else {
            throw SweepError(.usage, "output size \(width)x\(height) is out of range",
                             fix: "use 2…16384 pixels per side and at most \(maxPixels) pixels", field: .size)
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
