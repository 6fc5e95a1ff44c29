import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

/// Issue 49's surprises, each run as the user ran it.
@Suite("Everyday use, round 2 (issue 49)")
struct EverydayRound2Tests {
    @Test("render -o x.jpg points to sweep preview, as .png does; nothing is written", arguments: ["x.jpg", "x.jpeg", "x.png"])
    func stillNameForAnimation(name: String) throws {
        let dir = try everydayInputs()
        let r = try runIn(dir, ["render", "before.png", "after.png", "-o", name])
        #expect(r.code == 64 && r.stderr.contains("sweep preview"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: dir + "/" + name))
    }

    @Test("preview --format story gives a story-sized still (a .png when the name has no extension)")
    func previewOfVideoFormat() throws {
        let dir = try everydayInputs()
        for (out, written) in [("p.png", "p.png"), ("q", "q.png"), ("r.jpg", "r.jpg")] {
            let r = try runIn(dir, ["preview", "before.png", "after.png", "-o", out, "--format", "story", "--quiet"])
            #expect(r.code == 0, "\(out): \(r.stderr)")
            let still = try ImageDecoder.decode(path: dir + "/" + written)
            #expect(still.width == 1080 && still.height == 1920, "\(out): \(still.width)x\(still.height)")
        }
    }
}
