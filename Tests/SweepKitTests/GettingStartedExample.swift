// Only what an app imports: every name below must come from SweepKit alone (the package
// builds with MemberImportVisibility, so a member of a type SweepKit does not re-export
// would not compile here). README.md and the DocC article show the region verbatim.
import Foundation
import SweepKit

// GETTING-STARTED-BEGIN
/// A 720×720 GIF of the split sweeping from before to after in 3 s, with Spanish tags.
func makeReveal(before: URL, after: URL, output: URL) async throws -> RenderResult {
    var comparison = Comparison(before: before, after: after)
    comparison.size = .exact(width: 720, height: 720)
    comparison.animation = Comparison.sweep(from: 1, to: 0, duration: 3, curve: .easeInOut)
    comparison.style.beforeLabel = "Antes"
    comparison.style.afterLabel = "Después"
    comparison.gif.quality = 80
    return try await comparison.render(to: output)
}

/// An og:image for a web page: a 1200×630 PNG still with the split in the middle, in memory.
func linkPreview(before: URL, after: URL) async throws -> Data {
    var comparison = Comparison(before: before, after: after)
    comparison.size = .exact(width: 1200, height: 630)
    return try await comparison.stillData(at: 0.5, as: "png")
}

/// The mean brightness of each frame of a photo fading into its noir look.
func averageBrightness(of photo: URL) throws -> [Double] {
    var comparison = Comparison(photo: photo, look: .noir)
    comparison.size = .width(160)
    comparison.fps = 10
    var means: [Double] = []
    try comparison.frames { _, frame in
        means.append(Double(frame.pixels.reduce(0) { $0 + Int($1) }) / Double(frame.pixels.count))
    }
    return means
}

/// The same reveal, cancelled when it takes longer than `seconds`: nothing is left at `output`.
func reveal(before: URL, after: URL, output: URL, within seconds: Double) async throws -> RenderResult {
    let render = Task { try await Comparison(before: before, after: after).render(to: output) }
    let timeout = Task {
        try await Task.sleep(for: .seconds(seconds))
        render.cancel()
    }
    defer { timeout.cancel() }
    return try await render.value
}
// GETTING-STARTED-END
