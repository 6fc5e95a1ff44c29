import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport

/// Runs a parsed request, whichever door it came through (the command line, a batch job, the
/// render service): the still or the animation it asks for, its scope rule, its poster.
package enum RenderRun {
    /// Renders what parsed `render` options ask for (the animation, or a still for a still
    /// format, plus a poster when asked); shared with `batch`.
    package static func perform(_ o: inout RenderOptions, progress: Renderer.Progress?) throws -> [RenderResult] {
        guard let out = o.output else { throw SweepError(.usage, "no output file", subject: "render", fix: "add -o OUT.gif or -o OUT.mp4") }
        (o.spec.before, o.spec.after) = try sides(o)
        if o.still { return [try still(&o, to: out)] }
        let kind = try OutputKind.infer(path: out, codec: o.spec.codec)
        try checkScope(&o, kind: kind)
        if case .video(let codec, _) = kind, codec.name == "webp", o.given.contains("quality") {
            o.spec.videoOptions.append(("quality", String(o.spec.quality)))
        }
        if o.positionGiven && !o.poster {
            throw SweepError(
                .usage, "an animation moves the split, so a resting position means nothing here", subject: "--position",
                fix: "use sweep preview for a still, add --poster to set the poster's position, or --from/--to for the sweep")
        }
        let posterPath = posterPath(for: out)
        if o.poster, kind == .html {
            // The page links the poster written beside it, for link previews.
            if o.spec.html.posterURL == nil { o.spec.html.posterURL = URL(fileURLWithPath: posterPath).lastPathComponent }
            (o.spec.html.posterWidth, o.spec.html.posterHeight) = Self.linkPreviewSize
        }
        // The poster is checked like the main output before either is written.
        if o.poster { try Renderer.checkExtraOutput(o.spec, path: posterPath, field: .poster) }
        if kind == .html, let url = o.spec.html.posterURL, URL(string: url)?.scheme == nil {
            o.notes.append(
                "the page's og:image is the relative URL \(url), which link previews (Facebook, X, LinkedIn) do not follow; give --poster-url https://…/\(URL(fileURLWithPath: url).lastPathComponent) for where it will be served"
            )
        }
        var results = [try Renderer.render(o.spec, to: out, progress: progress)]
        results[0].notes.insert(contentsOf: o.notes, at: 0)
        if o.poster {
            // The poster stands in for the animation, so it takes the size the render ended
            // with (fitted by default, made even for video, shrunk by a size cap); a page's is
            // its link preview, at the 1200×630 the platforms show.
            var still = o.spec
            (still.width, still.height) =
                kind == .html ? Self.linkPreviewSize : (results[0].width, results[0].height)
            results.append(try Renderer.preview(still, position: o.position ?? Renderer.restingPosition, to: posterPath))
        }
        return results
    }

    /// The size of a page's link-preview image (og:image), as Facebook, X and LinkedIn show it.
    package static let linkPreviewSize = (1200, 630)

    /// The still `o` asks for (`preview`, or a still format), written to `out`.
    package static func still(_ o: inout RenderOptions, to out: String) throws -> RenderResult {
        let kind = try OutputKind.infer(path: out, still: true, codec: o.spec.codec)
        try checkScope(&o, kind: kind)
        // --quality is the JPEG/WebP quality of a still (90 unless given).
        let quality = o.given.contains("quality") ? o.spec.quality : 90
        var result = try Renderer.preview(
            o.spec, position: o.position ?? Renderer.restingPosition, to: out, quality: quality, maxBytes: o.spec.maxBytes)
        result.notes.insert(contentsOf: o.notes, at: 0)
        return result
    }

    /// Refuses the options given that cannot act on `kind` (``OptionScope``); for a batch
    /// job, notes them instead.
    package static func checkScope(_ o: inout RenderOptions, kind: OutputKind) throws {
        var video: (codec: VideoCodec, container: String)?
        if case let .video(codec, container) = kind { video = (codec, container) }
        let misfits = OptionScope.misfits(o.given, output: OptionScope.Output(kind), video: video, lossless: kind == .still(.png))
        guard let first = misfits.first else { return }
        guard o.lenient else { throw first }
        o.notes += misfits.map { "\($0.subject ?? "") \($0.message), so it is ignored" }
    }

    /// The poster beside `output`: the whole output name plus `.poster.jpg`
    /// (`clip.mp4.poster.jpg`), so that clip.mp4 and clip.gif get a poster each. Spelled as
    /// the output was (a relative output gives a relative poster path).
    package static func posterPath(for output: String) -> String { output + ".poster.jpg" }

    /// The render's two sides from the inputs given (one input: a look on one photo).
    package static func sides(_ o: RenderOptions) throws -> (InputSource, InputSource?) {
        switch o.inputs.count {
        case 1: return (.file(o.inputs[0]), nil)
        case 2: return (.file(o.inputs[0]), .file(o.inputs[1]))
        case 0: throw SweepError(.usage, "no input images", subject: "render", fix: "give BEFORE and AFTER image files")
        default: throw SweepError(.usage, "too many inputs: \(o.inputs.count)", subject: "render", fix: "give BEFORE and AFTER only")
        }
    }
}
