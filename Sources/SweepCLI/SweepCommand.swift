import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepRequest
import SweepSupport
import SweepTimeline

#if canImport(Glibc)
    import Glibc
#endif

/// The `sweep` command line: parses, runs, prints one line per message, and maps errors
/// to sysexits codes. `main.swift` only calls ``run(_:)``.
package enum SweepCommand {
    /// The version `sweep --version` prints.
    package static let version = "0.2.0"

    /// `sweep --help`, and what a bare `sweep` prints on stderr.
    static let usage = HelpText([
        .text("sweep \(version): animated before/after comparisons as GIF, video and stills"),
        .blank,
        .text("usage:"),
        .entries(
            [
                .init(command: "sweep demo [-o DIR]", "render the built-in demo (DIR/demo.gif, DIR/demo.mp4)"),
                .init(
                    command: "sweep render BEFORE [AFTER] -o OUT [options]",
                    "OUT: .gif .mp4 .mov .webm .mkv .webp .apng .html or f-%04d.png"),
                .init(
                    command: "sweep preview BEFORE [AFTER] -o OUT.png|.jpg|.webp [--position P] [options]",
                    "one still of the comparison"),
                .init(command: "sweep plan PRESET -o PLAN.png [BEFORE [AFTER]]", "a picture of an animation preset"),
                .init(command: "sweep presets list [looks|animations|formats]", "the built-in presets, with what they do"),
                .init(command: "sweep presets show NAME", "a preset's file"),
                .init(
                    command: "sweep batch JOBS.jsonl [--jobs N] [--results FILE] [--shard K/N] [--resume]",
                    "one render per line of JOBS.jsonl"),
                .init(command: "sweep serve [--host H] [--port N] [--token T] [--store DIR]", "the render service (HTTP API)"),
                .init(command: "sweep --version | --help | COMMAND --help"),
            ], column: 6),
        .blank,
        .entries(
            [
                .init(
                    ["exit codes:"], indent: 0, hang: 0,
                    "0 ok, 64 usage, 65 bad input data, 66 missing input, 69 unavailable, 70 internal, 73 cannot create output, 74 I/O error"
                )
            ], column: 13),
    ])

    static let renderHelp = HelpText(
        [
            .synopsis("sweep render BEFORE [AFTER] -o OUT [options]"),
            .blank,
            .text(
                "Renders the split sweeping from before to after as a GIF, a video, an interactive page or a PNG sequence. BEFORE and AFTER are photos or videos (MP4, MOV, MKV, WebM, AVI, MPEG-TS, animated GIF, APNG or WebP), in any mix; clips play in sync by time, the sweep stretched over the shorter. With one input, the after side is BEFORE in the look --look gives. An option that cannot act on the output is refused, naming the one that can."
            ),
            .blank,
            .text("examples:"),
            .text("Two photos, as a GIF of at most 800 px:", indent: 2),
            .command("sweep render before.jpg after.jpg -o cmp.gif", indent: 4),
            .text("One photo against itself in the vivid look, as a square video for Instagram:", indent: 2),
            .command("sweep render photo.jpg --look vivid -f instagram-square -o cmp.mp4", indent: 4),
            .text("A graded excerpt that starts 20 s into its original, lined up with it:", indent: 2),
            .command("sweep render original.mp4 excerpt.mp4 -o cmp.mp4 --before-start 20", indent: 4),
            .blank,
        ] + OptionHelp.sections())

    static let previewHelp = HelpText(
        [
            .synopsis("sweep preview BEFORE [AFTER] -o OUT.png|.jpg|.webp [--position P] [options]"),
            .blank,
            .text("Writes one still of the comparison (a social preview, a thumbnail)."),
            .blank,
        ] + OptionHelp.sections { group in group.options.contains { $0.scope?.acts.contains(.still) ?? true } })

    static let demoHelp = HelpText([
        .synopsis("sweep demo [-o DIR] [options]"),
        .blank,
        .text(
            "Renders the built-in demo, a flat landscape and its graded version, to DIR/demo.gif and DIR/demo.mp4 (DIR defaults to out), both 600x800 unless --size says otherwise. Takes render's options (see sweep render --help); --from, --to, --duration, --ease or --hold replace the demo's own loop around the middle with a plain sweep."
        ),
    ])

    static let batchHelp = HelpText([
        .synopsis(
            "sweep batch JOBS.jsonl [--jobs N] [--results FILE] [--shard K/N] [--resume] [--in-dir DIR] [--out-dir DIR] [--allow-absolute] [--quiet]"
        ),
        .blank,
        .text(
            "One job per line: a JSON object with \"before\", \"after\" (optional), \"output\" and any of render's long options as keys, e.g."
        ),
        .blank,
        .text(#"{"before":"a.jpg","after":"b.jpg","output":"out/1.gif","size":"720x720"}"#, indent: 2),
        .blank,
        .entries(
            [
                .init(["--jobs N"], "jobs at once (default: the number of cores)"),
                .init(["--results FILE"], "where the results go, one line per job (by default in JOBS.results.jsonl)"),
                .init(
                    ["--shard K/N"],
                    "only jobs with index % N == K; by default K and N come from JOB_COMPLETION_INDEX and JOB_COMPLETIONS (Kubernetes Indexed Jobs), or from SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT (Slurm job arrays)"
                ),
                .init(
                    ["--resume"],
                    "skip jobs whose output is complete and whose inputs have not changed (checked against its .sweep.json record)"),
                .init(
                    ["--in-dir DIR"],
                    "inputs (and preset, look and format files) are relative to DIR (default: the jobs file's folder) and must stay in it"
                ),
                .init(["--out-dir DIR"], "outputs are relative to DIR (default: the current folder) and must stay in it"),
                .init(["--allow-absolute"], "accept any path, absolute or outside those folders (trusted jobs only)"),
                .init(["-q, --quiet"], "no line per job on stderr"),
            ], column: 18),
        .blank,
        .text("Exits 0 when every job succeeded, 65 when any failed."),
    ])

    static let planHelp = HelpText([
        .synopsis("sweep plan PRESET -o PLAN.png [BEFORE [AFTER]] [--reduce-motion cut|dissolve|auto] [render options]"),
        .blank,
        .text(
            "Draws each animated value over time with its keyframes, above a storyboard of six frames (300x400 each unless --size says otherwise; the built-in demo pictures without BEFORE)."
        ),
    ])

    static let presetsHelp = HelpText([
        .entries(
            [
                .init(command: "sweep presets list [looks|animations|formats]", "names and descriptions"),
                .init(command: "sweep presets show NAME", "the preset file"),
            ], column: 6)
    ])

    /// The help `sweep COMMAND --help` prints (`sweep --help`'s for an unknown command).
    static func help(_ command: String) -> HelpText {
        switch command {
        case "render": renderHelp
        case "preview": previewHelp
        case "demo": demoHelp
        case "batch": batchHelp
        case "plan": planHelp
        case "presets": presetsHelp
        default: usage
        }
    }

    /// Runs the command line `args` (without the program name) and returns the exit code.
    package static func run(_ args: [String]) -> Int32 {
        TempFileRegistry.shared.installSignalHandlers()
        // A closed pipe on stdout or stderr must give a failed write, not a killed process
        // (in a batch, every later job would die with it).
        signal(SIGPIPE, SIG_IGN)
        Allocator.useOneArena()
        var failure: (any Error)?
        do { try dispatch(args) } catch { failure = error }
        // A render that failed because a signal's handler removed its temporary files (a
        // frame of a PNG sequence whose hidden folder just vanished) must neither report that
        // nor race the handler's exit with its own code: the handler exits with 128 + N.
        if failure != nil { TempFileRegistry.shared.yieldToSignal() }
        var code: Int32 = 0
        switch failure {
        case nil: break
        case let quiet as ExitWithoutMessage:
            code = quiet.code.exitCode
        case let e as SweepError:
            printError("sweep: " + OptionNames.describe(e))
            // Before any `--`, so that a file named --json is not taken for the option.
            if args.prefix(while: { $0 != "--" }).contains("--json") { print(errorJSON(e)) }
            code = e.code.exitCode
        case let error?:
            printError("sweep: internal error: \(error)")
            if args.prefix(while: { $0 != "--" }).contains("--json") {
                print(errorJSON(SweepError(.internalError, "internal error: \(error)", fix: "please report it")))
            }
            code = SweepError.Code.internalError.exitCode
        }
        // What was printed (a --json summary) must have arrived: a full disk or a closed
        // pipe on stdout is an I/O error, not success.
        if !TerminalText.stdoutIsIntact() {
            printError("sweep: stdout: writing failed (\(String(cString: strerror(errno)))); check where the output goes")
            if code == 0 { code = SweepError.Code.ioError.exitCode }
        }
        return code
    }

    /// `{"error": {"code", "exit", "message", "subject", "fix"}}` (docs/error.schema.json);
    /// the subject is the file or option, with a library field spelled as its flag.
    static func errorJSON(_ e: SweepError) -> String {
        var body: [String: Any] = ["code": e.code.name, "exit": Int(e.code.exitCode), "message": e.message]
        let subject: String? = e.subject ?? e.field.map(OptionNames.flag)
        body["subject"] = subject.map { $0 as Any } ?? NSNull()
        body["fix"] = e.fix.map { $0 as Any } ?? NSNull()
        let data =
            (try? JSONSerialization.data(withJSONObject: ["error": body], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func dispatch(_ args: [String]) throws {
        guard let command = args.first else {
            // A bare `sweep` is a mistake in a script: usage on stderr and EX_USAGE, as BSD tools
            // do. Our own text, laid out as --help lays it out (not escaped like a message).
            TerminalText.write(usage.render(width: TerminalText.columns(of: 2)) + "\n")
            throw ExitWithoutMessage(code: .usage)
        }
        let rest = Array(args.dropFirst())
        if command == "--help" || command == "-h" || command == "help" {
            print(usage.render(width: TerminalText.columns()))
            return
        }
        if rest.contains("--help") || rest.contains("-h") {
            print(help(command).render(width: TerminalText.columns()))
            return
        }
        switch command {
        case "--version", "version": print("sweep \(version)")
        case "demo": try demo(rest)
        case "render": try render(rest)
        case "preview": try preview(rest)
        case "plan": try plan(rest)
        case "presets": try presets(rest)
        case "batch":
            let failed = try BatchCommand.run(rest)
            if failed > 0 { throw SweepError(.dataError, "\(failed) job(s) failed", subject: "batch", fix: "see the results file") }
        default:
            let hint =
                Suggestion.nearest(command, in: ["demo", "render", "preview", "plan", "presets", "batch"]).map { "did you mean \($0)?" }
                ?? "see sweep --help"
            throw SweepError(.usage, "unknown command", subject: command, fix: hint)
        }
    }

    /// `args` parsed into a request; `still` for `preview`.
    static func parse(_ args: [String], still: Bool = false) throws -> RenderRequest {
        var o = try RenderRequest.interpret(ArgumentSplitter(RenderRequest.common).split(args))
        o.still = still
        return o
    }

    static func render(_ args: [String]) throws {
        var o = try parse(args)
        var r = try o.resolve(PresetLibrary.locate(), door: .commandLine)
        if !o.quiet {
            // Said at once, over the progress bar's line (which the next frame draws again).
            r.spec.advise = { a in
                if isatty(2) == 1 { TerminalText.write("\r\u{1B}[K") }
                printError("sweep: note: " + adviceLine(a))
            }
        }
        let results: [RenderResult]
        do {
            // Cleared on failure too, so that the error line does not start mid-bar.
            let bar = ProgressBar(enabled: !o.quiet && !o.json, output: o.output ?? "")
            defer { bar.finish() }
            results = try RenderRun.perform(r, progress: bar.update)
        }
        for r in results { report(r, o) }
    }

    static func presets(_ args: [String]) throws {
        let library = PresetLibrary.locate()
        switch (args.first, args.count) {
        case ("list", _):
            let kinds =
                args.count > 1
                ? [try ValueParser.choice(args[1], option: "presets list", as: PresetLibrary.Kind.self)]
                : PresetLibrary.Kind.allCases
            for kind in kinds {
                print("\(kind.rawValue):")
                for n in library.names(kind) {
                    print("  \(n.padding(toLength: 20, withPad: " ", startingAt: 0)) \(library.describe(n, kind: kind))")
                }
            }
        case ("show", 2):
            let name = args[1]
            for kind in PresetLibrary.Kind.allCases where library.names(kind).contains(name) {
                let (data, _) = try library.source(name, kind: kind, field: .preset, subject: "presets show")
                print(String(decoding: data, as: UTF8.self), terminator: "")
                return
            }
            let all = PresetLibrary.Kind.allCases.flatMap { library.names($0) }
            throw SweepError(
                .usage, "no preset called '\(name)'", subject: "presets show",
                fix: Suggestion.nearest(name, in: all).map { "did you mean \($0)?" } ?? "see sweep presets list")
        default:
            throw SweepError(.usage, "unknown presets command", subject: "presets", fix: "use: sweep presets list | show NAME")
        }
    }

    static func preview(_ args: [String]) throws {
        var o = try parse(args, still: true)
        let r = try o.resolve(PresetLibrary.locate(), door: .commandLine)
        report(try RenderRun.perform(r, progress: nil)[0], o)
    }

    static func plan(_ args: [String]) throws {
        var o = try RenderRequest.interpret(ArgumentSplitter(RenderRequest.common).split(args))
        guard let name = o.inputs.first else {
            throw SweepError(.usage, "no preset", subject: "plan", fix: "give a preset name such as reveal, or a .json file")
        }
        guard let out = o.output else { throw SweepError(.usage, "no output file", subject: "plan", fix: "add -o plan.png") }
        o.preset = name
        o.inputs.removeFirst()
        try o.resolveLooks(PresetLibrary.locate())
        if o.inputs.isEmpty {
            o.spec.before = .image(try DemoScenes.flatLandscape())
            o.spec.after = .image(try DemoScenes.gradedLandscape())
        } else {
            (o.spec.before, o.spec.after) = try RenderRun.sides(o)
        }
        if o.spec.width == nil { (o.spec.width, o.spec.height) = (300, 400) }
        let suffix = o.spec.reduceMotion == .off ? "" : " (reduce motion: \(o.spec.reduceMotion.rawValue))"
        let picture = try Planner.plan(o.spec, title: "\(name)\(suffix)")
        guard case let .still(format) = try OutputKind.infer(path: out, still: true) else { return }
        try Renderer.checkExtraOutput(o.spec, path: out)  // the photos it was drawn from stay as they are
        try StillEncoder.write(picture, to: out, format: format)
        if !o.quiet && !o.json { print("wrote \(TerminalText.escape(out)) (\(picture.width)x\(picture.height))") }
    }

    static func demo(_ args: [String]) throws {
        var o = try parse(args)
        try o.resolveLooks(PresetLibrary.locate())
        let dir = o.output ?? "out"
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw SweepError(.cannotCreate, "cannot create the folder", subject: dir, fix: "choose a folder you can write to")
        }
        o.spec.before = .image(try DemoScenes.flatLandscape())
        o.spec.after = .image(try DemoScenes.gradedLandscape())
        // The scenes are 900x1200; both outputs take one size within the GIF's 800 px default.
        if o.spec.width == nil && o.spec.height == nil { (o.spec.width, o.spec.height) = (600, 800) }
        if !args.contains(where: {
            ["--from", "--to", "--duration", "-d", "--ease", "--hold"].contains($0.split(separator: "=").first.map(String.init) ?? $0)
        }) {
            o.spec.animation = RenderSpec.demoAnimation
            o.sweepSplit = nil
        }
        for name in ["demo.gif", "demo.mp4"] {
            let bar = ProgressBar(enabled: !o.quiet && !o.json, label: name, output: dir + "/" + name)
            let result: RenderResult
            do {
                defer { bar.finish() }
                result = try Renderer.render(o.spec, to: dir + "/" + name, progress: bar.update)
            }
            report(result, o)
        }
    }

    static func report(_ r: RenderResult, _ o: RenderRequest) {
        if o.json {
            let enc = JSONEncoder()
            enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var r = r
            r.seconds = (r.seconds * 1000).rounded() / 1000  // milliseconds, as in batch results
            if let data = try? enc.encode(r) { print(String(decoding: data, as: UTF8.self)) }
            return
        }
        if o.quiet { return }
        for n in r.notes { printError("sweep: note: \(n)") }
        print(summary(r, split: o.sweepSplit, motion: o.spec.reduceMotion.resolved(gif: r.format == "gif")))
    }

    /// The one-line summary of a render; `split` is the pass's holds and sweep, told as
    /// `motion` shows them (a cross-fade, or a cut, under reduced motion).
    static func summary(_ r: RenderResult, split: (hold: Double, sweep: Double)?, motion: ReduceMotion = .off) -> String {
        let size =
            ByteCount.text(r.bytes)
        if r.fps == 0 {  // a still: no frames or playing time to speak of
            return String(format: "wrote %@ (%@, %dx%d, still) in %.2f s", r.output, size, r.width, r.height, r.seconds)
        }
        // A GIF stores identical neighbouring frames once, with a longer delay: say so.
        let frames =
            r.format.hasPrefix("html")
            ? "interactive"  // the browser draws the frames
            : r.framesWritten == r.frames
                ? "\(r.frames) frames"
                : "\(r.framesWritten) frames stored, \(r.frames) rendered (identical neighbours merged)"
        var length = String(format: "%.2f s", r.duration)
        if let split, split.hold > 0, abs(2 * split.hold + split.sweep - r.duration) < 0.001 {
            // Tenths at least ("3.0 s sweep"), more only when the value has them.
            func t(_ v: Double) -> String { (v * 10).rounded() == v * 10 ? String(format: "%.1f", v) : String(format: "%g", v) }
            switch motion {
            case .off: length += ": \(t(split.hold)) s hold, \(t(split.sweep)) s sweep, \(t(split.hold)) s hold"
            case .dissolve, .auto: length += ": \(t(split.hold)) s hold, \(t(split.sweep)) s cross-fade, \(t(split.hold)) s hold"
            case .cut: length += ": cut at \(t(split.hold)) s (reduced motion)"
            }
        }
        let sound = r.sound.map { ", " + $0.phrase } ?? ""
        // A clip cut short is said on the summary line itself, not only in a note.
        let cuts = (r.cutShort ?? []).map { "; " + $0.phrase }.joined()
        return String(
            format: "wrote %@ (%@, %dx%d, %@, %@%@) in %.2f s%@", TerminalText.escape(r.output), size, r.width, r.height, frames, length,
            TerminalText.escape(sound), r.seconds, TerminalText.escape(cuts))
    }

    /// A size cap's advice (``CapAdvice``) with the options that would take it, e.g. "… would
    /// keep them (--end 19.5 or --size 368x208)".
    static func adviceLine(_ a: CapAdvice) -> String {
        let options = (a.end.map { [String(format: "--end %g", $0)] } ?? []) + ["--size \(a.width)x\(a.height)"]
        return a.message + " (" + options.joined(separator: " or ") + ")"
    }

    /// Prints one message line on stderr, control characters escaped (see ``TerminalText``);
    /// a closed or broken stderr loses it quietly.
    static func printError(_ s: String) {
        TerminalText.write(TerminalText.escape(s) + "\n")
    }
}
