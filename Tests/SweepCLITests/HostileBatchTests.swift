import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import Testing

@testable import SweepCLI
@testable import SweepRequest

/// Job lines written by strangers: a batch writes only its declared outputs, under its
/// output folder, and refuses clashes before anything renders.
@Suite("Hostile batch jobs", .serialized)
struct HostileBatchTests {
    static let tiny = #""size": "32x48", "fps": 5, "duration": 0.4, "hold": 0, "no-labels": true"#

    /// A folder with `in.png` and `jobs.jsonl` holding `lines`; IN stands for the input's path.
    func batch(_ lines: [String]) throws -> (dir: String, jobs: String) {
        let dir = try hostileInput()
        let text = lines.map { $0.replacingOccurrences(of: "IN", with: dir + "/in.png") }.joined(separator: "\n") + "\n"
        try text.write(toFile: dir + "/jobs.jsonl", atomically: true, encoding: .utf8)
        return (dir, dir + "/jobs.jsonl")
    }

    @Test("A key is an option name, never option=value; values and inputs never become options")
    func smuggling() throws {
        let (dir, jobs) = try batch([
            #"{"before": "IN", "output": "a.gif", "output=hijack.gif": "1", \#(Self.tiny)}"#,
            #"{"before": "--output=hijack2.gif", "output": "b.gif", \#(Self.tiny)}"#,
            #"{"before": "IN", "after": "-ohijack3.gif", "output": "c.gif", \#(Self.tiny)}"#,
            #"{"before": "IN", "output": "d.gif", "before-label": "--output=hijack4.gif", \#(Self.tiny)}"#,
            #"{"before": "IN", "output": "e.gif", "o": "hijack5.gif", \#(Self.tiny)}"#,
        ])
        let failed = try BatchCommand.run([jobs, "--quiet", "--out-dir", dir, "--jobs", "1"], environment: [:])
        #expect(failed == 4)
        #expect(!listing(dir).contains { $0.contains("hijack") }, "\(listing(dir))")
        let results = try resultLines(dir + "/jobs.results.jsonl").sorted { ($0["line"] as! Int) < ($1["line"] as! Int) }
        #expect(results.map { $0["status"] as? String } == ["failed", "failed", "failed", "ok", "failed"])
        #expect((results[0]["error"] as? String)?.contains(#""output=hijack.gif" is not an option"#) == true, "\(results[0])")
        #expect(results[1]["exit"] as? Int == 66 && results[2]["exit"] as? Int == 66)
        #expect(results[3]["output"] as? String == dir + "/d.gif" && FileBytes.size(dir + "/d.gif") > 0)
    }

    @Test(
        "Outputs stay under the output folder unless --allow-absolute",
        arguments: [
            (#""../escape.gif""#, "leaves the output folder"), (#""sub/../../escape.gif""#, "leaves the output folder"),
            (#""ABS/abs.gif""#, "absolute path"), (#""link/through.gif""#, "leaves the output folder"),
        ])
    func outputRoot(output: String, message: String) throws {
        let outside = try scratchDir()
        let (dir, jobs) = try batch([
            #"{"before": "IN", "output": \#(output), \#(Self.tiny)}"#.replacingOccurrences(of: "ABS", with: outside)
        ])
        try FileManager.default.createDirectory(atPath: dir + "/root", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/root/link", withDestinationPath: outside)
        #expect(try BatchCommand.run([jobs, "--quiet", "--out-dir", dir + "/root"], environment: [:]) == 1)
        let result = try #require(try resultLines(dir + "/jobs.results.jsonl").first)
        #expect(result["exit"] as? Int == 65 && (result["error"] as? String)?.contains(message) == true, "\(result)")
        #expect(listing(outside).isEmpty && !FileManager.default.fileExists(atPath: dir + "/escape.gif"))
        // --allow-absolute lifts it.
        #expect(try BatchCommand.run([jobs, "--quiet", "--out-dir", dir + "/root", "--allow-absolute"], environment: [:]) == 0)
    }

    @Test(
        "Two jobs with one output, or a job reading another's output, are refused before anything renders",
        arguments: [
            [#"{"before": "IN", "output": "same.gif", TINY}"#, #"{"before": "IN", "output": "./sub/../same.gif", TINY}"#],
            [#"{"before": "IN", "output": "first.gif", TINY}"#, #"{"before": "OUT/first.gif", "output": "second.gif", TINY}"#],
            [
                #"{"before": "IN", "output": "v.mp4", "poster": true, TINY}"#,
                #"{"before": "IN", "output": "v.mp4.poster.jpg", "format": "og-image"}"#,
            ],
            // Patterns are compared by the names they write, not their spelling.
            [#"{"before": "IN", "output": "s/f%d.png", TINY}"#, #"{"before": "IN", "output": "s/f1%d.png", TINY}"#],
            [#"{"before": "IN", "output": "s/g-%d.png", TINY}"#, #"{"before": "IN", "output": "s/./g-%01d.png", TINY}"#],
            [#"{"before": "IN", "output": "s/h%03d.png", TINY}"#, #"{"before": "IN", "output": "s/h007.png", "format": "og-image"}"#],
            [#"{"before": "IN", "output": "s/k%d.png", TINY}"#, #"{"before": "OUT/s/k1.png", "output": "other.gif", TINY}"#],
        ])
    func clashes(lines: [String]) throws {
        let (dir, jobs) = try batch(lines.map { $0.replacingOccurrences(of: "TINY", with: Self.tiny) })
        try String(contentsOfFile: jobs, encoding: .utf8).replacingOccurrences(of: "OUT", with: dir)
            .write(toFile: jobs, atomically: true, encoding: .utf8)
        let before = listing(dir)
        do {
            _ = try BatchCommand.run([jobs, "--quiet", "--out-dir", dir], environment: [:])
            Issue.record("the batch ran")
        } catch let e as SweepError {
            #expect(e.code == .dataError && e.subject == jobs + ":2" && e.message.contains("line 1"), "\(e)")
        }
        #expect(listing(dir) == before)
    }

    @Test("--results never replaces an input or the jobs file", arguments: ["IN", "JOBS", "OUT/a.gif"])
    func resultsTarget(target: String) throws {
        let (dir, jobs) = try batch([#"{"before": "IN", "output": "a.gif", \#(Self.tiny)}"#])
        let path = target.replacingOccurrences(of: "IN", with: dir + "/in.png").replacingOccurrences(of: "JOBS", with: jobs)
            .replacingOccurrences(of: "OUT", with: dir)
        let before = listing(dir)
        let bytes = [FileManager.default.contents(atPath: dir + "/in.png"), FileManager.default.contents(atPath: jobs)]
        // Another spelling of the same file counts too.
        let spelled = URL(fileURLWithPath: path).deletingLastPathComponent().path + "/./" + URL(fileURLWithPath: path).lastPathComponent
        #expect(throws: SweepError.self) {
            try BatchCommand.run([jobs, "--quiet", "--out-dir", dir, "--results", spelled], environment: [:])
        }
        #expect(listing(dir) == before)
        #expect([FileManager.default.contents(atPath: dir + "/in.png"), FileManager.default.contents(atPath: jobs)] == bytes)
    }

    @Test("Each run writes a fresh results file: three runs, one line per job")
    func freshResults() throws {
        let (dir, jobs) = try batch([#"{"before": "IN", "output": "a.gif", \#(Self.tiny)}"#, #"{"before": "nope.png", "output": "b.gif"}"#])
        for _ in 0..<3 { #expect(try BatchCommand.run([jobs, "--quiet", "--out-dir", dir, "--resume"], environment: [:]) == 1) }
        #expect(try resultLines(dir + "/jobs.results.jsonl").count == 2)
        #expect(!listing(dir).contains { $0.hasSuffix(".tmp") })
    }

    @Test("Job lines over 64 KiB fail as a job; scheduler variables near Int.min/Int.max are refused")
    func limits() throws {
        let long = #"{"before": "a.png", "output": "o.gif", "before-label": ""# + String(repeating: "x", count: 70_000) + #""}"#
        #expect(throws: SweepError.self) { try BatchJob(line: 1, text: long, file: "j") }
        for env in [
            ["SLURM_ARRAY_TASK_ID": "\(Int.min)", "SLURM_ARRAY_TASK_MIN": "\(Int.max)", "SLURM_ARRAY_TASK_COUNT": "3"],
            ["SLURM_ARRAY_TASK_ID": "\(Int.max)", "SLURM_ARRAY_TASK_MIN": "-1", "SLURM_ARRAY_TASK_COUNT": "\(Int.max)"],
            ["JOB_COMPLETION_INDEX": "\(Int.max - 1)", "JOB_COMPLETIONS": "\(Int.max)"],
            ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "99999999999999999999999", "SLURM_ARRAY_TASK_COUNT": "3"],
        ] {
            #expect(throws: SweepError.self, "\(env)") { try Shard.resolve(option: nil, environment: env) }
        }
        #expect(throws: SweepError.self) { try Shard.resolve(option: "\(Int.max - 1)/\(Int.max)", environment: [:]) }
    }

    @Test("An endless jobs file is refused before it fills memory")
    func endlessJobsFile() throws {
        #expect(throws: SweepError.self) {
            try BatchCommand.run(["/dev/zero", "--quiet", "--results", try scratchDir() + "/r.jsonl"], environment: [:])
        }
    }
}
