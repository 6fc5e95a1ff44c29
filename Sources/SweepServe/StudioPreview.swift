import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepRequest
import SweepSupport
import SweepWeb

/// The studio's live preview: the `<sweep-compare>` configuration (size, overlay style,
/// timeline, reduced motion, and how the pictures fill the frame) for a spec, built by the very code a render runs (the batch
/// keys, the presets, the social format, the output's default size), so that what plays in
/// the page is what the export will be. The browser only sends the spec and the before
/// picture's size; no file is read and nothing is rendered.
package enum StudioPreview {
    /// The element's JSON configuration for `spec` (a batch job's keys with `output`).
    ///
    /// - Parameters:
    ///   - width: the before picture's width in pixels (as the browser decoded it).
    ///   - height: its height.
    ///   - twoSides: an after picture was given (otherwise the before one plays both sides).
    ///   - still: the export is a still (its default size is a still's).
    ///   - maxFramePixels: the server's limit on an output frame.
    /// - Throws: `SweepError` for a spec the render would refuse (400/413/422, as `/v1/renders`),
    ///   its size with this picture included.
    package static func config(
        spec: [UInt8], width: Int, height: Int, twoSides: Bool, still: Bool, library: PresetLibrary,
        maxFramePixels: Int = ServeOptions().maxFramePixels
    ) throws -> String {
        guard (1...100_000).contains(width), (1...100_000).contains(height) else {
            throw SweepError(.usage, "the picture's size must be 1…100000 pixels a side", subject: "w, h", fix: "give w and h")
        }
        let inputs = twoSides ? ["before.png", "after.png"] : ["before.png"]
        let options = try ServeSpec(
            spec, inputs: inputs, folder: "studio", still: still, library: library, memory: DecoderMemory.defaultBudget,
            maxFramePixels: maxFramePixels
        ).options
        var render = options.spec
        let kind = try OutputKind.infer(path: options.output ?? "", still: options.still, codec: render.codec)
        // The render's own size rules: its default size, even sides for 4:2:0.
        Renderer.capDefaultSize(&render, kind: kind)
        Renderer.evenSides(&render, kind: kind)
        let size = FrameSource.outputSize(render, before: (width, height))
        try FrameSource.validate(width: size.width, height: size.height, spec: render)
        // A still's export rests at one position, but its preset's looks still play in the
        // preview (the element paints looks only from a timeline).
        let timeline = TimelineJSON.encode(render.animation) { $0 }
        let element = ElementConfig.json(
            width: size.width, height: size.height, style: render.style, timeline: timeline, reduceMotion: render.reduceMotion)
        // How the pictures fill the frame (`fit`: the page sets the pictures' object-fit from
        // it; the element itself always crops, as every exported page's pictures are the
        // output's size already).
        return "{\"fit\":\"\(render.fit.rawValue)\"," + element.dropFirst()
    }
}
