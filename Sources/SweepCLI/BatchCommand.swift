import Dispatch
import Foundation
import SweepMedia
import SweepPipeline
import SweepRequest
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `sweep batch`: many renders from a JSONL file, in parallel, with a results file,
/// sharding across a cluster's array jobs and resuming after an interruption.
enum BatchCommand {
    static let options: [ArgumentSplitter.Option] = [
        .init("jobs", short: "j"), .init("results"), .init("shard"), .init("resume", value: false),
        .init("quiet", short: "q", value: false), .init("out-dir"), .init("in-dir"),
        .init("allow-absolute", value: false),
    ]

    /// The largest jobs file read (64 MiB: some 300 000 jobs).
    static let maxJobsFileBytes = 64 << 20

    /// One job of this shard: its index among all jobs, its line, its text, and the parsed
    /// job with its output under the root, or why it cannot run.
    typealias Planned = (index: Int, line: Int, text: String, job: Result<(BatchJob, String), SweepError>)

    /// Runs the batch; returns how many jobs failed.
    static func run(_ args: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int {
        let r = try ArgumentSplitter(options).split(args)
        guard r.positionals.count == 1, let file = r.positionals.first else {
            throw SweepError(.usage, "give one jobs file", subject: "batch", fix: "sweep batch jobs.jsonl")
        }
        let workers = try r.value("jobs").map { try ValueParser.int($0, option: "--jobs", range: 1...256) } ?? ParallelCores.count
        let shard = try Shard.resolve(option: r.value("shard"), environment: environment)
        let resume = r.flag("resume"), quiet = r.flag("quiet")
        let data = try FileBytes.read(file, limit: maxJobsFileBytes)
        let root = try JobFolder(outputs: r.value("out-dir"), allowAbsolute: r.flag("allow-absolute"))
        let inputRoot = try JobFolder(
            inputs: r.value("in-dir") ?? file.lastIndex(of: "/").map { $0 == file.startIndex ? "/" : String(file[..<$0]) } ?? ".",
            allowAbsolute: r.flag("allow-absolute"))
        // Job i is the i-th non-empty line; every shard numbers them the same way. Every job
        // is parsed (not only this shard's), so that clashes between shards are found too.
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var all: [Planned] = []
        for (n, raw) in lines.enumerated() {
            let text = raw.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            let job: Result<(BatchJob, String), SweepError>
            do {
                let at = "\(file):\(n + 1)"
                let parsed = try BatchJob(line: n + 1, text: text, file: file).reading(from: inputRoot, at: at)
                job = .success((parsed, try root.resolve(parsed.output, at: at)))
            } catch let e as SweepError {
                job = .failure(e)
            } catch {
                job = .failure(SweepError(.internalError, "\(error)"))
            }
            all.append((all.count, n + 1, text, job))
        }
        let resultsPath =
            r.value("results") ?? (file.hasSuffix(".jsonl") ? String(file.dropLast(6)) : file)
            + (shard.map { ".shard-\($0.index)-of-\($0.count)" } ?? "") + ".results.jsonl"
        try refuseClashes(all, file: file, results: resultsPath)
        let mine = all.filter { shard?.owns($0.index) ?? true }
        // A fresh results file each run, moved into place when the batch ends: a rerun never
        // appends to stale lines, and an interrupted run leaves the previous file whole.
        let output = try AtomicOutput(destination: resultsPath)
        let results = try ResultsFile(path: output.writePath, reportAs: resultsPath)
        let library = PresetLibrary.locate()
        let state = BatchState(jobs: mine)
        let total = mine.count
        let group = DispatchGroup()
        for _ in 0..<min(workers, max(1, total)) {
            DispatchQueue.global().async(group: group) {
                while let job = state.next() {
                    let record = execute(
                        job, library: library, resume: resume, memory: DecoderMemory.defaultBudget / workers,
                        folders: (inputRoot, root), file: file)
                    results.append(record)
                    if record["status"] as? String == "failed" { state.fail() }
                    if !quiet {
                        let what = record["status"] as? String ?? "?"
                        let detail = (record["error"] as? String) ?? (record["output"] as? String ?? "")
                        TerminalText.write(TerminalText.escape("[\(state.finished())/\(total)] line \(job.line): \(what) \(detail)") + "\n")
                    }
                }
            }
        }
        group.wait()
        try results.close()
        try output.commit()
        return state.failures
    }

    /// Refuses, before anything renders, a batch where two jobs write the same file, a job
    /// reads another's output (the order of a parallel batch would decide what it reads), or
    /// the results file is the jobs file, an input or an output. Paths are compared after
    /// resolving folders and symlinks, and existing files also by device and inode.
    static func refuseClashes(_ jobs: [Planned], file: String, results: String) throws {
        var outputs = OutputClaims()
        for j in jobs {
            guard case let .success((job, output)) = j.job else { continue }
            var paths = [output]
            if job.poster { paths.append(RenderRun.posterPath(for: output)) }
            for path in paths { try outputs.claim(path, line: j.line, subject: "\(file):\(j.line)") }
        }
        var inputs: [(path: String, line: Int?)] = [(file, nil)]
        // A job refused at validation still names files (its inputs are a user's photos):
        // the results file replaces none of them either.
        var named: [(path: String, line: Int)] = []
        for j in jobs {
            guard case let .success((job, _)) = j.job else {
                named += Self.strings(in: j.text).map { ($0, j.line) }
                continue
            }
            for input in job.inputs {
                inputs.append((input, j.line))
                if let other = outputs.writer(of: input) {
                    throw SweepError(
                        .dataError, "line \(j.line) reads \(input), which line \(other) writes", subject: "\(file):\(j.line)",
                        fix: "render it in an earlier batch, or read another file")
                }
            }
        }
        let resultsKey = JobFolder.canonical(results)
        var resultsInfo = stat()
        let resultsExists = stat(results, &resultsInfo) == 0
        for input in inputs + named.map({ ($0.path, Optional($0.line)) }) {
            var info = stat()
            let same =
                JobFolder.canonical(input.path) == resultsKey
                || (resultsExists && stat(input.path, &info) == 0 && info.st_dev == resultsInfo.st_dev && info.st_ino == resultsInfo.st_ino)
            if same {
                let what = input.line.map { "line \($0)'s input" } ?? "the jobs file"
                throw SweepError(
                    .usage, "the results file would replace \(input.path), \(what)", subject: "--results",
                    fix: "choose another results file")
            }
        }
        if let line = outputs.writer(of: results) {
            throw SweepError(.usage, "the results file is line \(line)'s output", subject: "--results", fix: "choose another results file")
        }
        // Nor the record beside an output, which --resume trusts to skip a finished job.
        for j in jobs {
            guard case let .success((_, output)) = j.job else { continue }
            let record = Sidecar(output: output, job: "", reads: []).path
            if JobFolder.canonical(record) == resultsKey {
                throw SweepError(
                    .usage, "the results file would replace \(record), line \(j.line)'s completion record", subject: "--results",
                    fix: "choose another results file")
            }
        }
    }

    /// Every string in a job line (values of any key, in arrays too), or none when the line is
    /// not JSON: what a refused job may name as a path.
    static func strings(in text: String) -> [String] {
        func collect(_ v: Any) -> [String] {
            if let s = v as? String { return [s] }
            if let a = v as? [Any] { return a.flatMap(collect) }
            if let o = v as? [String: Any] { return o.values.flatMap(collect) }
            return []
        }
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else { return [] }
        return collect(value).filter { !$0.isEmpty }
    }

    /// Creates the folder an output goes in: a batch lays out many outputs (`out/2026/a.gif`),
    /// so its folders are made as needed, unlike a single `render`, where a missing folder is
    /// more likely a typo.
    static func makeFolder(of output: String) throws {
        let folder = URL(fileURLWithPath: output).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw SweepError(
                .cannotCreate, "cannot create the output folder", subject: folder,
                fix: "check that its parent is writable")
        }
    }

    /// Runs one job and returns its results record. Never throws: a failure is recorded.
    ///
    /// - Parameter memory: the most the job's clip decoders may take: the batch's jobs run at
    ///   once and share the machine, and a job line may lower it, never raise it.
    /// - Parameter folders: the batch's input and output folders, beneath which the job's
    ///   files are opened when it starts (``JobFiles``).
    static func execute(
        _ planned: Planned, library: PresetLibrary, resume: Bool, memory: Int,
        folders: (inputs: JobFolder, outputs: JobFolder), file: String
    ) -> [String: Any] {
        let start = Date()
        var record: [String: Any] = ["line": planned.line]
        do {
            let (job, output) = try planned.job.get()
            record["output"] = output  // where it is written, not merely what the line says
            let files = try JobFiles(
                reads: job.reads, output: output, inputs: folders.inputs, outputs: folders.outputs, at: "\(file):\(planned.line)")
            defer { withExtendedLifetime(files) {} }
            let sidecar = Sidecar(output: output, job: planned.text, reads: job.reads)
            if resume, sidecar.isComplete() {
                record["status"] = "skipped"
                record["bytes"] = sidecar.recordedBytes ?? 0
                return record
            }
            let stamps = sidecar.inputStamps()
            var o = try job.request(output: output)
            o.spec.clip.maxMemory = min(o.spec.clip.maxMemory, memory)
            let resolved = try o.resolve(library, door: .batch)
            if folders.outputs.confined == nil { try makeFolder(of: output) }
            let results = try RenderRun.perform(resolved, progress: nil)
            record["status"] = "ok"
            // The job's output alone, as --resume reads it back from the record beside it.
            record["bytes"] = results.first?.bytes ?? 0
            record["frames"] = results.first?.frames ?? 0
            let notes = results.flatMap(\.notes)
            if !notes.isEmpty { record["notes"] = notes.map(TerminalText.escape) }
            try sidecar.write(stamps: stamps)
        } catch {
            // A job a signal cut short is not recorded as failed: the handler ends the batch.
            TempFileRegistry.shared.yieldToSignal()
            record["status"] = "failed"
            if let e = error as? SweepError {
                record["error"] = TerminalText.escape(OptionNames.describe(e))
                record["exit"] = Int(e.code.exitCode)
            } else {
                record["error"] = TerminalText.escape("\(error)")
                record["exit"] = 70
            }
        }
        record["seconds"] = (Date().timeIntervalSince(start) * 1000).rounded() / 1000
        return record
    }
}
