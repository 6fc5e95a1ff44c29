import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTimeline
import Synchronization
import Testing

@testable import SweepPipeline

private func folder(_ name: String) throws -> String {
    let dir = tempPath(name)
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

private func listing(_ dir: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
}

@Suite("Frame sinks: nothing appears until the whole output is good", .serialized)
struct FrameSinkTests {
    @Test("A PNG sequence over the byte limit writes nothing and keeps the older sequence")
    func cappedSequence() throws {
        let dir = try folder("capped-seq")
        for i in 0..<3 {
            _ = FileManager.default.createFile(atPath: dir + String(format: "/f-%04d.png", i), contents: Data("old \(i)".utf8))
        }
        // A file literally named like the pattern is the user's, not ours to remove.
        _ = FileManager.default.createFile(atPath: dir + "/f-%04d.png", contents: Data("literal".utf8))
        var spec = sweepSpec()
        spec.maxBytes = 2000
        #expect(throws: SweepError.self) { try Renderer.render(spec, to: dir + "/f-%04d.png") }
        #expect(try listing(dir) == ["f-%04d.png", "f-0000.png", "f-0001.png", "f-0002.png"])
        #expect(FileManager.default.contents(atPath: dir + "/f-0001.png") == Data("old 1".utf8))
        #expect(FileManager.default.contents(atPath: dir + "/f-%04d.png") == Data("literal".utf8))
    }

    @Test("A finished sequence replaces an older, longer one whole: no stale frames play on")
    func staleFrames() throws {
        let dir = try folder("stale-seq")
        let older = try Renderer.render(sweepSpec(hold: 1, duration: 4), to: dir + "/f-%03d.png")
        let spec = sweepSpec()
        let r = try Renderer.render(spec, to: dir + "/f-%03d.png")
        #expect(r.frames < older.frames)
        #expect(try listing(dir) == [".f-%03d.png.sweep"] + (0..<r.frames).map { String(format: "f-%03d.png", $0) })
        let source = try FrameSource(spec: spec)
        let last = r.frames - 1
        #expect(
            try ImageDecoder.decode(path: dir + String(format: "/f-%03d.png", last))
                == source.render(spec.animation.state(ofFrame: last, fps: spec.fps)))
    }

    @Test("While a sequence renders, its frames sit in a hidden folder that a signal would remove")
    func sequenceStaging() throws {
        let dir = try folder("staging-seq")
        let seen = Seen()
        _ = try Renderer.render(sweepSpec(), to: dir + "/f-%02d.png") { _ in
            let hidden = (try? listing(dir))?.filter { $0.hasPrefix(".") } ?? []
            seen.record(hidden.count == 1 && TempFileRegistry.shared.isRegistered(dir + "/" + hidden[0]))
            seen.record((try? listing(dir))?.contains { $0.hasPrefix("f-") } == false)
        }
        #expect(seen.all && seen.count > 0)
        #expect(try listing(dir).filter { $0.hasPrefix(".") } == [".f-%02d.png.sweep"])  // only the record of what sweep wrote
    }

    @Test("Every attempt of a size cap is a registered temporary file", arguments: ["gif", "mp4"])
    func capAttemptsRegistered(ext: String) throws {
        let dir = try folder("cap-attempts")
        var spec = sweepSpec()
        spec.before = .image(try DemoScenes.flatLandscape())
        spec.after = .image(try DemoScenes.gradedLandscape())
        (spec.width, spec.height) = (96, 128)
        let free = try Renderer.render(spec, to: dir + "/free.\(ext)")
        spec.maxBytes = free.bytes * 3 / 4
        let seen = Seen()
        let out = dir + "/capped.\(ext)"
        let r = try Renderer.render(spec, to: out) { _ in
            let hidden = (try? listing(dir))?.filter { $0.hasPrefix(".") } ?? []
            seen.record(!hidden.isEmpty && hidden.allSatisfy { TempFileRegistry.shared.isRegistered(dir + "/" + $0) })
        }
        #expect(r.notes.contains { $0.contains("to fit under") })
        #expect(seen.all && seen.count > 0)
        #expect(try listing(dir) == ["capped.\(ext)", "free.\(ext)"])
    }

    @Test("A still goes through its sink: the frame at the asked position, refused whole over a byte limit")
    func still() throws {
        let dir = try folder("still")
        let spec = sweepSpec()
        let out = dir + "/one.png"
        let r = try Renderer.preview(spec, position: 0.3, to: out)
        #expect(r.frames == 1 && r.framesWritten == 1 && r.format == "png")
        let s0 = spec.animation.state(at: 0)
        let expected = try FrameSource(spec: spec).render(FrameState(position: 0.3, before: s0.before, after: s0.after))
        #expect(try ImageDecoder.decode(path: out) == expected)
        _ = FileManager.default.createFile(atPath: dir + "/keep.png", contents: Data("precious".utf8))
        #expect(throws: SweepError.self) { try Renderer.preview(spec, position: 0.3, to: dir + "/keep.png", maxBytes: 100) }
        #expect(FileManager.default.contents(atPath: dir + "/keep.png") == Data("precious".utf8))
        #expect(try listing(dir) == ["keep.png", "one.png"])
    }

    @Test(
        "Frame patterns with other conversions are refused, not formatted",
        arguments: [
            "f-%s.png", "f-%d-%d.png", "f-%n.png", "out%d/f.png", "f-%.png", "f-%x.png",
        ])
    func badPatterns(pattern: String) throws {
        let dir = try folder("patterns")
        #expect(throws: SweepError.self) { try Renderer.render(sweepSpec(), to: dir + "/" + pattern) }
        #expect(try listing(dir).isEmpty)
    }

    @Test("A literal %% in a frame pattern is kept")
    func literalPercent() throws {
        let dir = try folder("percent")
        let r = try Renderer.render(sweepSpec(hold: 0, duration: 0.1), to: dir + "/100%%-%02d.png")
        #expect(try listing(dir).filter { !$0.hasPrefix(".") } == (0..<r.frames).map { String(format: "100%%-%02d.png", $0) })
    }
}

/// Observations made on the render's thread, read after it.
final class Seen: Sendable {
    private let state = Mutex((all: true, count: 0))
    var all: Bool { state.withLock { $0.all } }
    var count: Int { state.withLock { $0.count } }
    func record(_ ok: Bool) {
        state.withLock {
            $0.all = $0.all && ok; $0.count += 1
        }
    }
}
