#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import SweepPipeline
import SweepSupport

/// `sweep batch`: many renders from a JSONL file, in parallel, with a results file,
/// sharding across a cluster's array jobs and resuming after an interruption.
enum BatchCommand {
    static let options: [ArgumentSplitter.Option] = [
        .init("jobs", short: "j"), .init("results"), .init("shard"), .init("resume", value: false),
        .init("quiet", short: "q", value: false),
    ]

    /// Runs the batch; returns how many jobs failed.
    static func run(_ args: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int {
        let r = try ArgumentSplitter(options).split(args)
        guard r.positionals.count == 1, let file = r.positionals.first else {
            throw SweepError(.usage, "give one jobs file", subject: "batch", fix: "sweep batch jobs.jsonl")
        }
        let workers = try r.value("jobs").map { try ValueParser.int($0, option: "--jobs", range: 1...256) } ?? ParallelCores.count
        let shard = try Shard.resolve(option: r.value("shard"), environment: environment)
        let resume = r.flag("resume"), quiet = r.flag("quiet")
        guard let data = FileManager.default.contents(atPath: file) else {
            throw SweepError(.noInput, "cannot read the jobs file", subject: file, fix: "check the path")
        }
        // Job i is the i-th non-empty line; every shard numbers them the same way.
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var mine: [(index: Int, line: Int, text: String)] = []
        var index = 0
        for (n, raw) in lines.enumerated() {
            let text = raw.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if shard?.owns(index) ?? true { mine.append((index, n + 1, text)) }
            index += 1
        }
        let resultsPath = r.value("results") ?? (file.hasSuffix(".jsonl") ? String(file.dropLast(6)) : file)
            + (shard.map { ".shard-\($0.index)-of-\($0.count)" } ?? "") + ".results.jsonl"
        let results = try ResultsFile(path: resultsPath, append: resume)
        let library = PresetLibrary.locate()
        let state = BatchState(jobs: mine)
        let total = mine.count
        let group = DispatchGroup()
        for _ in 0..<min(workers, max(1, total)) {
            DispatchQueue.global().async(group: group) {
                while let job = state.next() {
                    let record = execute(job.text, line: job.line, file: file, library: library, resume: resume)
                    results.append(record)
                    if record["status"] as? String == "failed" { state.fail() }
                    if !quiet {
                        let what = record["status"] as? String ?? "?"
                        let detail = (record["error"] as? String) ?? (record["output"] as? String ?? "")
                        FileHandle.standardError.write(Data("[\(state.finished())/\(total)] line \(job.line): \(what) \(detail)\n".utf8))
                    }
                }
            }
        }
        group.wait()
        try results.close()
        return state.failures
    }

    /// Creates the folder an output goes in: a batch lays out many outputs (`out/2026/a.gif`),
    /// so its folders are made as needed, unlike a single `render`, where a missing folder is
    /// more likely a typo.
    static func makeFolder(of output: String) throws {
        let folder = URL(fileURLWithPath: output).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw SweepError(.cannotCreate, "cannot create the output folder", subject: folder,
                             fix: "check that its parent is writable")
        }
    }

    /// Runs one job and returns its results record. Never throws: a failure is recorded.
    static func execute(_ text: String, line: Int, file: String, library: PresetLibrary, resume: Bool) -> [String: Any] {
        let start = Date()
        var record: [String: Any] = ["line": line]
        do {
            let job = try BatchJob(line: line, text: text, file: file)
            record["output"] = job.output
            let sidecar = Sidecar(output: job.output, job: text)
            if resume, sidecar.isComplete() {
                record["status"] = "skipped"
                record["bytes"] = sidecar.recordedBytes ?? 0
                return record
            }
            var o = try RenderOptions.interpret(ArgumentSplitter(RenderOptions.common).split(job.arguments))
            try o.resolveLooks(library)
            try makeFolder(of: job.output)
            let results = try SweepCommand.perform(&o, progress: nil)
            record["status"] = "ok"
            record["bytes"] = results.reduce(0) { $0 + $1.bytes }
            record["frames"] = results.first?.frames ?? 0
            try sidecar.write()
        } catch let e as SweepError {
            record["status"] = "failed"
            record["error"] = OptionNames.describe(e)
            record["exit"] = Int(e.code.exitCode)
        } catch {
            record["status"] = "failed"
            record["error"] = "\(error)"
            record["exit"] = 70
        }
        record["seconds"] = (Date().timeIntervalSince(start) * 1000).rounded() / 1000
        return record
    }
}
