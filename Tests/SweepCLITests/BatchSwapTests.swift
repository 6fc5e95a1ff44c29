import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTestSupport
import SweepWorker
import Testing

@testable import SweepCLI

#if canImport(Glibc)
    import Glibc
#endif

/// A batch checks every job's paths before the first job runs; a job opens its files later.
/// A folder swapped for a link in between must change nothing: inputs and outputs are
/// opened beneath the batch's folders when the job runs (JobFolder, JobFiles).
///
/// The swap is timed without a hook: job 1 writes its GIF (larger than a pipe holds) into a
/// named pipe, so it is still running, and every job has been checked, when the test's read
/// end opens; the test swaps, then drains the pipe, and job 2 runs on the swapped paths.
@Suite("Batch paths at open time", .serialized)
struct BatchSwapTests {
    static let tiny = #""size": "32x48", "fps": 5, "duration": 0.4, "hold": 0, "no-labels": true"#

    /// in/photos/a.png (grey landscape), outside/photos/a.png (solid red), in/noise.png, out/
    /// with the named pipe out/pipe.gif, and jobs.jsonl holding job 1 (to the pipe) and `job`.
    func layout(_ job: String) throws -> (dir: String, jobs: String) {
        let dir = try scratchDir()
        for folder in ["in/photos", "outside/photos", "out", "elsewhere"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + folder, withIntermediateDirectories: true)
        }
        try StillEncoder.write(
            Resampler.resize(DemoScenes.flatLandscape(), width: 60, height: 80), to: dir + "/in/photos/a.png", format: .png)
        try StillEncoder.write(
            RGBAImage(width: 60, height: 80, fill: RGBA8(r: 255, g: 0, b: 0, a: 255)), to: dir + "/outside/photos/a.png", format: .png)
        var noise = SystemRandomNumberGenerator()
        let pixels = (0..<(400 * 400)).flatMap { _ in
            [UInt8.random(in: 0...255, using: &noise), .random(in: 0...255, using: &noise), .random(in: 0...255, using: &noise), 255]
        }
        try StillEncoder.write(RGBAImage(width: 400, height: 400, pixels: pixels), to: dir + "/in/noise.png", format: .png)
        #expect(mkfifo(dir + "/out/pipe.gif", 0o600) == 0)
        let first =
            #"{"before": "noise.png", "after": "noise.png", "output": "pipe.gif", "size": "400x400", "fps": 10, "duration": 1, "hold": 0, "no-labels": true}"#
        try (first + "\n" + job + "\n").write(toFile: dir + "/jobs.jsonl", atomically: true, encoding: .utf8)
        return (dir, dir + "/jobs.jsonl")
    }

    /// Runs the batch; `swap` runs while job 1 is writing into the pipe, after every job was
    /// checked. Returns the results by line.
    func run(_ dir: String, _ jobs: String, swap: () throws -> Void) throws -> [[String: Any]] {
        let batch = Thread {
            _ = try? BatchCommand.run(
                [jobs, "--quiet", "--in-dir", dir + "/in", "--out-dir", dir + "/out", "--jobs", "1"], environment: [:])
        }
        batch.start()
        let pipe = open(dir + "/out/pipe.gif", O_RDONLY)
        #expect(pipe >= 0)
        try swap()
        var drained = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(pipe, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            drained += n
        }
        close(pipe)
        #expect(drained > 1 << 16, "job 1's GIF must outgrow the pipe for the timing to hold: \(drained) bytes")
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: dir + "/jobs.results.jsonl") && Date() < deadline { usleep(20_000) }
        return try resultLines(dir + "/jobs.results.jsonl").sorted { ($0["line"] as! Int) < ($1["line"] as! Int) }
    }

    @Test("An input folder swapped for a link out after the check is refused when the job opens it")
    func inputSwap() throws {
        let (dir, jobs) = try layout(#"{"before": "photos/a.png", "after": "photos/a.png", "output": "a.gif", \#(Self.tiny)}"#)
        let results = try run(dir, jobs) {
            try FileManager.default.moveItem(atPath: dir + "/in/photos", toPath: dir + "/in/photos-was")
            try FileManager.default.createSymbolicLink(atPath: dir + "/in/photos", withDestinationPath: dir + "/outside/photos")
        }
        #expect(results.count == 2 && results[0]["status"] as? String == "ok", "\(results)")
        #expect(results[1]["status"] as? String == "failed" && results[1]["exit"] as? Int == 65, "\(results[1])")
        #expect((results[1]["error"] as? String)?.contains("leaves the input folder") == true, "\(results[1])")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/a.gif"))
    }

    @Test("An output folder made a link out after the check is refused; nothing is written outside")
    func outputSwap() throws {
        let (dir, jobs) = try layout(#"{"before": "photos/a.png", "output": "renders/a.gif", \#(Self.tiny)}"#)
        let results = try run(dir, jobs) {
            try FileManager.default.createSymbolicLink(atPath: dir + "/out/renders", withDestinationPath: dir + "/elsewhere")
        }
        #expect(results[1]["status"] as? String == "failed" && results[1]["exit"] as? Int == 65, "\(results[1])")
        #expect((results[1]["error"] as? String)?.contains("leaves the output folder") == true, "\(results[1])")
        #expect(listing(dir + "/elsewhere").isEmpty, "\(listing(dir + "/elsewhere"))")
    }

    @Test("A link that stays inside the folders is followed; the job reads and writes through the held folders")
    func linkInside() throws {
        // With a size cap, whose best attempt waits in a hidden stage beside the output.
        let (dir, jobs) = try layout(#"{"before": "alias/a.png", "output": "renders/deep/a.gif", "max-bytes": "1MB", \#(Self.tiny)}"#)
        let results = try run(dir, jobs) {
            try FileManager.default.createSymbolicLink(atPath: dir + "/in/alias", withDestinationPath: "photos")
        }
        #expect(results[1]["status"] as? String == "ok", "\(results[1])")
        let gif = try GIFReader(path: dir + "/out/renders/deep/a.gif")
        let pixel = try #require(gif.frames.first)[16, 4]
        #expect(pixel.g > 60 && abs(Int(pixel.r) - Int(pixel.g)) < 40, "the grey landscape, not the red decoy: \(pixel)")
        #expect(FileManager.default.fileExists(atPath: dir + "/out/renders/deep/a.gif.sweep.json"))
        #expect(listing(dir + "/out/renders/deep") == ["a.gif", "a.gif.sweep.json"], "no stage or temporary file is left")
    }

    @Test("A held file is what every reader gets, the decode worker included, whatever its path names since")
    func heldFile() throws {
        let dir = try scratchDir()
        try StillEncoder.write(
            RGBAImage(width: 8, height: 8, fill: RGBA8(r: 128, g: 128, b: 128, a: 255)), to: dir + "/a.png", format: .png)
        try StillEncoder.write(RGBAImage(width: 8, height: 8, fill: RGBA8(r: 255, g: 0, b: 0, a: 255)), to: dir + "/red.png", format: .png)
        let folder = try #require(ConfinedFolder(path: dir))
        let fd = folder.openPathOnly("a.png")
        try #require(fd >= 0)
        OpenedFiles.shared.hold(fd, for: dir + "/a.png", isFolder: false)
        defer { OpenedFiles.shared.release(dir + "/a.png") }
        #expect(rename(dir + "/red.png", dir + "/a.png") == 0)
        let decoded = try DecodeWorker.load(
            dir + "/a.png", maxPixels: 1 << 20, background: RGBA8(r: 0, g: 0, b: 0, a: 255), hdr: .tonemap, firstFrame: true)
        guard case let .image(image, _) = decoded else {
            Issue.record("not a still: \(decoded)")
            return
        }
        #expect(image[4, 4] == RGBA8(r: 128, g: 128, b: 128, a: 255), "the worker decoded \(image[4, 4])")
        let inProcess = try ImageDecoder.decode(
            path: dir + "/a.png", background: RGBA8(r: 0, g: 0, b: 0, a: 255), maxPixels: 1 << 20, hdr: .tonemap)
        #expect(inProcess[4, 4] == RGBA8(r: 128, g: 128, b: 128, a: 255))
        // The folder's own name for a file opened beneath it is refused when it leaves.
        #expect(symlink("/etc", dir + "/etc") == 0)
        #expect(folder.openPathOnly("etc/hostname") < 0 && errno == EXDEV)
        #expect(folder.openPathOnly("../x") < 0 && errno == EXDEV)
    }
}
