import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

/// Runs `sweep` in `dir` with a fault injected into its decode workers.
private func withFault(_ fault: String, in dir: String, _ args: [String]) throws -> (code: Int32, stdout: String, stderr: String) {
    var env = ProcessInfo.processInfo.environment
    env["SWEEP_TEST_DECODE_FAULT"] = fault
    return try runIn(dir, args, environment: env)
}

@Suite("Decoders in a separate process")
struct DecodeWorkerTests {
    @Test(
        "A decoder that crashes, aborts or is killed (or its monitor is) gives exit 65 in one line; the old output survives",
        arguments: ["segv", "abort", "kill", "kill-monitor"])
    func crashes(fault: String) throws {
        let dir = try everydayInputs()
        let old = Data("the previous render".utf8)
        try old.write(to: URL(fileURLWithPath: dir + "/out.gif"))
        let r = try withFault(fault + "@after.png", in: dir, ["render", "before.png", "after.png", "-o", "out.gif", "--size", "90x60"])
        #expect(r.code == 65, "\(r)")
        #expect(
            r.stderr
                == "sweep: after.png: the decoder crashed on this file (it is malformed or hits a decoder bug); nothing was written; re-export it from the original, or give another file\n",
            "\(r.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/out.gif") == old)
        #expect(listing(dir) == ["after.png", "before.png", "out.gif", "wide.png"], "\(listing(dir))")
    }

    @Test("A worker that cannot be made (no process to spare) is exit 70, not blamed on the file, for a picture and for a clip")
    func noProcess() throws {
        let dir = try everydayInputs()
        try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", "-pix_fmt", "yuv420p", dir + "/clip.mp4"])
        // A picture's worker; a clip's, after its probe's worker has run.
        for (fault, input, out) in [("no-fork", "after.png", "p.gif"), ("no-fork-clip", "clip.mp4", "c.gif")] {
            let r = try withFault(fault + "@" + input, in: dir, ["render", "before.png", input, "-o", out, "--size", "64x48", "-d", "1"])
            #expect(r.code == 70, "\(input): \(r)")
            #expect(r.stderr.contains("cannot start the decode worker (Resource temporarily unavailable)"), "\(input): \(r.stderr)")
            #expect(!r.stderr.contains("malformed"))
            #expect(!FileManager.default.fileExists(atPath: dir + "/" + out))
        }
    }

    @Test("A decoder that hangs is stopped at its deadline with exit 65, and nothing is left")
    func hang() throws {
        let dir = try everydayInputs()
        let start = Date()
        let r = try withFault("hang", in: dir, ["preview", "before.png", "after.png", "-o", "p.png"])
        #expect(r.code == 65 && r.stderr.contains("the decoder took more than 10 s on this file and was stopped"), "\(r)")
        #expect(Date().timeIntervalSince(start) < 20)
        #expect(listing(dir) == ["after.png", "before.png", "wide.png"], "\(listing(dir))")
    }

    @Test(
        "A worker cannot create a file, open a socket, signal another process, map 8 GiB, or see a descriptor beyond its input and answer")
    func confinement() throws {
        let dir = try everydayInputs()
        // Each fault aborts the worker (exit 65) if the filter or the descriptor hygiene let it through.
        for fault in ["write:\(dir)/escaped.txt", "write:\(dir)", "socket", "signal", "fds", "hog"] {
            let r = try withFault(fault, in: dir, ["preview", "before.png", "after.png", "-o", "p.png", "--quiet"])
            #expect(r.code == 0, "\(fault): \(r)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/escaped.txt"))
        #expect(listing(dir) == ["after.png", "before.png", "p.png", "wide.png"], "\(listing(dir))")
    }

    @Test(
        "The worker's pictures are the in-process decoder's, byte for byte, for stills and clips, resized there or here",
        arguments: [["--size", "96x64"], ["--size", "95x63", "--fit", "fit"], ["--size", "96x"]])
    func sameBytes(size: [String]) throws {
        let dir = try everydayInputs()
        try ClipMaker.counter(dir + "/clip.mp4", fps: 10, seconds: 1)
        for (inputs, out) in [(["before.png", "wide.png"], "still.gif"), (["clip.mp4", "after.png"], "clip.mp4")] {
            var outputs: [Data?] = [], summaries: [String] = []
            for mode in ["worker", "in-process"] {
                let r = try runIn(dir, ["render"] + inputs + ["-o", mode + out, "--fps", "5", "--decode", mode, "--json"] + size)
                #expect(r.code == 0, "\(r)")
                outputs.append(FileManager.default.contents(atPath: dir + "/" + mode + out))
                // All but the time taken.
                summaries.append(
                    r.stdout.replacingOccurrences(of: mode + out, with: out)
                        .replacingOccurrences(of: #""seconds":[0-9.]+"#, with: "", options: .regularExpression))
            }
            #expect(outputs[0] != nil && outputs[0] == outputs[1], "\(inputs) \(size)")
            // The notes and sizes speak of the pictures as decoded, wherever they were resized.
            #expect(summaries[0] == summaries[1], "\(summaries)")
        }
    }

    @Test("A job whose decoder crashes fails alone: the batch records exit 65 and runs the rest")
    func batchSurvives() throws {
        let dir = try everydayInputs()
        let jobs = dir + "/jobs.jsonl"
        try """
        {"before": "before.png", "after": "after.png", "output": "a.gif", "size": "90x60", "fps": 5}
        {"before": "wide.png", "after": "after.png", "output": "b.gif", "size": "90x60", "fps": 5}
        {"before": "before.png", "after": "wide.png", "output": "c.gif", "size": "90x60", "fps": 5}

        """.write(toFile: jobs, atomically: true, encoding: .utf8)
        let r = try withFault("segv@wide.png", in: dir, ["batch", "jobs.jsonl", "--quiet"])
        #expect(r.code == 65 && r.stderr == "sweep: batch: 2 job(s) failed; see the results file\n", "\(r)")
        let results = try resultLines(dir + "/jobs.results.jsonl").sorted {
            ($0["line"] as! NSNumber).intValue < ($1["line"] as! NSNumber).intValue
        }
        #expect(results.map { $0["status"] as? String } == ["ok", "failed", "failed"], "\(results)")
        #expect(results.dropFirst().allSatisfy { ($0["exit"] as? NSNumber)?.intValue == 65 }, "\(results)")
        #expect(try GIFReader(path: dir + "/a.gif").frames.count > 1)
        #expect(!FileManager.default.fileExists(atPath: dir + "/b.gif") && !FileManager.default.fileExists(atPath: dir + "/c.gif"))
    }

    @Test("A job line cannot move decoding into sweep's own process")
    func batchCannotChooseInProcess() throws {
        let dir = try everydayInputs()
        try #"{"before": "before.png", "output": "a.gif", "decode": "in-process"}"#.write(
            toFile: dir + "/jobs.jsonl", atomically: true, encoding: .utf8)
        let r = try runIn(dir, ["batch", "jobs.jsonl", "--quiet"])
        #expect(r.code == 65, "\(r)")
        let result = try #require(try resultLines(dir + "/jobs.results.jsonl").first)
        #expect((result["error"] as? String)?.contains(#"field "decode" is not an option of render"#) == true, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/a.gif"))
    }
}
