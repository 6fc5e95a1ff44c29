import Foundation
import SweepImaging
import SweepTimeline
import Testing

@testable import SweepPipeline

/// The timeline table the browser test checks the element's JavaScript against
/// (Tests/browser/timeline_table.json): what Swift's `Animation.states` shows for each
/// animation preset at 41 times across one pass, with full motion, cut and dissolve.
///
/// Both sides are checked against the same committed numbers. Set SWEEP_WRITE_TIMELINE_TABLE=1
/// to write the file afresh from Swift (a deliberate re-recording).
@Suite("Timeline table shared with the browser test")
struct TimelineTableTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("browser/timeline_table.json")
    static let presets = ["reveal", "compare", "look-tour", "spring-peek"]

    static func number(_ x: Double) -> String { x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : "\(x)" }
    static func look(_ a: Adjustments) -> String {
        "[" + [a.brightness, a.contrast, a.saturation, a.hue].map(number).joined(separator: ",") + "]"
    }

    /// Per preset and mode: `[t, position, beforeLook, afterLook, crossfadePosition, crossfadeFraction]`
    /// (the last two `null` outside a dissolve).
    static func table() throws -> String {
        var out: [String] = []
        for name in presets {
            let (p, f) = try library.animationPreset(name)
            let anim = try p.animation(library: library, file: f)
            let times = (0...40).map { anim.passDuration * Double($0) / 40 }
            var modes: [String] = []
            for mode in [ReduceMotion.off, .cut, .dissolve] {  // the modes a page draws (auto resolves to one)
                let rows = zip(times, anim.states(at: times, reduceMotion: mode)).map { t, s in
                    "[\(number(t)),\(number(s.position)),\(look(s.before)),\(look(s.after)),"
                        + (s.crossfade.map { "\(number($0.position)),\(number($0.fraction))" } ?? "null,null") + "]"
                }
                modes.append("\"\(mode.rawValue)\":[\n" + rows.joined(separator: ",\n") + "]")
            }
            out.append("{\"preset\":\"\(name)\",\n" + modes.joined(separator: ",\n") + "}")
        }
        return "[" + out.joined(separator: ",\n") + "]\n"
    }

    @Test("The committed table is what Swift's timeline shows")
    func table() throws {
        if ProcessInfo.processInfo.environment["SWEEP_WRITE_TIMELINE_TABLE"] == "1" {
            try Self.table().write(to: Self.file, atomically: true, encoding: .utf8)
        }
        #expect(try String(contentsOf: Self.file, encoding: .utf8) == Self.table())
    }
}
