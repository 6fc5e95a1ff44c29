import Foundation
import SweepGIF
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepCLI
@testable import SweepRequest

/// A folder with a small input photo and a jobs file of `count` tiny GIF renders, their
/// outputs relative to the folder (run with `--out-dir dir`).
func batchFixture(count: Int, fps: Int = 5) throws -> (dir: String, jobs: String) {
    let dir = try scratchDir()
    try StillEncoder.write(Resampler.resize(DemoScenes.gradedLandscape(), width: 60, height: 80), to: dir + "/in.png", format: .png)
    var lines: [String] = []
    for i in 0..<count {
        lines.append(
            #"{"before": "\#(dir)/in.png", "output": "out-\#(i).gif", "look": "noir", "size": "48x64", "fps": \#(fps), "duration": 1, "no-labels": true}"#
        )
    }
    try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/jobs.jsonl", atomically: true, encoding: .utf8)
    return (dir, dir + "/jobs.jsonl")
}

func resultLines(_ path: String) throws -> [[String: Any]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
}

@Suite("Batch", .serialized)
struct BatchTests {
    @Test("Shards come from --shard, Kubernetes Indexed Jobs or Slurm arrays")
    func shardResolution() throws {
        #expect(try Shard.resolve(option: "2/5", environment: [:]) == Shard(index: 2, count: 5))
        #expect(
            try Shard.resolve(option: nil, environment: ["JOB_COMPLETION_INDEX": "3", "JOB_COMPLETIONS": "4"]) == Shard(index: 3, count: 4))
        #expect(
            try Shard.resolve(
                option: nil,
                environment: [
                    "SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "5",
                    "SLURM_ARRAY_TASK_COUNT": "3",
                ]) == Shard(index: 2, count: 3))
        #expect(try Shard.resolve(option: nil, environment: [:]) == nil)
        #expect(throws: SweepError.self) { try Shard.resolve(option: "4/4", environment: [:]) }
        #expect(throws: SweepError.self) { try Shard.resolve(option: nil, environment: ["JOB_COMPLETION_INDEX": "1"]) }
    }

    @Test("N shards together do each job exactly once")
    func shardsCoverOnce() throws {
        let (dir, jobs) = try batchFixture(count: 7)
        var seen: [Int] = []
        for k in 0..<3 {
            let failed = try BatchCommand.run([jobs, "--shard", "\(k)/3", "--quiet", "--out-dir", dir], environment: [:])
            #expect(failed == 0)
            seen += try resultLines(dir + "/jobs.shard-\(k)-of-3.results.jsonl").map { ($0["line"] as! NSNumber).intValue }
        }
        #expect(seen.sorted() == Array(1...7))
        for i in 0..<7 { #expect(try GIFReader(path: dir + "/out-\(i).gif").frames.count > 0) }
    }

    @Test("A failing job is recorded and the rest still run; the same job gives the same bytes")
    func failuresAndDeterminism() throws {
        let (dir, jobs) = try batchFixture(count: 2)
        var text = try String(contentsOfFile: jobs, encoding: .utf8)
        text += #"{"before": "\#(dir)/nope.png", "output": "bad.gif"}"# + "\n"
        text +=
            #"{"before": "\#(dir)/in.png", "output": "twin.gif", "look": "noir", "size": "48x64", "fps": 5, "duration": 1, "no-labels": true}"#
            + "\n"
        try text.write(toFile: jobs, atomically: true, encoding: .utf8)
        #expect(try BatchCommand.run([jobs, "--jobs", "2", "--quiet", "--out-dir", dir], environment: [:]) == 1)
        let results = try resultLines(dir + "/jobs.results.jsonl")
        #expect(results.count == 4)
        let bad = results.first { ($0["line"] as! NSNumber).intValue == 3 }!
        #expect(bad["status"] as? String == "failed" && (bad["exit"] as! NSNumber).intValue == 66)
        #expect(FileManager.default.contents(atPath: dir + "/twin.gif") == FileManager.default.contents(atPath: dir + "/out-0.gif"))
    }

    @Test("A job's output folders are created as needed")
    func createsFolders() throws {
        let (dir, jobs) = try batchFixture(count: 0)
        let line = #"{"before": "\#(dir)/in.png", "output": "out/2026/11/a.gif", "size": "48x64", "fps": 5, "duration": 1}"#
        try (line + "\n").write(toFile: jobs, atomically: true, encoding: .utf8)
        #expect(try BatchCommand.run([jobs, "--quiet", "--out-dir", dir], environment: [:]) == 0)
        #expect(try GIFReader(path: dir + "/out/2026/11/a.gif").frames.count > 1)
    }

    @Test("A signal stops a batch running on every core at once: no job starts or finishes after it")
    func signalStopsBusyBatch() throws {
        let (dir, jobs) = try batchFixture(count: 200, fps: 20)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try sweepBinary())
        p.arguments = ["batch", jobs, "--quiet", "--out-dir", dir]  // --jobs: one per core
        try p.run()
        let finished = { (try? FileManager.default.contentsOfDirectory(atPath: dir))?.filter { $0.hasSuffix(".gif") }.count ?? 0 }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && finished() < 3 { usleep(20_000) }
        let atSignal = finished()
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 128 + SIGINT)
        // The handler once waited for a free thread of the queue the busy workers held, and
        // the batch ran on for 13–31 s, finishing most of its jobs.
        #expect(finished() <= atSignal + ParallelCores.count + 1, "\(atSignal) → \(finished())")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".tmp") } == [])
    }

    @Test("--resume after a batch killed part-way: nothing lost, nothing truncated, nothing done twice")
    func resumeAfterKill() throws {
        let (dir, jobs) = try batchFixture(count: 8, fps: 20)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try sweepBinary())
        p.arguments = ["batch", jobs, "--jobs", "1", "--quiet", "--out-dir", dir]
        try p.run()
        // Wait until a couple of jobs are done, then interrupt.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let done = (try? FileManager.default.contentsOfDirectory(atPath: dir))?.filter { $0.hasSuffix(".sweep.json") }.count ?? 0
            if done >= 2 { break }
            usleep(20_000)
        }
        p.terminate()  // SIGTERM: temporary files are removed on the way out
        p.waitUntilExit()
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(!files.contains { $0.hasSuffix(".tmp") })
        let finishedFirst = Set(files.filter { $0.hasSuffix(".gif.sweep.json") }.map { String($0.dropLast(11)) })
        #expect(finishedFirst.count >= 2 && finishedFirst.count < 8)
        for f in files where f.hasSuffix(".gif") { #expect(try GIFReader(path: dir + "/" + f).frames.count > 0, "\(f) is truncated") }
        // Resume: the finished jobs are skipped, the rest are done, all outputs complete.
        #expect(try BatchCommand.run([jobs, "--resume", "--quiet", "--out-dir", dir], environment: [:]) == 0)
        let second = try resultLines(dir + "/jobs.results.jsonl").suffix(8)
        let skipped = Set(
            second.filter { $0["status"] as? String == "skipped" }.map {
                ($0["output"] as! String).split(separator: "/").last.map(String.init)!
            })
        #expect(skipped == finishedFirst)
        #expect(second.filter { $0["status"] as? String == "ok" }.count == 8 - finishedFirst.count)
        for i in 0..<8 { #expect(try GIFReader(path: dir + "/out-\(i).gif").frames.count > 0) }
        // A record that does not match its file is not trusted.
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/out-0.gif"))
        #expect(try BatchCommand.run([jobs, "--resume", "--quiet", "--out-dir", dir], environment: [:]) == 0)
        #expect(try GIFReader(path: dir + "/out-0.gif").frames.count > 0)
    }

    @Test("Job lines: options become the request's named values; bad lines name the file and line")
    func jobParsing() throws {
        let j = try BatchJob(
            line: 3,
            text:
                #"{"before": "a.jpg", "after": "b.jpg", "output": "o.gif", "size": "10x10", "no-handle": true, "fps": 12, "codec-opt": ["a=1", "b=2"]}"#,
            file: "j.jsonl")
        #expect(
            j.options.map { [$0.name, $0.value ?? "(switch)"] } == [
                ["codec-opt", "a=1"], ["codec-opt", "b=2"], ["fps", "12"], ["no-handle", "(switch)"], ["size", "10x10"],
            ])
        let request = try j.request(output: "out/o.gif")
        #expect(request.output == "out/o.gif" && request.inputs == ["a.jpg", "b.jpg"])
        #expect(request.spec.fps == 12 && request.spec.width == 10 && request.spec.style.showHandle == false)
        // A value that looks like an option stays a value.
        let sneaky = try BatchJob(line: 1, text: #"{"before": "--output=x.gif", "output": "o.gif", "size": "--fps=99"}"#, file: "j")
        #expect(throws: SweepError.self) { try sneaky.request(output: "o.gif") }
        #expect(
            try BatchJob(line: 1, text: #"{"before": "--output=x.gif", "output": "o.gif"}"#, file: "j").request(output: "o.gif").inputs == [
                "--output=x.gif"
            ])
        do { _ = try BatchJob(line: 9, text: #"{"output": "o.gif"}"#, file: "j.jsonl"); Issue.record("should fail") } catch let e
            as SweepError
        {
            #expect(e.subject == "j.jsonl:9" && e.message.contains("before"))
        }
        do {
            _ = try BatchJob(line: 4, text: #"{"before": "a.jpg" "output": "o.gif"}"#, file: "j.jsonl"); Issue.record("should fail")
        } catch let e as SweepError {
            #expect(e.subject == "j.jsonl:4" && e.message.contains("column"), "\(e)")
        }
    }
}
