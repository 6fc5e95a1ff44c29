import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport

/// Runs a resolved request (``ResolvedRender``), whichever door it came through: the still
/// or the animation, then the poster.
package enum RenderRun {
    /// Writes what `r` resolved to (the animation, or a still for a still format or
    /// `preview`), plus a poster when asked.
    package static func perform(_ r: ResolvedRender, progress: Renderer.Progress?) throws -> [RenderResult] {
        var results: [RenderResult]
        if case .still = r.kind {
            // --quality is the JPEG/WebP quality of a still (90 unless given: ``resolve``).
            results = [
                try Renderer.preview(r.spec, position: r.position, to: r.output, quality: r.spec.quality, maxBytes: r.spec.maxBytes)
            ]
        } else {
            results = [try Renderer.render(r.spec, to: r.output, progress: progress)]
        }
        results[0].notes.insert(contentsOf: r.notes, at: 0)
        if let poster = r.poster {
            // The poster stands in for the animation, so it takes the size the render ended
            // with (fitted by default, made even for video, shrunk by a size cap); a page's is
            // its link preview, at the 1200×630 the platforms show.
            var still = r.spec
            (still.width, still.height) = r.kind == .html ? Self.linkPreviewSize : (results[0].width, results[0].height)
            results.append(try Renderer.preview(still, position: r.position, to: poster))
        }
        return results
    }

    /// The size of a page's link-preview image (og:image), as Facebook, X and LinkedIn show it.
    package static let linkPreviewSize = (1200, 630)

    /// The poster beside `output`: the whole output name plus `.poster.jpg`
    /// (`clip.mp4.poster.jpg`), so that clip.mp4 and clip.gif get a poster each. Spelled as
    /// the output was (a relative output gives a relative poster path).
    package static func posterPath(for output: String) -> String { output + ".poster.jpg" }

    /// The render's two sides from the inputs given (one input: a look on one photo).
    package static func sides(_ o: RenderRequest) throws -> (InputSource, InputSource?) {
        switch o.inputs.count {
        case 1: return (.file(o.inputs[0]), nil)
        case 2: return (.file(o.inputs[0]), .file(o.inputs[1]))
        case 0: throw SweepError(.usage, "no input images", subject: "render", fix: "give BEFORE and AFTER image files")
        default: throw SweepError(.usage, "too many inputs: \(o.inputs.count)", subject: "render", fix: "give BEFORE and AFTER only")
        }
    }
}
