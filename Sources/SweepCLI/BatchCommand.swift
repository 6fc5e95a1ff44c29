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
            let results = try SweepCommand.perform(&o, progress: nil)
            record["status"] = "ok"
            record["bytes"] = results.reduce(0) { $0 + $1.bytes }
            record["frames"] = results.first?.frames ?? 0
            try sidecar.write()
        } catch let e as SweepError {
            record["status"] = "failed"
            record["error"] = e.description
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

/// Work queue and counters shared by the batch workers (under a lock).
final class BatchState: @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [(index: Int, line: Int, text: String)]
    private var position = 0
    private var done = 0
    private(set) var failures = 0

    init(jobs: [(index: Int, line: Int, text: String)]) { self.jobs = jobs }

    func next() -> (index: Int, line: Int, text: String)? {
        lock.lock(); defer { lock.unlock() }
        guard position < jobs.count else { return nil }
        position += 1
        return jobs[position - 1]
    }

    func fail() { lock.lock(); failures += 1; lock.unlock() }
    func finished() -> Int { lock.lock(); defer { lock.unlock() }; done += 1; return done }
}

/// The results JSONL, one line per finished job, flushed as it goes so that an
/// interrupted batch keeps what it finished.
final class ResultsFile: @unchecked Sendable {
    private let lock = NSLock()
    private let handle: UnsafeMutablePointer<FILE>
    let path: String

    init(path: String, append: Bool) throws {
        self.path = path
        guard let f = fopen(path, append ? "a" : "w") else {
            throw SweepError(.cannotCreate, "cannot write the results file", subject: path, fix: "choose a writable --results path")
        }
        handle = f
    }

    func append(_ record: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]) else { return }
        lock.lock(); defer { lock.unlock() }
        _ = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, handle) }
        fputs("\n", handle)
        fflush(handle)
    }

    func close() throws {
        if fclose(handle) != 0 { throw SweepError(.ioError, "cannot finish the results file", subject: path) }
    }
}

/// The record beside an output that says it is complete: which job made it, its size and
/// a checksum of its bytes. `--resume` trusts it, not the file's mere existence.
struct Sidecar {
    let output: String
    let job: String
    var path: String { output + ".sweep.json" }

    var recordedBytes: Int? {
        guard let d = FileManager.default.contents(atPath: path),
              let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any] else { return nil }
        return (o["bytes"] as? NSNumber)?.intValue
    }

    /// True when the sidecar names this job and the output's size and checksum match it.
    func isComplete() -> Bool {
        guard let d = FileManager.default.contents(atPath: path),
              let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any],
              o["job"] as? String == Self.hex(BatchJob.fnv1a(Array(job.utf8))),
              let bytes = (o["bytes"] as? NSNumber)?.intValue,
              let content = FileManager.default.contents(atPath: output), content.count == bytes,
              o["fnv1a"] as? String == Self.hex(BatchJob.fnv1a(content)) else { return false }
        return true
    }

    /// Records the finished output (written atomically, after the output itself).
    func write() throws {
        guard let content = FileManager.default.contents(atPath: output) else { return } // sequences: no record
        let record: [String: Any] = ["version": 1, "job": Self.hex(BatchJob.fnv1a(Array(job.utf8))), "bytes": content.count,
                                     "fnv1a": Self.hex(BatchJob.fnv1a(content))]
        let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
        let out = try AtomicOutput(destination: path)
        try FileBytes.write([UInt8](data), to: out.temporaryPath, reportAs: path)
        try out.commit()
    }

    static func hex(_ v: UInt64) -> String { String(v, radix: 16) }
}

/// The number of cores, for default parallelism.
enum ParallelCores {
    static let count = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
}
