import Foundation
import Testing

@testable import SweepPipeline

/// A PNG sequence's pattern as the set of file names it writes.
@Suite("Frame patterns")
struct FramePatternTests {
    @Test("Names are printf's, and a name maps back to its frame only when printf would write it")
    func names() throws {
        for spelling in ["f-%04d.png", "f-%d.png", "f-%3d.png", "100%%-%02d.png"] {
            let p = try #require(FramePattern("/tmp/" + spelling))
            for i in [0, 7, 42, 999, 12345, 99_999] {
                #expect(p.name(i) == String(format: spelling, i))
                #expect(p.index(of: String(format: spelling, i)) == i)
            }
        }
        let p = try #require(FramePattern("out/f-%04d.png"))
        for name in ["f-012.png", "f-00012.png", "f-0012.PNG", "g-0012.png", "f-+012.png", "f-100000.png", "f-.png"] {
            #expect(p.index(of: name) == nil, "\(name)")
        }
        for bad in ["f-%s.png", "f-%d-%d.png", "f-%.png", "out%d/f.png", "f.png", "f-%123d.png"] {
            #expect(FramePattern(bad) == nil, "\(bad)")
        }
    }

    @Test(
        "Two patterns overlap exactly when some frame name is both's",
        arguments: [
            ("f%d.png", "f1%d.png", true),  // f12.png
            ("g-%d.png", "g-%01d.png", true),  // the same names, spelled twice
            ("f%04d.png", "f%d.png", true),  // f1000.png
            ("f1x%d.png", "f%dx1.png", true),  // f1x1.png
            ("s%3d.png", "s %d.png", true),  // "s 10.png"
            ("s%3d.png", "s%03d.png", true),  // s100.png
            ("a%d.png", "b%d.png", false),
            ("f%d.png", "f%dx.png", false),  // a frame number never ends in x
            ("f%d.png", "f%d.PNG", false),
            ("f%02d.png", "f0%d.png", true),  // f01.png
            ("f%05d.png", "f%d0.png", true),  // f10000.png… as f1000 + 0
            ("f%d.png", "fa1%d.png", false),
        ])
    func overlaps(a: String, b: String, shared: Bool) throws {
        let (p, q) = (try #require(FramePattern(a)), try #require(FramePattern(b)))
        #expect(p.overlaps(q) == shared && q.overlaps(p) == shared)
        // Checked name by name, by printf, up to frame 20000.
        let names = Set((0..<20_000).map { String(format: a, $0) })
        #expect((0..<20_000).contains { names.contains(String(format: b, $0)) } == shared)
    }
}
