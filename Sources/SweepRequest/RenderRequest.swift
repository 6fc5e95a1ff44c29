import Foundation
import SweepGIF
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTimeline
import SweepWorker

/// Step two of parsing for `render`, `preview` and `demo`: a plain value built from the
/// split arguments. Pure: it throws, never prints or exits.
package struct RenderRequest: Sendable {
    package var inputs: [String] = []
    package var output: String?
    package var spec: RenderSpec
    package var position: Double?
    package var quiet = false
    package var json = false
    /// Look preset names or files, resolved by ``resolveLooks(_:)``.
    package var beforeLook: String?
    package var afterLook: String?
    /// Direct values for the after side, over its look.
    package var afterOverrides: [String: Double] = [:]
    /// `--preset NAME|FILE`, resolved by ``resolveLooks(_:)`` with the shortcuts below.
    package var preset: String?
    package var from: Double?, to: Double?, duration: Double?, hold: Double?, curve: Curve?, loop: LoopMode?
    /// `--strict`: refuse (rather than warn about) an animation that flashes.
    package var strict = false
    /// `--format NAME|FILE`: a social format, applied under the explicit options.
    package var format: String?
    /// A still rather than an animation: the format asks for one, or the command is `preview`.
    package var still = false
    /// `--poster`: also write a still beside a video.
    package var poster = false
    /// The built-in sweep's hold and sweep times (for the summary), or nil for a preset.
    package var sweepSplit: (hold: Double, sweep: Double)?
    /// `--position` was given (it means something only for stills and posters).
    package var positionGiven = false
    /// Notes the command line adds to the render's own (e.g. a format's limits dropped).
    package var notes: [String] = []

    /// Options given explicitly on the command line (they win over a format).
    package var given: Set<String> = []

    /// The two sides as sources, for a door that has them already (SweepKit's files and
    /// pictures in memory); nil takes them from ``inputs``.
    package var sources: (before: InputSource, after: InputSource?)?
    /// A format the door has applied to ``spec`` already (SweepKit's `apply`): resolved as a
    /// named one is (its duration, still, extension and output fit), without applying it again.
    package var appliedFormat: FormatPreset?
    /// Keyframes the door gave instead of a sweep (SweepKit's `animation`); a format's
    /// duration stretches them.
    package var keyframes: Animation<Adjustments>?
    /// Each side's look as values, under a named look (SweepKit's `init(photo:look:)`).
    package var beforeAdjustments = Adjustments.identity
    package var afterAdjustments = Adjustments.identity

    /// A request for `spec` with nothing else asked: a door sets the fields it has.
    package init(spec: RenderSpec) {
        self.spec = spec
    }

    /// Options `render`, `preview` and `demo` share (from ``OptionTable``).
    package static let common: [ArgumentSplitter.Option] = OptionTable.splitterOptions

    /// Interprets split arguments: each option through its declaration in ``OptionTable``
    /// (in the table's order; the last value wins, except for repeatable options), then the
    /// animation they describe.
    package static func interpret(_ r: ArgumentSplitter.Result) throws -> RenderRequest {
        var o = RenderRequest(spec: RenderSpec(before: .file(""), after: nil, animation: RenderSpec.sweep()))
        o.given = Set(r.options.map(\.name))
        for d in OptionTable.declarations where o.given.contains(d.name) {
            let values = r.options.filter { $0.name == d.name }
            for v in d.repeatable ? values : Array(values.suffix(1)) {
                try d.apply(&o, OptionDeclaration.Value(text: v.value ?? "", option: "--" + d.name, values: d.values))
            }
        }
        o.inputs = r.positionals
        if let end = o.spec.clip.end, end <= o.spec.clip.start {
            throw SweepError(
                .usage, "the end (\(end) s) is not after the start (\(o.spec.clip.start) s)", subject: "--end",
                fix: "give an end after the start")
        }
        o.makeTiming()
        return o
    }

    /// Makes the timing asked into the spec: the keyframes (the plain sweep, or the door's own
    /// ``keyframes``), the flash rule, and how clips follow it. ``interpret(_:)`` calls it; a
    /// door that sets the fields itself (SweepKit) calls it before ``resolve(_:door:)``.
    package mutating func makeTiming() {
        spec.refuseFlashes = strict
        if let keyframes {
            spec.animation = keyframes
            sweepSplit = nil
        } else {
            makeSweep(pass: duration ?? 4)
        }
        // Only what was asked is set: a door's spec may hold a format's rate or its own length.
        if given.contains("fps") { spec.clip.followClipRate = false }
        if let duration { spec.clip.length = duration }
        if loop != nil { spec.clip.loopAnimation = true }
    }

    /// The plain sweep the options describe, `pass` seconds long: `--duration` is one whole
    /// pass, holds included, as in presets and formats, and the sweep takes what the holds
    /// leave (at least a tenth of the pass).
    private mutating func makeSweep(pass: Double) {
        let hold = hold ?? 0.5
        spec.animation = RenderSpec.sweep(
            from: from ?? 1, to: to ?? 0, duration: pass, hold: hold, curve: curve ?? .easeInOut, loop: loop ?? .forever)
        sweepSplit = (RenderSpec.holdTime(pass: pass, hold: hold), RenderSpec.sweepTime(pass: pass, hold: hold))
    }

    /// Resolves the request, once, for every door: the format, preset and looks
    /// (``resolveLooks(_:)``), the two sides, the output's kind, the scope rule of `door`
    /// (``RequestDoor/refusesMisfits``), a still's quality, and the poster and link preview.
    ///
    /// - Throws: `.usage` for a request no door can render (no output, no inputs, a resting
    ///   position for an animation, an option that cannot act where `door` refuses it), and
    ///   what the format, presets and output checks throw.
    package mutating func resolve(_ library: PresetLibrary, door: RequestDoor) throws -> ResolvedRender {
        spec.lenient = !door.refusesMisfits
        let preview = still  // `sweep preview`, before a still format makes any request a still
        try resolveLooks(library)
        guard let out = output else {
            throw SweepError(
                .usage, "no output file", subject: preview ? "preview" : "render",
                fix: preview ? "add -o OUT.png" : "add -o OUT.gif or -o OUT.mp4")
        }
        (spec.before, spec.after) = try sources ?? RenderRun.sides(self)
        let kind = try OutputKind.infer(path: out, still: still, codec: spec.codec)
        var r = ResolvedRender(
            spec: spec, output: out, kind: kind, position: position ?? Renderer.restingPosition, poster: nil, notes: notes)
        r.notes += try OptionScope.check(given, kind: kind, door: door)
        if still {
            // --quality is the JPEG/WebP quality of a still: 90 unless given.
            if !given.contains("quality") { r.spec.quality = 90 }
            return r
        }
        if case .video(let codec, _) = kind, codec.name == "webp", given.contains("quality") {
            r.spec.videoOptions.append(("quality", String(spec.quality)))
        }
        if positionGiven && !poster {
            throw SweepError(
                .usage, "an animation moves the split, so a resting position means nothing here", subject: "--position",
                fix: "use sweep preview for a still, add --poster to set the poster's position, or --from/--to for the sweep")
        }
        // A poster where it cannot act (a PNG sequence) was noted above and is not written.
        let posterActs = poster && OptionScope.misfits(["poster"], output: OptionScope.Output(kind)).isEmpty
        guard posterActs || kind == .html else { return r }
        if posterActs {
            r.poster = RenderRun.posterPath(for: out)
            if kind == .html {
                // The page links the poster written beside it, for link previews.
                if r.spec.html.posterURL == nil { r.spec.html.posterURL = URL(fileURLWithPath: r.poster!).lastPathComponent }
                (r.spec.html.posterWidth, r.spec.html.posterHeight) = RenderRun.linkPreviewSize
            }
            // The poster is checked like the main output before either is written.
            try Renderer.checkExtraOutput(r.spec, path: r.poster!, field: .poster)
        }
        if kind == .html, let url = r.spec.html.posterURL, URL(string: url)?.scheme == nil {
            r.notes.append(
                "the page's og:image is the relative URL \(url), which link previews (Facebook, X, LinkedIn) do not follow; give --poster-url https://…/\(URL(fileURLWithPath: url).lastPathComponent) for where it will be served"
            )
        }
        return r
    }

    /// Loads the animation preset (with the shortcuts applied) and the named looks, and
    /// applies the looks (and the direct values) to both sides' tracks.
    package mutating func resolveLooks(_ library: PresetLibrary) throws {
        let named: [(option: String, value: String?)] = [
            ("--format", format), ("--preset", preset), ("--before-look", beforeLook), ("--look", afterLook),
        ]
        spec.settingsFiles = named.compactMap { option, value in value.flatMap { PresetLibrary.isPath($0) ? (option, $0) : nil } }
        if let f = try appliedFormat ?? format.map({ try library.format($0) }) {
            if appliedFormat == nil {
                // What was given on the command line wins over the format.
                let kept = Set(OptionTable.declarations.filter { $0.setByFormats && given.contains($0.name) }.compactMap(\.field))
                f.apply(to: &spec, keeping: kept)
            }
            if !given.contains("duration"), let d = f.duration {
                // The format's duration is the whole pass: the sweep fills what the holds leave.
                // Made again from the hold asked for, not the one the first pass may have
                // clamped to a quarter of the default 4 s (as `Animation.withPass` would keep).
                // Keyframes of the door's own are stretched to it.
                duration = d
                if let keyframes { spec.animation = keyframes.withPass(d) } else { makeSweep(pass: d) }
            }
            // `preview` (still already) takes a video format's size and framing as a still.
            let stillOfAnimation = still && !f.still
            still = still || f.still
            if let out = output, URL(fileURLWithPath: out).pathExtension.isEmpty {
                // No extension: the format's, unless --codec chose another kind of file.
                var ext = stillOfAnimation ? "png" : f.fileExtension
                if given.contains("codec"), let c = spec.codec {
                    ext = c == "gif" ? "gif" : VideoCodec.named(c)?.fileExtension ?? ext
                }
                output = out + "." + ext
            }
            if let out = output, !still,
                let note = try f.fit(
                    output: out, spec: &spec, codecGiven: given.contains("codec"), capGiven: given.contains("max-bytes"),
                    called: format ?? f.name ?? "the format")
            {
                notes.append(note)
            }
        }
        if let preset {
            sweepSplit = nil
            let (p, file) = try library.animationPreset(preset)
            spec.animation = try p.animation(
                library: library, from: from ?? 1, to: to ?? 0, duration: duration,
                curve: curve, file: file)
            if let loop { spec.animation.loop = loop }
            if beforeLook == nil && afterLook == nil && afterOverrides.isEmpty { return }
        }
        // Keyframes of the door's own keep their looks unless a look is named.
        if keyframes != nil && beforeLook == nil && afterLook == nil && afterOverrides.isEmpty { return }
        let before = try beforeLook.map { try library.look($0, field: .beforeLook) } ?? beforeAdjustments
        var after = try afterLook.map { try library.look($0, field: .look) } ?? afterAdjustments
        if let v = afterOverrides["brightness"] { after.brightness = v }
        if let v = afterOverrides["contrast"] { after.contrast = v }
        if let v = afterOverrides["saturation"] { after.saturation = v }
        if let v = afterOverrides["hue"] { after.hue = v }
        spec.animation.before = spec.animation.before.map { _ in before }
        spec.animation.after = spec.animation.after.map { _ in after }
    }
}
