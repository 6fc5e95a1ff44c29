import Foundation
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepCLI

/// Runs `script` with `sh -c`, the sweep binary as `$SWEEP`; returns its exit status and stderr.
/// `signalAfter` sends SIGINT to the shell's process (sweep, by `exec`) after that many seconds.
private func shell(_ script: String, signalAfter: Double? = nil) throws -> (code: Int32, stderr: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", script]
    var env = ProcessInfo.processInfo.environment
    env["SWEEP"] = try sweepBinary()
    p.environment = env
    let err = Pipe()
    p.standardError = err
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    if let signalAfter {
        Thread.sleep(forTimeInterval: signalAfter)
        kill(p.processIdentifier, SIGINT)
    }
    let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return (p.terminationStatus, text)
}

/// Reliability, round 3 (#48): the routes the adversarial trial still found open.
@Suite("Open routes, closed", .serialized)
struct OpenRoutesTests {
    @Test("--results cannot replace the input of a job refused at validation; nothing is written")
    func resultsOverRefusedInput() throws {
        let dir = try hostileInput(name: "in.jpg")
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/in.jpg"))
        let jobs = dir + "/jobs.jsonl"
        try #"{"before": "\#(dir)/in.jpg", "output": "../escape.gif"}"#.write(toFile: jobs, atomically: true, encoding: .utf8)
        let error = #expect(throws: SweepError.self) {
            _ = try BatchCommand.run([jobs, "--results", dir + "/in.jpg", "--quiet", "--out-dir", dir], environment: [:])
        }
        #expect(error?.code == .usage && error?.message.contains("in.jpg") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/in.jpg")) == before)
        #expect(listing(dir) == ["in.jpg", "jobs.jsonl"], "\(listing(dir))")
    }

    @Test("Under a file-size limit a render exits 74 naming the limit, and leaves nothing", arguments: ["x.gif", "x.mp4", "f-%03d.png"])
    func fileSizeLimit(output: String) throws {
        let dir = try everydayInputs()
        let r = try shell(
            #"cd "\#(dir)" && ulimit -f 8 && exec "$SWEEP" render before.png after.png -o '\#(output)' --size 400x300 --quiet"#)
        #expect(r.code == 74 && r.stderr.contains("file-size limit"), "\(r)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(listing(dir) == ["after.png", "before.png", "wide.png"], "\(listing(dir))")
    }

    @Test("Under a file-size limit the output fits in, a render succeeds: the decode worker's memory fits under it too")
    func roomyFileSizeLimit() throws {
        let dir = try everydayInputs()
        let r = try shell(#"cd "\#(dir)" && ulimit -f 4096 && exec "$SWEEP" render before.png after.png -o out.gif --size 90x60 --quiet"#)
        #expect(r.code == 0, "\(r)")
        #expect(try GIFReader(path: dir + "/out.gif").frames.count > 1)
    }

    @Test("A SIGINT ignored by the shell (a background job) stays ignored: the render finishes")
    func inheritedIgnore() throws {
        let dir = try everydayInputs()
        // `trap '' INT` makes sh ignore SIGINT, and exec hands that to sweep, as `cmd &` does.
        let r = try shell(
            #"cd "\#(dir)" && trap '' INT && exec "$SWEEP" render before.png after.png -o out.gif --size 800x600 --fps 30 --quiet"#,
            signalAfter: 0.5)
        #expect(r.code == 0, "\(r)")
        #expect(FileManager.default.fileExists(atPath: dir + "/out.gif"))
        // Not ignored, the same SIGINT stops it with 130 and nothing left behind.
        let stopped = try shell(
            #"cd "\#(dir)" && exec "$SWEEP" render before.png after.png -o out2.gif --size 1200x900 --fps 50 --duration 8 --quiet"#,
            signalAfter: 0.5)
        #expect(stopped.code == 130, "\(stopped)")
        #expect(!listing(dir).contains { $0.contains("out2") }, "\(listing(dir))")
    }
}
