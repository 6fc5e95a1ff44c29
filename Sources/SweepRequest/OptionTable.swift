import SweepGIF
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTimeline
import SweepWorker

/// Every option of `render`, `preview` and `demo`, each declared once with its parser, its
/// help, the outputs it acts on and who may set it. `RenderRequest`, batch keys, `--help`,
/// the man page's options and the flag names in messages are all made from this table, so
/// that they cannot drift apart. Declarations apply in the table's order (a video's encoder
/// options reach the encoder in that order).
package enum OptionTable {
    private typealias D = OptionDeclaration
    private typealias Rule = OptionScope.Rule

    private static let animations: Set<OptionScope.Output> = [.gif, .video, .page, .frames]

    package static let groups: [OptionGroup] = [
        // Animation.
        OptionGroup(
            .animation,
            help:
                "reveal, compare, look-tour, spring-peek, or a .json (--from/--to retarget it, --duration rescales it, --ease replaces its sweeps)",
            manual:
                "An animation: reveal, compare, look-tour, spring-peek, or a JSON file. --from and --to retarget it, --duration rescales it, --ease replaces its sweeps.",
            [
                D("preset", short: "p", "NAME|FILE", acts: Rule(acts: animations, instead: [.still: "--position"]), field: .preset) {
                    o, v in o.preset = v.text
                }
            ]),
        OptionGroup(
            .animation, help: "length of one pass, holds included (default 4: 0.5 hold, 3 sweep, 0.5 hold)",
            manual: """
                The length of one pass in seconds, holds included (default 4: a 0.5 s hold, a 3 s sweep, a 0.5 s hold), \
                the same in presets and formats. With video inputs it shortens the output.
                """,
            [
                D(
                    "duration", short: "d", "S", .number(0.01...RenderLimits.maxDuration),
                    acts: Rule(acts: animations, instead: [.still: "--position"]), field: .duration,
                    setByFormats: true
                ) {
                    o, v in o.duration = try v.number()
                }
            ]),
        OptionGroup(
            .animation, help: "pause at each end, within the duration (default 0.5, at most a quarter of it)",
            [D("hold", "S", .number(0...RenderLimits.maxDuration), acts: Rule(acts: animations)) { o, v in o.hold = try v.number() }]),
        OptionGroup(
            .animation, help: "split positions 0…1, the share showing before (default 1 → 0)",
            manual:
                "Split positions 0…1, the share showing before (default 1 to 0). Positions 0 and 1 rest with the whole knob inside the frame.",
            [
                D("from", "P", .number(0...1), acts: Rule(acts: animations, instead: [.still: "--position"])) { o, v in
                    o.from = try v.number()
                },
                D("to", "P", .number(0...1), acts: Rule(acts: animations, instead: [.still: "--position"])) { o, v in o.to = try v.number()
                },
            ]),
        OptionGroup(
            .animation, help: "linear, ease-in, ease-out, ease-in-out (default), spring, smooth, snappy, bouncy, hold",
            manual: """
                linear, ease-in, ease-out, ease-in-out (default), spring, smooth, snappy, bouncy, hold. A spring settles \
                (within 0.1 %) at the end of the sweep, whatever its length.
                """,
            [
                D("ease", "NAME", .choice(ValueParser.curveNames, aliases: ValueParser.curveAliases), acts: Rule(acts: animations)) {
                    o, v in o.curve = try ValueParser.curve(v.text, option: v.option)
                }
            ]),
        OptionGroup(
            .animation, help: "forever (default), once, N, boomerang",
            manual:
                "forever (default), once, a count, boomerang. With video inputs it repeats the animation at its own length instead of stretching it over the clip.",
            [
                D("loop", "MODE", .choiceOrWhole(ValueParser.loopNames, ValueParser.loopCounts), acts: Rule(acts: animations)) { o, v in
                    o.loop = try ValueParser.loop(v.text)
                }
            ]),
        OptionGroup(
            .animation, help: "honour reduced motion (auto: a cut in a GIF, else a dissolve)",
            manual: """
                Instant changes, or cross-fades with one still handle; auto is a cut in a GIF (a cross-fade changes every \
                pixel of every frame, several times the sweep's bytes) and a dissolve elsewhere. A GIF's fade changes 10 \
                times a second.
                """,
            [
                D("reduce-motion", "cut|dissolve|auto", .choice(ReduceMotion.self), acts: Rule(acts: animations)) { o, v in
                    o.spec.reduceMotion = try v.choice(ReduceMotion.self)
                }
            ]),
        OptionGroup(
            .animation, help: "refuse flashing output (more than 3 flashes a second) instead of noting it",
            manual: "Refuse animations that flash more than three times a second (WCAG 2.3.1) instead of noting them.",
            [D("strict", acts: Rule(acts: animations)) { o, _ in o.strict = true }]),

        // Video inputs.
        OptionGroup(
            .videoInputs, help: "where the comparison begins and ends in the clips (12.5, 1:02.5)",
            manual:
                "Where the comparison begins and ends in both clips, in seconds or minutes:seconds, counted from each clip's own time 0.",
            [
                D("start", "T", .time, field: .start) { o, v in o.spec.clip.start = try v.seconds() },
                D("end", "T", .time, field: .end) { o, v in o.spec.clip.end = try v.seconds() },
            ]),
        OptionGroup(
            .videoInputs,
            help:
                "where each clip's time 0 lies: an excerpt that starts 20 s into its original lines up with it by --before-start 20 on the original; --start and --end count from there",
            manual: """
                Where each clip's time 0 lies, in seconds or minutes:seconds: an excerpt that starts 20 s into its original \
                lines up with it by --before-start 20 on the original (sweep render original.mp4 excerpt.mp4 -o cmp.mp4 \
                --before-start 20). --start and --end count from there.
                """,
            [
                D("before-start", "T", .time, field: .beforeOffset) { o, v in o.spec.clip.beforeOffset = try v.seconds() },
                D("after-start", "T", .time, field: .afterOffset) { o, v in o.spec.clip.afterOffset = try v.seconds() },
            ]),
        OptionGroup(
            .videoInputs, help: "the output's sound (default: the before clip's, else the after clip's)",
            manual: """
                The output's sound: the chosen clip's audio, copied when the container takes it, otherwise re-encoded to \
                AAC (Opus for WebM), cut to the output's length. MP4 and MOV carry AAC, and copy MP3 and ALAC; WebM carries \
                Opus, and copies Vorbis; MKV copies what it can hold. Default: the before clip's sound, else the after \
                clip's. The summary says what became of it.
                """,
            [
                D("audio", "before|after|none", .choice(ClipOptions.Audio.self), acts: Rule(acts: [.video]), field: .audio) { o, v in
                    o.spec.clip.audio = try v.choice(ClipOptions.Audio.self)
                }
            ]),
        OptionGroup(
            .videoInputs, help: "HDR clips (PQ, HLG: iPhone video) tone-mapped to SDR (default), or refused",
            manual: """
                HDR clips (PQ or HLG transfer, as iPhones record) are tone-mapped to SDR BT.709 with FFmpeg's zscale and \
                tonemap filters (Hable's curve), with a note; refuse stops with exit 65 instead.
                """,
            [
                D("hdr", "tonemap|refuse", .choice(HDRHandling.self), field: .hdr) { o, v in
                    o.spec.clip.hdr = try v.choice(HDRHandling.self)
                }
            ]),
        OptionGroup(
            .videoInputs, help: "an animated GIF, APNG or WebP shows its first frame, as a photo",
            [D("first-frame") { o, _ in o.spec.clip.firstFrame = true }]),

        // Output.
        OptionGroup(
            .output, help: "the file to write; its extension picks the format (a f-%04d.png pattern: PNG frames)",
            manual:
                "The output file; its extension picks the format (for demo, a folder; default out). Batch jobs give it as their output key.",
            [D("output", short: "o", "OUT", inBatch: false) { o, v in o.output = v.text }]),
        OptionGroup(
            .output, help: "a PNG sequence may replace files at its names that sweep did not write",
            manual: """
                A PNG sequence replaces and removes only frames sweep wrote (recorded in a hidden .PATTERN.sweep file \
                beside them); any other file at one of the pattern's names stops the render with exit 73 before it \
                starts, unless this flag says the names are the sequence's.
                """,
            [D("overwrite", acts: Rule(acts: [.frames]), field: .overwrite) { o, _ in o.spec.overwrite = true }]),
        OptionGroup(
            .output,
            help:
                "instagram-square, story, instagram-portrait, x-post, x-post-gif, linkedin, youtube-shorts, og-image, github-readme (or a .json); options win over it",
            manual: """
                A social format: instagram-square, instagram-portrait, story, x-post, x-post-gif, linkedin, youtube-shorts, \
                og-image, github-readme, or a JSON file. It sets the size, frame rate, codec, duration and size cap; \
                options given on the command line win over it, with a note when the platform's limits no longer apply.
                """,
            [D("format", short: "f", "NAME|FILE", field: .format) { o, v in o.format = v.text }]),
        OptionGroup(
            .output,
            help:
                "1080x1080, 1080×1080, 1080 (square), 640x or x480 (keep the aspect ratio); default: the before image's, within 800 px for GIF, 1920 otherwise",
            manual: """
                1080x1080, 1080×1080, 1080 (a square), 640x or x480 (the other side from the before image's aspect \
                ratio). Default: the before image's size, fitted within 800 px for GIF and 1920 px for video, PNG \
                sequences and stills.
                """,
            [
                D("size", short: "s", "WxH", .size(ValueParser.sizeSides), field: .size, setByFormats: true) { o, v in
                    (o.spec.width, o.spec.height) = try ValueParser.size(v.text, option: v.option)
                }
            ]),
        OptionGroup(
            .output, help: "frames per second (default 30; with video inputs, the before clip's)",
            [
                D("fps", "N", .number(FrameRateRange.values), acts: Rule(acts: [.gif, .video, .frames]), field: .fps, setByFormats: true) {
                    o, v in
                    o.spec.fps = try v.number()
                }
            ]),
        OptionGroup(
            .output,
            help:
                "the extension picks it: h264 for .mp4, .mov and .mkv, vp9 for .webm, webp for .webp, apng for .apng, gif for .gif; by name also hevc (in .mp4, .mov or .mkv), vp9 in .mkv, and prores (ProRes 422 HQ, QuickTime only)",
            manual: """
                The video codec. The extension picks it: H.264 for .mp4, .mov and .mkv, VP9 for .webm, and animated WebP, \
                APNG or GIF for .webp, .apng and .gif. Named, it may also be hevc (H.265, in .mp4, .mov or .mkv), vp9 (in \
                .webm or .mkv) or prores (ProRes 422 HQ, 10-bit, in a QuickTime file only). A codec the extension cannot \
                hold is refused.
                """,
            [
                D(
                    "codec", short: "c", "NAME", .choice(OutputKind.codecNames, aliases: OutputKind.stillCodecNames), field: .codec,
                    setByFormats: true
                ) { o, v in
                    o.spec.codec = try v.word()
                }
            ]),
        OptionGroup(
            .output, help: "also write OUT.poster.jpg (e.g. clip.mp4.poster.jpg), a still at --position (a page links it as og:image)",
            manual:
                "Also write OUT.poster.jpg (e.g. clip.mp4.poster.jpg), a still at the output's size at --position; a page links it as its og:image.",
            [D("poster", acts: Rule(acts: [.gif, .video, .page]), field: .poster) { o, _ in o.poster = true }]),
        OptionGroup(
            .output,
            help:
                "where the split rests: the share 0…1 of the width (height with --vertical) that shows BEFORE (default 0.5): a preview's, or with --poster the poster's",
            [
                D("position", "P", .number(0...1)) { o, v in
                    o.positionGiven = true
                    o.position = try v.number()
                }
            ]),
        OptionGroup(
            .output, help: "how a picture of another shape fills the frame (default fill, a centre crop)",
            manual:
                "How an image of another shape fills the frame: fill (default, a centre crop; more than 40 % cropped away is noted), fit (letterboxed) or stretch.",
            [D("fit", "fill|fit|stretch", .choice(FitMode.self)) { o, v in o.spec.fit = try v.choice(FitMode.self) }]),

        // Encoders and limits.
        OptionGroup(
            .encoders, help: "GIF size against fidelity, as in gifski (default 90); a still's JPEG or WebP quality; an animated WebP's",
            manual: """
                GIF size against fidelity, 1–100 as in gifski (default 90): it sets the lossy LZW error budget (colour \
                error allowed: most in texture, a little in gradients and on edges, none on flat colour the palette \
                holds or on the handle and tags; for two stills, more where a pixel stays on screen briefly), how much \
                smooth areas are dithered, the palette effort, the tables of their own that stretches of frames may get, \
                and the palette's size (a photo's from 80 down, any other picture's from 60 down; never above --colors). \
                100 codes the palette image losslessly. A JPEG or WebP still's and an animated WebP's quality. \
                --lossy and --dither override its parts.
                """,
            [
                D(
                    "quality", "1…100", .whole(1...100), acts: Rule(acts: [.gif, .still], instead: [.video: "--crf"]),
                    codecs: OptionScope.CodecRule(acts: ["webp"], instead: ["h264": "--crf", "hevc": "--crf", "vp9": "--crf"])
                ) { o, v in o.spec.quality = try v.whole() }
            ]),
        OptionGroup(
            .encoders,
            help:
                "a size cap (15MB, 10MiB): a GIF lowers quality, then colours, rate and size; a video raises its CRF; a still lowers its quality",
            manual: """
                A size cap (15MB, 10MiB, at least 1 KiB): a GIF searches the highest quality that fits (down to 40), then \
                gives up colours, then frame rate, then size, so that the file uses the budget; a video raises its CRF; \
                a JPEG or WebP still lowers its quality. A cap even the least can't meet is refused at once, naming a \
                size (and for clips an end) that fits. Nothing appears under the output's name until the fit is done.
                """,
            [
                D("max-bytes", "SIZE", .bytes(minimum: 1024), field: .maxBytes, setByFormats: true) { o, v in
                    o.spec.maxBytes = try v.bytes()
                }
            ]),
        OptionGroup(
            .encoders, help: "GIF only: expert overrides of what --quality sets",
            manual:
                "GIF only: expert overrides of what --quality sets: the palette's size (2–256), the dither, and the lossy LZW budget (0–100, the budget quality 100−N would set).",
            [
                D("colors", "N", .whole(2...256), acts: Rule(acts: [.gif])) { o, v in o.spec.gifColors = try v.whole() },
                D("dither", "none|ordered|diffusion", .choice(DitherMode.self), acts: Rule(acts: [.gif])) { o, v in
                    o.spec.dither = try v.choice(DitherMode.self)
                },
                D("lossy", "N", .whole(0...100), acts: Rule(acts: [.gif], instead: [.video: "--crf"])) { o, v in
                    o.spec.lossy = try v.whole()
                },
            ]),
        OptionGroup(
            .encoders,
            help: "video only: the encoder's quality, speed, a bit rate (5M), and other options from an allow-list per codec (repeatable)",
            manual:
                "Video only: the encoder's quality, speed, a bit rate (5M), and other options from an allow-list per codec (none that names a file); --codec-opt may be repeated.",
            [
                D(
                    "crf", "N", .whole(0...63), acts: Rule(acts: [.video], instead: [.gif: "--quality", .still: "--quality"]),
                    codecs: OptionScope.CodecRule(acts: ["h264", "hevc", "vp9"], instead: ["webp": "--quality"]), field: .crf
                ) { o, v in o.spec.videoOptions.append(("crf", String(try v.whole()))) },
                D("encoder-preset", "NAME", acts: Rule(acts: [.video]), codecs: OptionScope.CodecRule(acts: ["h264", "hevc"])) { o, v in
                    o.spec.videoOptions.append(("preset", v.text))
                },
                D(
                    "bitrate", "RATE", .bytes(minimum: 1000),
                    acts: Rule(acts: [.video], instead: [.gif: "--max-bytes", .still: "--max-bytes"]),
                    codecs: OptionScope.CodecRule(acts: ["h264", "hevc", "vp9"])
                ) { o, v in o.spec.videoOptions.append(("b", String(try v.bytes()))) },
                D("codec-opt", "KEY=VALUE", acts: Rule(acts: [.video]), field: .codecOptions, repeatable: true) { o, v in
                    guard let eq = v.text.firstIndex(of: "="), eq != v.text.startIndex else {
                        throw SweepError(.usage, "'\(v.text)' is not key=value", subject: v.option, fix: "write e.g. --codec-opt tune=film")
                    }
                    o.spec.videoOptions.append((String(v.text[..<eq]), String(v.text[v.text.index(after: eq)...])))
                },
            ]),
        OptionGroup(
            .encoders,
            help:
                "refuse inputs over N pixels (default 100 million), and clips whose decoders would need more memory (default half the machine's)",
            [
                D("max-pixels", "N", .whole(1...1_000_000_000), field: .maxPixels) { o, v in o.spec.maxPixels = try v.whole() },
                D("max-memory", "SIZE", .bytes(minimum: 1_048_576), field: .maxMemory) { o, v in o.spec.clip.maxMemory = try v.bytes() },
            ]),
        OptionGroup(
            .encoders,
            help: "decode inputs in a sandboxed child process (default), or in sweep's own (faster to start; only for files you trust)",
            manual: """
                Where inputs are probed and stills decoded: in a child process with limits on time, memory and file size \
                and a system-call filter (the default), so that a decoder crash on a crafted file is exit 65 and not a \
                crash of sweep; or in sweep's own process, which starts faster and is only for files you trust. Batch \
                job lines cannot set it.
                """,
            [
                D("decode", "worker|in-process", .choice(DecodeIsolation.self), inBatch: false) { o, v in
                    o.spec.decoding = try v.choice(DecodeIsolation.self)
                }
            ]),

        // The interactive page.
        OptionGroup(
            .page, help: "page images at twice the size, for high-density screens",
            [D("retina", acts: Rule(acts: [.page])) { o, _ in o.spec.html.retina = true }]),
        OptionGroup(
            .page, help: "an element to paste into a page of one's own, not a whole document",
            [D("fragment", acts: Rule(acts: [.page])) { o, _ in o.spec.html.fragment = true }]),
        OptionGroup(
            .page, help: "the pictures' format inside the page",
            [
                D("page-images", "jpeg|webp|png", .choice(["jpeg", "webp", "png"], aliases: ["jpg"]), acts: Rule(acts: [.page])) { o, v in
                    o.spec.html.imageFormat = v.text == "jpg" ? .jpeg : try v.choice(StillEncoder.Format.self)
                }
            ]),
        OptionGroup(
            .page, help: "the link preview's image (og:image); with --poster, the poster beside the page",
            [
                D("poster-url", "URL", acts: Rule(acts: [.page], instead: [.gif: "--poster", .video: "--poster"])) { o, v in
                    o.spec.html.posterURL = v.text
                }
            ]),

        // Look and styling.
        OptionGroup(
            .look, help: "the after side's look (vivid, noir, dream, or a .json)",
            manual: "A look for the after side: vivid, noir, dream, or a JSON file.",
            [D("look", "NAME|FILE", field: .look) { o, v in o.afterLook = v.text }]),
        OptionGroup(
            .look, help: "the before side's look",
            [D("before-look", "NAME|FILE", field: .beforeLook) { o, v in o.beforeLook = v.text }]),
        OptionGroup(
            .look, help: "a look's values given directly, for the after side",
            [
                D("brightness", "B", .number(LookPreset.brightnessRange)) { o, v in o.afterOverrides["brightness"] = try v.number() },
                D("contrast", "C", .number(LookPreset.contrastRange)) { o, v in o.afterOverrides["contrast"] = try v.number() },
                D("saturation", "S", .number(LookPreset.saturationRange)) { o, v in o.afterOverrides["saturation"] = try v.number() },
                D("hue", "DEG", .number(LookPreset.hueRange)) { o, v in o.afterOverrides["hue"] = try v.number() },
            ]),
        OptionGroup(
            .look, help: "leave out the divider and knob, or the Before/After tags",
            [
                D("no-handle") { o, _ in o.spec.style.showHandle = false },
                D("no-labels") { o, _ in o.spec.style.showLabels = false },
            ]),
        OptionGroup(
            .look, help: "a one-pixel split edge instead of an anti-aliased one",
            [D("hard-edge") { o, _ in o.spec.style.smoothEdge = false }]),
        OptionGroup(
            .look, help: "before on the right; a split moving top to bottom",
            [
                D("rtl") { o, _ in o.spec.style.rightToLeft = true },
                D("vertical") { o, _ in o.spec.style.orientation = .vertical },
            ]),
        OptionGroup(
            .look, help: "the tags' text (any script, emoji in colour) and font",
            [
                D("before-label", "T") { o, v in o.spec.style.beforeLabel = v.text },
                D("after-label", "T") { o, v in o.spec.style.afterLabel = v.text },
                D("font", "FAMILY") { o, v in o.spec.style.labelFont = v.text },
            ]),
        OptionGroup(
            .look,
            help: "the overlay's scale, rounded corners, and the colour behind letterboxing (#RRGGBB[AA], white, black or transparent)",
            [
                D("ui-scale", "X", .number(0.1...20)) { o, v in o.spec.style.uiScale = try v.number() },
                D("corner-radius", "PT", .number(0...1000)) { o, v in o.spec.style.cornerRadius = try v.number() },
                D("background", "COLOR", .color) { o, v in o.spec.style.background = try v.color() },
            ]),
        OptionGroup(
            .look, help: "the divider and the knob",
            [
                D("divider-width", "PT", .number(0...100)) { o, v in o.spec.style.dividerWidth = try v.number() },
                D("divider-color", "C", .color) { o, v in o.spec.style.dividerColor = try v.color() },
                D("knob-size", "PT", .number(0...1000)) { o, v in o.spec.style.knobDiameter = try v.number() },
                D("knob-color", "C", .color) { o, v in o.spec.style.knobColor = try v.color() },
                D("glyph-color", "C", .color) { o, v in o.spec.style.glyphColor = try v.color() },
            ]),
        OptionGroup(
            .look, help: "the tags",
            [
                D("label-size", "PT", .number(1...500)) { o, v in o.spec.style.labelSize = try v.number() },
                D("label-weight", "100…1000", .whole(100...1000)) { o, v in o.spec.style.labelWeight = try v.whole() },
                D("label-color", "C", .color) { o, v in o.spec.style.labelColor = try v.color() },
                D("capsule-color", "C", .color) { o, v in o.spec.style.capsuleColor = try v.color() },
            ]),

        // Messages.
        OptionGroup(
            .messages, help: "no progress, notes or summary",
            [D("quiet", short: "q") { o, _ in o.quiet = true }]),
        OptionGroup(
            .messages, help: "a JSON summary per file (or the error) on stdout",
            manual: """
                A JSON summary per file on stdout, or on failure {"error": {"code", "exit", "message", "subject", "fix"}} \
                (schemas in docs/summary.schema.json and docs/error.schema.json).
                """,
            [D("json") { o, _ in o.json = true }]),
    ]

    /// Every declaration, in the order they apply.
    package static let declarations: [OptionDeclaration] = groups.flatMap(\.options)

    /// Declarations by long name.
    package static let byName: [String: OptionDeclaration] = Dictionary(uniqueKeysWithValues: declarations.map { ($0.name, $0) })

    /// What the argument splitter knows of them.
    package static let splitterOptions: [ArgumentSplitter.Option] = declarations.map(\.splitterOption)
}
