import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTimeline
import SweepWeb

/// Writes the interactive page (`.html`): the same fitted sides the renderer composes,
/// encoded once as data URIs, and the `<sweep-compare>` element that draws the overlay,
/// applies the looks and plays the timeline in the browser.
public enum HTMLExport {
    /// What only the page needs.
    public struct Options: Sendable, Equatable {
        /// Also embed the sides at twice the size (`srcset … 2x`).
        public var retina = false
        /// Write only the element, its style and script, to paste into a page.
        public var fragment = false
        /// How the sides are encoded; `nil`: JPEG, or PNG when the background is
        /// transparent (JPEG has no alpha).
        public var imageFormat: StillEncoder.Format?
        /// JPEG/WebP quality, 1…100.
        public var quality = 90
        /// Where the poster is, for `og:image` and `twitter:image`; `nil`: no previews.
        public var posterURL: String?

        /// The defaults: 1x JPEG sides, a whole page, no previews.
        public init() {}
    }

    /// Writes the page for `spec` to `path`, atomically, from a frame source already set
    /// up for the output size (the renderer's entry point calls it for `.html`).
    ///
    /// - Throws: `SweepError` when an encoder is missing or the file cannot be written.
    static func write(_ spec: RenderSpec, source: FrameSource, to path: String, notes: [String]) throws -> RenderResult {
        let start = Date()
        let options = spec.html
        let w = source.width, h = source.height
        let format = options.imageFormat ?? (spec.style.background.a < 255 ? .png : .jpeg)
        func encode(_ image: RGBAImage) throws -> WebImage {
            WebImage(bytes: try StillEncoder.encode(image, format: format, quality: options.quality, name: path),
                     mimeType: format.mimeType)
        }
        let sameSide = spec.after == nil
        let before = try encode(source.beforeBase)
        let after = sameSide ? before : try encode(source.afterBase)
        var page = ComparisonPage(width: w, height: h, before: before, after: after, style: spec.style)
        let anim = spec.animation
        let first = anim.state(at: 0)
        page.timeline = TimelineJSON.encode(anim) { $0 }
        page.autoplay = !(anim.position.isConstant && anim.before.isConstant && anim.after.isConstant)
        (page.beforeLook, page.afterLook) = (first.before, first.after)
        if !page.autoplay { page.position = first.position }
        if options.retina {
            // The same fit at twice the size, from the decoded photos (not an upscale of 1x).
            var double = spec
            (double.width, double.height, double.defaultLongSide, double.evenSize) = (w * 2, h * 2, nil, false)
            let big = try FrameSource(spec: double)
            page.beforeRetina = try encode(big.beforeBase)
            page.afterRetina = sameSide ? page.beforeRetina : try encode(big.afterBase)
        }
        page.reduceMotion = spec.reduceMotion
        if let url = options.posterURL {
            page.preview = SocialPreview(url: url, width: w, height: h, alt: page.summary)
        }
        var notes = notes
        if let warning = try flashWarning(spec, source: source, path: path) { notes.append(warning) }
        let text = options.fragment ? page.fragment() : page.html()
        let bytes = Array(text.utf8)
        let out = try AtomicOutput(destination: path)
        try FileBytes.write(bytes, to: out.temporaryPath, reportAs: path)
        try out.commit()
        return RenderResult(output: path, format: options.fragment ? "html-fragment" : "html", bytes: bytes.count,
                            width: w, height: h, frames: 1, framesWritten: 1, fps: spec.fps,
                            duration: spec.animation.passDuration, seconds: Date().timeIntervalSince(start), notes: notes)
    }
}

extension HTMLExport {
    /// WCAG 2.3.1, checked as for a GIF or a video: the page plays the same states. The
    /// frames are rendered small (160 px on the long side; the probe only averages quarters
    /// of the frame), so the check costs a fraction of a GIF render.
    ///
    /// - Returns: a warning, or `nil` when the animation does not flash.
    /// - Throws: `.dataError` when it flashes and the spec refuses flashes (`--strict`).
    static func flashWarning(_ spec: RenderSpec, source: FrameSource, path: String) throws -> String? {
        let anim = spec.animation
        if anim.position.isConstant && anim.before.isConstant && anim.after.isConstant { return nil }
        let s = min(1, 160 / Double(max(source.width, source.height)))
        let w = max(2, Int(Double(source.width) * s)), h = max(2, Int(Double(source.height) * s))
        let bg = spec.style.background
        var small = spec
        small.before = .image(Resampler.resize(source.beforeBase, width: w, height: h, mode: .stretch, background: bg))
        small.after = .image(Resampler.resize(source.afterBase, width: w, height: h, mode: .stretch, background: bg))
        (small.width, small.height, small.defaultLongSide, small.evenSize) = (w, h, nil, false)
        let frames = try FrameSource(spec: small)
        var detector = FlashDetector(fps: spec.fps)
        var frame = RGBAImage(width: w, height: h)
        for state in anim.states(frames: anim.frameCount(fps: spec.fps), fps: spec.fps, reduceMotion: spec.reduceMotion) {
            frames.render(state, into: &frame)
            detector.add(LuminanceProbe.regions(frame))
        }
        guard detector.fails else { return nil }
        let at = String(format: "%.2f", detector.firstViolation ?? 0)
        let what = "flashes \(detector.maxFlashesPerSecond) times within one second (from \(at) s), over WCAG 2.3.1's limit of 3"
        if spec.refuseFlashes {
            throw SweepError(.dataError, what, subject: path, fix: "slow the changes down, or use --reduce-motion dissolve")
        }
        return "warning: " + what
    }
}

extension StillEncoder.Format {
    /// The MIME type of files in this format.
    var mimeType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .webp: "image/webp"
        }
    }
}
