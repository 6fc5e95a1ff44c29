import Dispatch
import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTimeline
import SweepWorker

/// Turns frame states into finished RGBA frames for one render.
///
/// The two sides are decoded and resized once; each look is applied once per distinct
/// value (a pure sweep applies it once in all); the overlay is drawn once. Per frame
/// only the split, the overlay sprites and, in dissolves, one blend remain.
package final class FrameSource {
    package let width: Int
    package let height: Int
    package let overlay: SliderOverlay
    /// The before image's own size, as decoded.
    package let beforeSize: (width: Int, height: Int)
    /// The size before `evenSize` dropped an odd last column or row, if it did.
    package let unevenSize: (width: Int, height: Int)?
    /// Things worth saying about the inputs (e.g. most of a photo cropped away).
    package let notes: [String]
    /// A fill that crops more than this share of an image says so.
    static let cropNoteThreshold = 0.4
    /// A picture enlarged more than this says so.
    static let enlargeNoteThreshold = 1.5
    private(set) var beforeBase: RGBAImage
    private(set) var afterBase: RGBAImage
    private var beforeCache: SideCache
    private var afterCache: SideCache
    private var scratch: RGBAImage
    /// The sides played from videos; one object when both sides play one clip.
    let beforeClip: ClipSide?
    let afterClip: ClipSide?
    /// The clip frame each side's base shows (see ``ClipSide/shown``).
    private var beforeShown = 0, afterShown = 0
    /// The before clip's frame rate, else the after clip's; `nil` when both sides are stills.
    package let clipRate: Double?
    /// Seconds the shorter clip lasts from the start; `nil` when both sides are stills.
    package let clipDuration: Double?
    /// The key frames of the first clip that lists any (the before clip's, else the after
    /// clip's), clip seconds; empty when neither does.
    package let clipKeyFrames: [Double]
    /// The clips whose frames end before the length their files state.
    package let cutShort: [ClipCut]

    /// The two sides show the same pixels (the same photo, or one photo without a look).
    package var sidesIdentical: Bool {
        if beforeClip != nil || afterClip != nil { return beforeClip === afterClip }
        return beforeBase.pixels == afterBase.pixels
    }

    /// Decodes and prepares both sides at the output size.
    package init(spec: RenderSpec) throws {
        let bg = spec.style.background
        // The two sides decode on both cores at once (each decoder is single-threaded).
        let sources = [spec.before, spec.after ?? spec.before]
        let target = Self.knownSize(spec).map { StillTarget(width: $0.width, height: $0.height, fit: spec.fit) }
        func open(_ i: Int) throws -> LoadedSide {
            func decode() throws -> LoadedSide {
                try LoadedSide.open(
                    sources[i], clip: spec.clip.forSide(i), background: bg, maxPixels: spec.maxPixels, decoding: spec.decoding,
                    target: target)
            }
            // Only the decode worker resizes a still to the render's size where it decodes.
            return try spec.stills?.side(i, target: spec.decoding == .worker ? target : nil, open: decode) ?? decode()
        }
        let twoInputs = spec.after != nil
        let (beforeSide, afterSide) =
            try twoInputs
            ? Pending.both({ try open(0) }, { try open(1) })
            : {
                let s = try open(0); return (s, s)
            }()
        let before = beforeSide.size, after = afterSide.size
        beforeSize = (before.width, before.height)
        let size = Self.outputSize(spec, before: beforeSize)
        let (w, h) = (size.width, size.height)
        unevenSize = size.uneven
        try Self.validate(width: w, height: h, spec: spec)
        width = w
        height = h
        func side(_ loaded: LoadedSide, _ index: Int) throws -> (RGBAImage, ClipSide?) {
            func resized(_ image: RGBAImage) -> RGBAImage {
                guard image.width != w || image.height != h else { return image }
                let resize = { Resampler.resize(image, width: w, height: h, mode: spec.fit, background: bg) }
                return spec.stills?.base(index, width: w, height: h, resize: resize) ?? resize()
            }
            switch loaded {
            case let .image(image), let .resized(image, _): return (resized(image), nil)
            case let .clip(decoder):
                let (options, limit) = (spec.clip.forSide(index), spec.maxPixels)
                let clip = ClipSide(
                    decoder: decoder, width: w, height: h, fit: spec.fit, background: bg,
                    reopen: { [decoder] in try LoadedSide.reopen(decoder, clip: options, background: bg, maxPixels: limit) })
                try clip.advance(to: 0)
                return (clip.frame, clip)
            }
        }
        (beforeBase, beforeClip) = try side(beforeSide, 0)
        if twoInputs {
            (afterBase, afterClip) = try side(afterSide, 1)
        } else {
            (afterBase, afterClip) = (beforeBase, beforeClip)
        }
        let clips = [beforeClip, afterClip].compactMap { $0 }
        clipRate = clips.first?.decoder.frameRate
        clipDuration = clips.map(\.decoder.duration).min()
        clipKeyFrames = clips.lazy.map(\.decoder.keyFrameTimes).first { !$0.isEmpty } ?? []
        var notes: [String] = []
        var cuts: [ClipCut] = []
        for (side, clip) in [("before", beforeClip), ("after", afterClip === beforeClip ? nil : afterClip)] {
            guard let video = clip?.decoder else { continue }
            if let transfer = video.hdrTransfer { notes.append("the \(side) clip is HDR (\(transfer)): tone-mapped to SDR BT.709") }
            notes += video.layers.notes(side: side)
            if let end = video.statedEnd {
                cuts.append(ClipCut(side: side, input: video.path, framesEnd: end.frames, stated: end.stated))
            }
        }
        cutShort = cuts
        var insets = spec.safeInsets
        // Each tag keeps off its own picture's letterbox bars; the knob off both.
        var tagInsets = (before: spec.safeInsets, after: spec.safeInsets)
        // Two pictures of one shape are spoken of once.
        let sameShape = twoInputs && before.width * after.height == after.width * before.height
        let sides =
            twoInputs && !sameShape
            ? [("before", before), ("after", after)]
            : [(twoInputs ? "before and after" : "before", before)]
        // A clip is a video, in words.
        let videoSides = Set([("before", beforeClip), ("after", afterClip)].compactMap { $0.1 == nil ? nil : $0.0 })
        for (side, image) in sides {
            // Enlarged well past its own pixels, a picture looks soft: say so.
            let sx = Double(w) / Double(image.width), sy = Double(h) / Double(image.height)
            let enlarged = spec.fit == .fit ? min(sx, sy) : max(sx, sy)
            if enlarged > Self.enlargeNoteThreshold {
                notes.append(
                    String(
                        format: "the %@ %@ (%dx%d) %@ enlarged %.1f× to %dx%d, so it looks soft; give a larger one or a smaller size",
                        side, Self.noun(side, videos: videoSides), image.width, image.height, side.contains(" and ") ? "are" : "is",
                        enlarged, w, h))
            }
            let imageAspect = Double(image.width) / Double(image.height), frameAspect = Double(w) / Double(h)
            let kept = min(imageAspect / frameAspect, frameAspect / imageAspect)  // the share of the image shown (fill)
            switch spec.fit {
            case .fill where 1 - kept > Self.cropNoteThreshold:
                notes.append(
                    String(
                        format:
                            "the %@ %@ (%dx%d) %@ cropped by %.0f %% to fill %dx%d; fit it whole (letterboxed) or choose a size of its shape",
                        side, Self.noun(side, videos: videoSides), image.width, image.height,
                        side.contains(" and ") ? "are" : "is", (1 - kept) * 100, w, h))
            case .fit:
                // Tags stay on the picture, off the letterbox bars.
                let bars =
                    imageAspect > frameAspect
                    ? SafeInsets(top: (1 - kept) / 2, bottom: (1 - kept) / 2)
                    : SafeInsets(left: (1 - kept) / 2, right: (1 - kept) / 2)
                insets = insets.union(bars)
                // One input shows on both sides.
                if side != "after" { tagInsets.before = tagInsets.before.union(bars) }
                if side != "before" || !twoInputs { tagInsets.after = tagInsets.after.union(bars) }
            default: break
            }
        }
        self.notes = notes
        overlay = try SliderOverlay(width: w, height: h, style: spec.style, insets: insets, tagInsets: tagInsets)
        beforeCache = SideCache(base: beforeBase)
        afterCache = SideCache(base: afterBase)
        scratch = RGBAImage(width: w, height: h)
    }

    /// What a side is called in a note: "image" or "video", plural for "before and after".
    static func noun(_ side: String, videos: Set<String>) -> String {
        let parts = side.components(separatedBy: " and ")
        let kinds = Set(parts.map { videos.contains($0) ? "video" : "image" })
        let word = kinds.count == 1 ? kinds.first! : "picture"
        return parts.count > 1 ? word + "s" : word
    }

    /// The output size when the spec alone fixes it (both sides given, and valid), so that
    /// stills can be resized where they are decoded; `nil` when it depends on the inputs.
    static func knownSize(_ spec: RenderSpec) -> (width: Int, height: Int)? {
        guard let size = givenSize(spec), (try? validate(width: size.width, height: size.height, spec: spec)) != nil else { return nil }
        return size
    }

    /// The output size both given sides make (even for 4:2:0), unchecked; nil when one is open.
    package static func givenSize(_ spec: RenderSpec) -> (width: Int, height: Int)? {
        guard let w = spec.width, let h = spec.height else { return nil }
        return spec.evenSize ? (width: max(2, w & ~1), height: max(2, h & ~1)) : (width: w, height: h)
    }

    /// Throws unless a `width`×`height` output is within the limits: 2…16384 per side, at
    /// most `spec.maxPixels`, and at most a server's `spec.maxFramePixels`.
    package static func validate(width: Int, height: Int, spec: RenderSpec) throws {
        guard width >= 2, height >= 2, width <= 16384, height <= 16384, width * height <= spec.maxPixels else {
            throw SweepError(
                .usage, "output size \(width)x\(height) is out of range",
                fix: "use 2…16384 pixels per side and at most \(spec.maxPixels) pixels", field: .size)
        }
        if let limit = spec.maxFramePixels, width * height > limit {
            throw SweepError(
                .usage, "output size \(width)x\(height) is over this server's limit of \(limit) pixels a frame", subject: "size",
                fix: "ask for a smaller size", field: .maxFramePixels)
        }
    }

    /// Shows each clip's frame on screen at clip time `t` (both decode at once when both
    /// sides play); a side whose picture changed drops the looks it had cached.
    func advanceClips(to t: Double) throws {
        _ = try eachClip { try $0.advance(to: t) }
        if let c = beforeClip, c.shown != beforeShown {
            beforeShown = c.shown
            beforeBase = c.frame
            beforeCache = SideCache(base: beforeBase)
        }
        if let c = afterClip, c.shown != afterShown {
            afterShown = c.shown
            afterBase = c.frame
            afterCache = SideCache(base: afterBase)
        }
    }

    /// `body` applied to the before and the after clip (`nil` for a still side, and for the
    /// after side when both play one clip), on both cores when two clips play.
    func eachClip<T>(_ body: @escaping @Sendable (ClipSide) throws -> T) throws -> (before: T?, after: T?) {
        let clips = [beforeClip, afterClip === beforeClip ? nil : afterClip]
        if clips.allSatisfy({ $0 != nil }) { return try Pending.both({ try clips[0].map(body) }, { try clips[1].map(body) }) }
        return (try clips[0].map(body), try clips[1].map(body))
    }

    /// Plays the clips from the start again (after frames were sampled ahead).
    func rewindClips() throws {
        try beforeClip?.rewind()
        if afterClip !== beforeClip { try afterClip?.rewind() }
        try advanceClips(to: 0)
    }

    /// Renders the frame for `state` with the clips at `clipTime` (nil: as they are).
    func render(_ state: FrameState<Adjustments>, clipTime: Double?, into frame: inout RGBAImage) throws {
        if let clipTime { try advanceClips(to: clipTime) }
        render(state, into: &frame)
    }

    /// Renders the frame for `state` into `frame` (which must have the output size).
    package func render(_ state: FrameState<Adjustments>, into frame: inout RGBAImage) {
        let (b, bm) = beforeCache.side(for: state.before)
        let (a, am) = afterCache.side(for: state.after)
        if let fade = state.crossfade, fade.fraction > 0 {
            // The pictures cross-fade; the overlay is drawn once over the mix, so the handle
            // stays single and whole (SliderOverlay.dissolveLayout).
            SplitCompositor.compose(
                before: b, beforeMatrix: bm, after: a, afterMatrix: am, overlay: overlay,
                position: state.position, into: &frame)
            SplitCompositor.compose(
                before: b, beforeMatrix: bm, after: a, afterMatrix: am, overlay: overlay,
                position: fade.position, into: &scratch)
            SplitCompositor.dissolve(&frame, towards: scratch, fraction: fade.fraction)
            overlay.draw(on: &frame, layout: overlay.dissolveLayout(from: state.position, to: fade.position, fraction: fade.fraction))
        } else {
            SplitCompositor.render(
                before: b, beforeMatrix: bm, after: a, afterMatrix: am, overlay: overlay,
                position: state.position, into: &frame)
        }
    }

    /// Both sides at the output size in the given looks (each applied once and kept).
    package func sides(before b: Adjustments, after a: Adjustments) -> (before: RGBAImage, after: RGBAImage) {
        (b.apply(to: beforeBase), a.apply(to: afterBase))
    }

    /// A new frame for `state`.
    package func render(_ state: FrameState<Adjustments>) -> RGBAImage {
        var f = RGBAImage(width: width, height: height)
        render(state, into: &f)
        return f
    }
}

extension FrameSource {
    /// The output's size for `spec` when the before picture is `before`: the spec's size,
    /// one side from the before picture's aspect ratio, or the before picture's own, fitted
    /// within `defaultLongSide` and made even when the spec asks; `uneven` is the size
    /// before that last step, when it changed anything. The studio's preview asks it too, so
    /// that the page takes the size the render will.
    package static func outputSize(
        _ spec: RenderSpec, before: (width: Int, height: Int)
    ) -> (width: Int, height: Int, uneven: (width: Int, height: Int)?) {
        let unevenSize: (width: Int, height: Int)?
        // One side alone takes the other from the before image's aspect ratio (even, for
        // video). No size at all takes the before image's, shrunk to fit `defaultLongSide` when
        // that is set. (A 1-pixel side becomes 2: the smallest output there is.)
        let aspect = Double(before.width) / Double(before.height)
        var w: Int, h: Int
        switch (spec.width, spec.height) {
        case let (sw?, sh?): (w, h) = (sw, sh)
        case let (sw?, nil): (w, h) = (sw, max(2, Int((Double(sw) / aspect / 2).rounded()) * 2))
        case let (nil, sh?): (w, h) = (max(2, Int((Double(sh) * aspect / 2).rounded()) * 2), sh)
        case (nil, nil): (w, h) = (max(2, before.width), max(2, before.height))
        }
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
        return (w, h, unevenSize)
    }
}
