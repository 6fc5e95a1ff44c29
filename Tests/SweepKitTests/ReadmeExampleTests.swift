import Foundation
import SweepGIF
import SweepKit
import SweepMedia
import SweepTestSupport
import Testing

// The README shows `import SweepKit`, then this region.
// README-EXAMPLE-BEGIN
func makeReveal(before: String, after: String, output: String) throws -> RenderResult {
    var comparison = Comparison(before: before, after: after)
    comparison.size = (720, 720)
    comparison.animation = Comparison.sweep(from: 1, to: 0, duration: 3, curve: .easeInOut)
    comparison.style.beforeLabel = "Antes"
    comparison.style.afterLabel = "Después"
    return try comparison.render(to: output)
}

func averageBrightness(of photo: String) throws -> [Double] {
    var comparison = Comparison(photo: photo, look: .noir)
    comparison.size = (160, 120)
    comparison.fps = 10
    var means: [Double] = []
    try comparison.frames { _, frame in
        means.append(Double(frame.pixels.reduce(0) { $0 + Int($1) }) / Double(frame.pixels.count))
    }
    return means
}
// README-EXAMPLE-END

@Suite("The Swift API")
struct ReadmeExampleTests {
    let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/fixtures/photos")
        .standardized.path
    let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("The README's example is this file's example, word for word")
    func readmeMatches() throws {
        let readme = try String(contentsOf: repo.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = source.range(of: "// README-EXAMPLE-BEGIN\n")!.upperBound
        let end = source.range(of: "// README-EXAMPLE-END")!.lowerBound
        #expect(readme.contains("import SweepKit\n\n" + String(source[begin..<end])))
    }

    @Test("The example renders a real comparison and streams frames")
    func runs() throws {
        let before = Scratch.path("before.png")
        let after = Scratch.path("after.png")
        try StillEncoder.write(DemoScenes.flatLandscape(), to: before, format: .png)
        try StillEncoder.write(DemoScenes.gradedLandscape(), to: after, format: .png)
        let out = Scratch.path("reveal.gif")
        let r = try makeReveal(before: before, after: after, output: out)
        #expect(r.width == 720 && r.frames == 90)
        #expect(try GIFReader(path: out).delays.reduce(0, +) == 300)
        let means = try averageBrightness(of: before)
        #expect(means.count == 40 && Set(means.map { Int($0) }).count > 1)
    }
}
