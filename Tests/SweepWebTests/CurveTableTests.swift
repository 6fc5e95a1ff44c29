import Foundation
import SweepTimeline
import Testing

@testable import SweepWeb

/// The curve table the browser test checks the element's JavaScript against
/// (Tests/browser/curve_table.json): Swift's values for Bézier curves and springs.
///
/// Both sides are checked against the same committed numbers. Set SWEEP_WRITE_CURVE_TABLE=1
/// to write the file afresh from Swift (a deliberate re-recording).
@Suite("Curve table shared with the browser test")
struct CurveTableTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("browser/curve_table.json")

    static let curves: [(Curve, Double)] = [
        (.easeInOut, 1), (.timingCurve(0.25, 0.1, 0.25, 1), 1), (.easeIn, 1), (.easeOut, 1), (.linear, 1),
        (.timingCurve(0.68, -0.6, 0.32, 1.6), 2), (.spring(Spring()), 2), (.smooth, 2), (.snappy, 2), (.bouncy, 2),
        (.spring(Spring(duration: 0.5, bounce: -0.4)), 2), (.spring(Spring(response: 0.3, dampingFraction: 1)), 2),
    ]
    static let fractions = [0.05, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 0.99]

    /// The table as JSON text: each curve's description, segment length and
    /// (elapsed, progress) samples; each spring's settling time.
    static func table() -> String {
        let n = HTMLText.jsonNumber
        let rows = curves.map { curve, d in
            let samples = fractions.map { f in "[\(n(f * d)),\(n(curve.progress(elapsed: f * d, duration: d)))]" }
            return "{\"curve\":\(TimelineJSON.curve(curve)),\"duration\":\(n(d)),\"samples\":[\(samples.joined(separator: ","))]}"
        }
        let settles = curves.compactMap { c, _ -> String? in
            guard case let .spring(s) = c else { return nil }
            return "[\(n(s.omega)),\(n(s.zeta)),\(n(s.settlingDuration))]"
        }
        return "{\"curves\":[\n" + rows.joined(separator: ",\n") + "\n],\"settle\":[" + settles.joined(separator: ",") + "]}\n"
    }

    @Test("The committed table is Swift's values (DESIGN §5 check values included)")
    func table() throws {
        if ProcessInfo.processInfo.environment["SWEEP_WRITE_CURVE_TABLE"] == "1" {
            try Self.table().write(to: Self.file, atomically: true, encoding: .utf8)
        }
        let text = try String(contentsOf: Self.file, encoding: .utf8)
        #expect(text == Self.table())
        #expect(abs(Curve.easeInOut.progress(elapsed: 0.25, duration: 1) - 0.129162) < 1e-6)
        #expect(abs(Curve.easeInOut.progress(elapsed: 0.75, duration: 1) - 0.870838) < 1e-6)
        #expect(abs(Curve.timingCurve(0.25, 0.1, 0.25, 1).progress(elapsed: 0.5, duration: 1) - 0.802403) < 1e-6)
    }
}
