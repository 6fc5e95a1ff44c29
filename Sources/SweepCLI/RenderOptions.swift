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
package struct RenderOptions: Sendable {
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
    /// An option that cannot act on the output is a note, not an error (batch jobs).
    package var lenient = false

    /// The hold at each end of a pass of `pass` seconds: as asked, but at most a quarter
    /// of the pass, so that the sweep keeps at least half of it.
    static func holdTime(pass: Double, hold: Double) -> Double { min(hold, pass / 4) }

    /// The sweep's share of a pass of `pass` seconds with `hold` at each end.
    static func sweepTime(pass: Double, hold: Double) -> Double { max(0.01, pass - 2 * holdTime(pass: pass, hold: hold)) }

    /// Options given explicitly on the command line (they win over a format).
    package var given: Set<String> = []

    /// Options `render`, `preview` and `demo` share.
    package static let common: [ArgumentSplitter.Option] = [
        .init("output", short: "o"), .init("size", short: "s"), .init("fps"), .init("duration", short: "d"),
        .init("hold"), .init("from"), .init("to"), .init("ease"), .init("loop"),
        .init("no-handle", value: false), .init("no-labels", value: false),
        .init("fit"), .init("rtl", value: false), .init("vertical", value: false), .init("ui-scale"),
        .init("before-label"), .init("after-label"), .init("font"), .init("corner-radius"), .init("background"),
        .init("colors"), .init("dither"), .init("crf"), .init("encoder-preset"),
        .init("quality"),
        .init("reduce-motion"), .init("max-pixels"), .init("position"),
        .init("quiet", short: "q", value: false), .init("json", value: false),
        .init("look"), .init("before-look"), .init("brightness"), .init("contrast"), .init("saturation"), .init("hue"),
        .init("divider-width"), .init("divider-color"), .init("knob-size"), .init("knob-color"),
        .init("label-color"), .init("capsule-color"), .init("label-size"), .init("label-weight"), .init("glyph-color"),
        .init("preset", short: "p"), .init("strict", value: false), .init("lossy"), .init("hard-edge", value: false), .init("max-bytes"),
        .init("codec", short: "c"), .init("bitrate"), .init("codec-opt"),
        .init("format", short: "f"), .init("poster", value: false),
        .init("retina", value: false), .init("fragment", value: false), .init("page-images"), .init("poster-url"),
        .init("start"), .init("end"), .init("before-start"), .init("after-start"), .init("audio"), .init("first-frame", value: false),
        .init("hdr"), .init("max-memory"),
        .init("overwrite", value: false), .init("decode"),
    ]

    /// Interprets split arguments.
    package static func interpret(_ r: ArgumentSplitter.Result) throws -> RenderOptions {
        // `--duration` is one whole pass, holds included, as in presets and formats: the
        // sweep takes what the holds leave (at least a tenth of the pass).
        var from = 1.0, to = 0.0, duration = 4.0, hold = 0.5
        var curve = Curve.easeInOut
        var loop = LoopMode.forever
        if let v = r.value("from") { from = try ValueParser.double(v, option: "--from", range: 0...1) }
        if let v = r.value("to") { to = try ValueParser.double(v, option: "--to", range: 0...1) }
        if let v = r.value("duration") { duration = try ValueParser.double(v, option: "--duration", range: 0.01...3600) }
        if let v = r.value("hold") { hold = try ValueParser.double(v, option: "--hold", range: 0...3600) }
        if let v = r.value("ease") { curve = try ValueParser.curve(v) }
        if let v = r.value("loop") { loop = try ValueParser.loop(v) }
        let anim = RenderSpec.sweep(
            from: from, to: to, duration: Self.sweepTime(pass: duration, hold: hold), hold: Self.holdTime(pass: duration, hold: hold),
            curve: curve, loop: loop)
        var o = RenderOptions(spec: RenderSpec(before: .file(""), after: nil, animation: anim))
        o.sweepSplit = (holdTime(pass: duration, hold: hold), sweepTime(pass: duration, hold: hold))
        o.preset = r.value("preset")
        o.format = r.value("format")
        o.poster = r.flag("poster")
        o.given = Set(r.options.map(\.name))
        o.strict = r.flag("strict")
        o.spec.refuseFlashes = o.strict
        o.from = r.value("from").map { _ in from }
        o.to = r.value("to").map { _ in to }
        o.duration = r.value("duration").map { _ in duration }
        o.hold = r.value("hold").map { _ in hold }
        o.curve = r.value("ease").map { _ in curve }
        o.loop = r.value("loop").map { _ in loop }
        o.inputs = r.positionals
        o.output = r.value("output")
        o.quiet = r.flag("quiet")
        o.json = r.flag("json")
        if let v = r.value("size") { (o.spec.width, o.spec.height) = try ValueParser.size(v) }
        if r.value("position") != nil { o.positionGiven = true }
        if let v = r.value("fps") { o.spec.fps = try ValueParser.double(v, option: "--fps", range: 1...240) }
        if let v = r.value("position") { o.position = try ValueParser.double(v, option: "--position", range: 0...1) }
        if let v = r.value("fit") { o.spec.fit = try ValueParser.choice(v, option: "--fit", as: FitMode.self) }
        if let v = r.value("reduce-motion") {
            o.spec.reduceMotion = try ValueParser.choice(v, option: "--reduce-motion", as: ReduceMotion.self)
        }
        if let v = r.value("max-pixels") {
            o.spec.maxPixels = try ValueParser.int(v, option: "--max-pixels", range: 1...1_000_000_000)
        }
        var style = SliderStyle()
        if r.flag("no-handle") { style.showHandle = false }
        if r.flag("no-labels") { style.showLabels = false }
        if r.flag("hard-edge") { style.smoothEdge = false }
        if r.flag("rtl") { style.rightToLeft = true }
        if r.flag("vertical") { style.orientation = .vertical }
        if let v = r.value("ui-scale") { style.uiScale = try ValueParser.double(v, option: "--ui-scale", range: 0.1...20) }
        if let v = r.value("before-label") { style.beforeLabel = v }
        if let v = r.value("after-label") { style.afterLabel = v }
        if let v = r.value("font") { style.labelFont = v }
        if let v = r.value("corner-radius") { style.cornerRadius = try ValueParser.double(v, option: "--corner-radius", range: 0...1000) }
        if let v = r.value("background") { style.background = try ValueParser.color(v, option: "--background") }
        if let v = r.value("divider-width") { style.dividerWidth = try ValueParser.double(v, option: "--divider-width", range: 0...100) }
        if let v = r.value("divider-color") { style.dividerColor = try ValueParser.color(v, option: "--divider-color") }
        if let v = r.value("knob-size") { style.knobDiameter = try ValueParser.double(v, option: "--knob-size", range: 0...1000) }
        if let v = r.value("knob-color") { style.knobColor = try ValueParser.color(v, option: "--knob-color") }
        if let v = r.value("glyph-color") { style.glyphColor = try ValueParser.color(v, option: "--glyph-color") }
        if let v = r.value("label-color") { style.labelColor = try ValueParser.color(v, option: "--label-color") }
        if let v = r.value("capsule-color") { style.capsuleColor = try ValueParser.color(v, option: "--capsule-color") }
        if let v = r.value("label-size") { style.labelSize = try ValueParser.double(v, option: "--label-size", range: 1...500) }
        if let v = r.value("label-weight") { style.labelWeight = try ValueParser.int(v, option: "--label-weight", range: 100...1000) }
        o.spec.style = style
        o.beforeLook = r.value("before-look")
        o.afterLook = r.value("look")
        let direct: [(String, ClosedRange<Double>)] = [
            ("brightness", LookPreset.brightnessRange), ("contrast", LookPreset.contrastRange),
            ("saturation", LookPreset.saturationRange), ("hue", LookPreset.hueRange),
        ]
        for (name, range) in direct {
            if let v = r.value(name) { o.afterOverrides[name] = try ValueParser.double(v, option: "--" + name, range: range) }
        }
        if let v = r.value("colors") { o.spec.gifColors = try ValueParser.int(v, option: "--colors", range: 2...256) }
        if let v = r.value("dither") { o.spec.dither = try ValueParser.choice(v, option: "--dither", as: DitherMode.self) }
        if let v = r.value("max-bytes") { o.spec.maxBytes = try ValueParser.bytes(v, option: "--max-bytes") }
        if let v = r.value("lossy") { o.spec.lossy = try ValueParser.int(v, option: "--lossy", range: 0...100) }
        if let v = r.value("quality") { o.spec.quality = try ValueParser.int(v, option: "--quality", range: 1...100) }
        if let v = r.value("crf") {
            let crf = try ValueParser.int(v, option: "--crf", range: 0...63)
            o.spec.videoOptions.append(("crf", String(crf)))
        }
        if let v = r.value("encoder-preset") { o.spec.videoOptions.append(("preset", v)) }
        if let v = r.value("bitrate") {
            o.spec.videoOptions.append(("b", String(try ValueParser.bytes(v, option: "--bitrate", minimum: 1000))))
        }
        o.spec.codec = r.value("codec")
        // Video inputs.
        if let v = r.value("start") { o.spec.clip.start = try ValueParser.seconds(v, option: "--start") }
        if let v = r.value("end") { o.spec.clip.end = try ValueParser.seconds(v, option: "--end") }
        if let v = r.value("before-start") { o.spec.clip.beforeOffset = try ValueParser.seconds(v, option: "--before-start") }
        if let v = r.value("after-start") { o.spec.clip.afterOffset = try ValueParser.seconds(v, option: "--after-start") }
        if let end = o.spec.clip.end, end <= o.spec.clip.start {
            throw SweepError(
                .usage, "the end (\(end) s) is not after the start (\(o.spec.clip.start) s)", subject: "--end",
                fix: "give an end after the start")
        }
        if let v = r.value("audio") { o.spec.clip.audio = try ValueParser.choice(v, option: "--audio", as: ClipOptions.Audio.self) }
        o.spec.clip.firstFrame = r.flag("first-frame")
        if let v = r.value("max-memory") { o.spec.clip.maxMemory = try ValueParser.bytes(v, option: "--max-memory", minimum: 1_048_576) }
        if let v = r.value("hdr") { o.spec.clip.hdr = try ValueParser.choice(v, option: "--hdr", as: HDRHandling.self) }
        o.spec.clip.followClipRate = r.value("fps") == nil
        o.spec.clip.length = r.value("duration").map { _ in duration }
        o.spec.clip.loopAnimation = r.value("loop") != nil
        // The interactive page (.html).
        o.spec.html.retina = r.flag("retina")
        o.spec.html.fragment = r.flag("fragment")
        if let v = r.value("page-images") {
            o.spec.html.imageFormat = v == "jpg" ? .jpeg : try ValueParser.choice(v, option: "--page-images", as: StillEncoder.Format.self)
        }
        o.spec.html.posterURL = r.value("poster-url")
        o.spec.overwrite = r.flag("overwrite")
        if let v = r.value("decode") { o.spec.decoding = try ValueParser.choice(v, option: "--decode", as: DecodeIsolation.self) }
        for (name, value) in r.options where name == "codec-opt" {
            guard let value, let eq = value.firstIndex(of: "="), eq != value.startIndex else {
                throw SweepError(
                    .usage, "'\(value ?? "")' is not key=value", subject: "--codec-opt", fix: "write e.g. --codec-opt tune=film")
            }
            o.spec.videoOptions.append((String(value[..<eq]), String(value[value.index(after: eq)...])))
        }
        return o
    }

    /// Loads the animation preset (with the shortcuts applied) and the named looks, and
    /// applies the looks (and the direct values) to both sides' tracks.
    package mutating func resolveLooks(_ library: PresetLibrary) throws {
        let named: [(option: String, value: String?)] = [
            ("--format", format), ("--preset", preset), ("--before-look", beforeLook), ("--look", afterLook),
        ]
        spec.settingsFiles = named.compactMap { option, value in value.flatMap { PresetLibrary.isPath($0) ? (option, $0) : nil } }
        if let format {
            let f = try library.format(format)
            // What was given on the command line wins over the format.
            let settings: [(option: String, field: SweepError.Field)] = [
                ("size", .size), ("fps", .fps), ("codec", .codec), ("max-bytes", .maxBytes),
            ]
            let kept = Set(settings.filter { given.contains($0.option) }.map(\.field))
            f.apply(to: &spec, keeping: kept)
            if f.fps != nil, !given.contains("fps") {
                // A format's rate is the platform's: clips are converted to it, and told so.
                spec.clip.followClipRate = false
                spec.clip.rateChosenBy = "the format " + format
            }
            if !given.contains("duration"), let d = f.duration {
                // The format's duration is the whole pass: the sweep fills what the holds leave.
                duration = d
                sweepSplit = (Self.holdTime(pass: d, hold: self.hold ?? 0.5), Self.sweepTime(pass: d, hold: self.hold ?? 0.5))
                spec.animation = RenderSpec.sweep(
                    from: from ?? 1, to: to ?? 0, duration: Self.sweepTime(pass: d, hold: self.hold ?? 0.5),
                    hold: Self.holdTime(pass: d, hold: self.hold ?? 0.5),
                    curve: curve ?? .easeInOut, loop: loop ?? .forever)
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
            if let out = output, !still {
                // Options win over the format: an output named for another kind (x.gif for a
                // video format) follows its extension, and --codec its codec.
                if !given.contains("codec"), (try? OutputKind.infer(path: out, codec: spec.codec)) == nil { spec.codec = nil }
                let chosen = try OutputKind.infer(path: out, codec: spec.codec)
                let name: String? =
                    switch chosen {
                    case .gif: "gif";
                    case let .video(c, _): c.name;
                    default: nil
                    }
                if let wanted = f.codec, let name, name != wanted {
                    var note = "\(format) is made for \(wanted); this is \(name), so the platform's own limits no longer apply"
                    if !given.contains("max-bytes"), let m = f.maxBytes {
                        spec.maxBytes = nil
                        note += " (its \(m)-byte cap is not enforced)"
                    }
                    notes.append(note)
                }
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
        let before = try beforeLook.map { try library.look($0, field: .beforeLook) } ?? .identity
        var after = try afterLook.map { try library.look($0, field: .look) } ?? .identity
        if let v = afterOverrides["brightness"] { after.brightness = v }
        if let v = afterOverrides["contrast"] { after.contrast = v }
        if let v = afterOverrides["saturation"] { after.saturation = v }
        if let v = afterOverrides["hue"] { after.hue = v }
        spec.animation.before = spec.animation.before.map { _ in before }
        spec.animation.after = spec.animation.after.map { _ in after }
    }
}
