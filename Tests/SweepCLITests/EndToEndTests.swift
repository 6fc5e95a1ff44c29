import Foundation
import Testing
import SweepGIF

/// The built `sweep` binary.
func sweepBinary() throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let candidates = [".build/debug/sweep", ".build/release/sweep"].map { root.appendingPathComponent($0).path }
    guard let exe = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw CocoaError(.fileNoSuchFile)
    }
    return exe
}

/// Runs the built `sweep` binary, as a user would.
func runSweep(_ args: [String], environment: [String: String]? = nil) throws -> (code: Int32, stdout: String, stderr: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: try sweepBinary())
    if let environment { p.environment = environment }
    p.arguments = args
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

func scratchDir() throws -> String {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-e2e-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    return d
}

@Suite("The sweep binary", .serialized)
struct EndToEndTests {
    @Test("demo writes a looping GIF and an H.264 MP4")
    func demo() throws {
        let dir = try scratchDir()
        let r = try runSweep(["demo", "-o", dir, "--size", "180x240", "--fps", "10", "--quiet"])
        #expect(r.code == 0)
        let g = try GIFReader(path: dir + "/demo.gif")
        #expect(g.loopCount == 0 && g.width == 180 && g.height == 240)
        #expect(g.delays.reduce(0, +) == 440)
        #expect(FileManager.default.fileExists(atPath: dir + "/demo.mp4"))
    }

    @Test("render and preview from image files; --json summary")
    func renderFiles() throws {
        let dir = try scratchDir()
        #expect(try runSweep(["preview", "--size", "64x48", "-o", dir + "/a.png", "--position", "0", "--no-labels"]).code == 64)
        // Make inputs with the tool itself: two previews of the demo are real PNG files.
        _ = try runSweep(["demo", "-o", dir, "--size", "120x90", "--fps", "5", "--quiet"])
        let r = try runSweep(["render", dir + "/missing.png", dir + "/missing2.png", "-o", dir + "/x.gif"])
        #expect(r.code == 66)
        #expect(r.stderr.contains("missing.png") && r.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.gif"))
    }

    @Test("Bad input: not an image, unknown extension, malformed size")
    func badInput() throws {
        let dir = try scratchDir()
        let txt = dir + "/notes.jpg"
        FileManager.default.createFile(atPath: txt, contents: Data("not a picture".utf8))
        let notImage = try runSweep(["render", txt, txt, "-o", dir + "/o.gif"])
        #expect(notImage.code == 65 && notImage.stderr.contains("notes.jpg"))
        let ext = try runSweep(["render", txt, txt, "-o", dir + "/o.avi"])
        #expect(ext.code == 64 && ext.stderr.contains(".avi"))
        let size = try runSweep(["render", txt, txt, "-o", dir + "/o.gif", "--size", "big"])
        #expect(size.code == 64 && size.stderr.contains("--size"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["notes.jpg"])
    }

    @Test("--version and --help")
    func meta() throws {
        #expect(try runSweep(["--version"]).stdout.hasPrefix("sweep "))
        let h = try runSweep(["render", "--help"])
        #expect(h.code == 0 && h.stdout.contains("sweep render BEFORE"))
        let u = try runSweep(["rendr"])
        #expect(u.code == 64 && u.stderr.contains("did you mean render?"))
    }
}
