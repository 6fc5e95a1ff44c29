import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTimeline
import SweepWeb

/// Writes the interactive page (`.html`): the same fitted sides the renderer composes,
/// encoded once as data URIs, and the `<sweep-compare>` element that draws the overlay,
/// applies the looks and plays the timeline in the browser.
package enum HTMLExport {
    /// What only the page needs.
    package struct Options: Sendable, Equatable {
        /// Also embed the sides at twice the size (`srcset … 2x`).
        package var retina = false
        /// Write only the element, its style and script, to paste into a page.
        package var fragment = false
        /// How the sides are encoded; `nil`: JPEG, or PNG when the background is
        /// transparent (JPEG has no alpha).
        package var imageFormat: StillEncoder.Format?
        /// JPEG/WebP quality, 1…100.
        package var quality = 90
        /// Where the poster is, for `og:image` and `twitter:image`; `nil`: no previews.
        package var posterURL: String?
        /// The poster's size, for `og:image:width`/`height`; `nil`: the page's own.
        package var posterWidth: Int?
        package var posterHeight: Int?

        /// The defaults: 1x JPEG sides, a whole page, no previews.
        package init() {}
    }

    /// The page (or fragment) for `spec`, from a frame source already set up for the
    /// output size; `name` is used in errors.
    ///
    /// - Throws: `SweepError` when an encoder is missing.
    static func page(_ spec: RenderSpec, source: FrameSource, name path: String) throws -> [UInt8] {
        let options = spec.html
        let w = source.width, h = source.height
        let format = options.imageFormat ?? (spec.style.background.a < 255 ? .png : .jpeg)
        func encode(_ image: RGBAImage) throws -> WebImage {
            WebImage(
                bytes: try StillEncoder.encode(image, format: format, quality: options.quality, name: path),
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
            // Two stills decoded, no frames made: held to their own bound, not the frame limit.
            try RenderLimits.checkDoubled(width: w, height: h, maxFramePixels: spec.maxFramePixels)
            double.maxFramePixels = nil
            let big = try FrameSource(spec: double)
            page.beforeRetina = try encode(big.beforeBase)
            page.afterRetina = sameSide ? page.beforeRetina : try encode(big.afterBase)
        }
        page.reduceMotion = spec.reduceMotion
        if let url = options.posterURL {
            page.preview = SocialPreview(url: url, width: options.posterWidth ?? w, height: options.posterHeight ?? h, alt: page.summary)
        }
        return Array((options.fragment ? page.fragment() : page.html()).utf8)
    }
}

extension HTMLExport {
    /// A copy of `source` shrunk to 160 px on the long side, for the flash check: the page
    /// plays the same states as a video would, and the probe only averages quarters of the
    /// frame, so small frames cost a fraction of a GIF render and give the same answer.
    static func flashProbeSource(_ spec: RenderSpec, source: FrameSource) throws -> FrameSource {
        let s = min(1, 160 / Double(max(source.width, source.height)))
        let w = max(2, Int(Double(source.width) * s)), h = max(2, Int(Double(source.height) * s))
        let bg = spec.style.background
        var small = spec
        small.before = .image(Resampler.resize(source.beforeBase, width: w, height: h, mode: .stretch, background: bg))
        small.after = .image(Resampler.resize(source.afterBase, width: w, height: h, mode: .stretch, background: bg))
        (small.width, small.height, small.defaultLongSide, small.evenSize) = (w, h, nil, false)
        return try FrameSource(spec: small)
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
