import Foundation
import SweepGIF
import SweepImaging
import SweepKit
import SweepMedia
import SweepTestSupport
import Synchronization
import Testing

// Serialized: a test checks that the temporary folder holds no render folder of SweepKit's,
// which another test of the suite running beside it would have.
@Suite("The Swift API", .serialized)
struct ReadmeExampleTests {
    let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/fixtures/photos")
        .standardized.path
    let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The example region of GettingStartedExample.swift.
    func example() throws -> String {
        let source = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("GettingStartedExample.swift"),
            encoding: .utf8)
        let begin = try #require(source.range(of: "// GETTING-STARTED-BEGIN\n")).upperBound
        let end = try #require(source.range(of: "// GETTING-STARTED-END")).lowerBound
        return String(source[begin..<end])
    }

    @Test("The README and the DocC article show the example the tests compile and run, word for word")
    func documentsMatch() throws {
        let example = try example()
        let readme = try String(contentsOf: repo.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("import SweepKit\n\n" + example))
        let article = try String(
            contentsOf: repo.appendingPathComponent("Sources/SweepKit/SweepKit.docc/GettingStarted.md"), encoding: .utf8)
        #expect(article.contains("import SweepKit\n\n" + example))
    }

    /// The demo's two pictures in a fresh folder.
    func pictures() throws -> (URL, URL) {
        let before = URL(fileURLWithPath: Scratch.path("before.png"))
        let after = URL(fileURLWithPath: Scratch.path("after.png"))
        try StillEncoder.write(DemoScenes.flatLandscape(), to: before.path, format: .png)
        try StillEncoder.write(DemoScenes.gradedLandscape(), to: after.path, format: .png)
        return (before, after)
    }

    @Test("The example renders a real comparison, a still in memory, and streams frames")
    func runs() async throws {
        let (before, after) = try pictures()
        let out = URL(fileURLWithPath: Scratch.path("reveal.gif"))
        let r = try await makeReveal(before: before, after: after, output: out)
        #expect(r.width == 720 && r.height == 720 && r.frames == 90)
        #expect(try GIFReader(path: out.path).delays.reduce(0, +) == 300)
        let png = try await linkPreview(before: before, after: after)
        let still = try ImageDecoder.decode(bytes: [UInt8](png), name: "preview")
        #expect(still.width == 1200 && still.height == 630)
        let means = try averageBrightness(of: before)
        #expect(means.count == 40 && Set(means.map { Int($0) }).count > 1)
    }

    @Test("A cancelled render stops, throws CancellationError, and leaves nothing; an older file survives")
    func cancels() async throws {
        let (before, after) = try pictures()
        let folder = try Scratch.folder("cancel")
        let out = URL(fileURLWithPath: folder + "/slow.mp4")
        try Data("older".utf8).write(to: out)
        // Cancelled from the progress callback once three frames are out, of 3 600, so the
        // test does not depend on how soon a polling task gets a thread: the render must stop
        // within its pipeline's depth of frames after the cancel.
        typealias Render = Task<RenderResult, any Error>
        final class Seen: Sendable {
            let frames = Mutex(0)
            let cancelledAt = Mutex<Int?>(nil)
            let task = Mutex<Render?>(nil)
        }
        let seen = Seen()
        await #expect(throws: CancellationError.self) {
            var slow = Comparison(before: before, after: after)
            slow.size = .exact(width: 1920, height: 1080)
            slow.animation = Comparison.sweep(duration: 120)
            let render = Render {
                try await slow.render(
                    to: out,
                    progress: { p in
                        seen.frames.withLock { $0 = max($0, p.done) }
                        guard p.done >= 3, seen.cancelledAt.withLock({ $0 }) == nil, let task = seen.task.withLock({ $0 }) else { return }
                        seen.cancelledAt.withLock { $0 = p.done }
                        task.cancel()
                    })
            }
            seen.task.withLock { $0 = render }
            _ = try await render.value
        }
        let cancelledAt = try #require(seen.cancelledAt.withLock { $0 })
        #expect(seen.frames.withLock { $0 } - cancelledAt <= 8)
        #expect(try Data(contentsOf: out) == Data("older".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["slow.mp4"])
        // A task cancelled before it starts does no work at all.
        let never = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Comparison(before: before, after: after).render(to: URL(fileURLWithPath: folder + "/never.gif"))
        }
        await #expect(throws: CancellationError.self) { _ = try await never.value }
        #expect(!FileManager.default.fileExists(atPath: folder + "/never.gif"))
    }

    @Test("Settings as properties: size by one side, GIF quality and colours, a video's CRF, a size cap; bytes in memory")
    func settings() async throws {
        let (before, after) = try pictures()
        var c = Comparison(before: before, after: after)
        c.size = .height(120)
        #expect(c.size == .height(120))
        c.fps = 10
        c.animation = Comparison.sweep(duration: 1, hold: 0)
        let full = try await c.data(as: "gif")
        c.gif = GIFSettings(quality: 40, colors: 32)
        let small = try await c.data(as: "gif")
        let file = Scratch.path("small.gif")
        try small.write(to: URL(fileURLWithPath: file))
        let reader = try GIFReader(path: file)
        let scene = try DemoScenes.flatLandscape()
        #expect(reader.height == 120 && abs(reader.width - 120 * scene.width / scene.height) <= 1 && small.count < full.count)
        c.video.crf = 40
        let coarse = try await c.data(as: "mp4")
        c.video.crf = 18
        let fine = try await c.data(as: "mp4")
        #expect(coarse.count < fine.count && c.video.crf == 18)
        c.maxBytes = small.count
        c.gif = GIFSettings()
        let capped = try await c.data(as: "gif")
        #expect(capped.count <= small.count)
        await #expect(throws: SweepError.self) { _ = try await c.data(as: "../x") }
        // Nothing is left in the temporary folder.
        let left = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("sweepkit-") }
        #expect(left.isEmpty)
    }
}
