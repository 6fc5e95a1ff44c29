import SweepImaging
import SweepTimeline

/// The animation as JSON for the page's script: keyframes and curve descriptions, not
/// samples, so the browser plays it at its own frame rate with the same maths.
///
/// ```
/// {"d": passSeconds, "l": "once"|"forever"|"boomerang"|playCount,
///  "p": [[time, position, curve], …],
///  "b": [[time, [brightness, contrast, saturation, hue], curve], …], "a": (after, the same)}
/// ```
/// A curve is `"hold"`, `[x1, y1, x2, y2]` (a cubic Bézier) or `[omega, zeta]` (a spring
/// with ω₀ and ζ as ``Spring`` stores them, so nothing is re-derived in the browser).
package enum TimelineJSON {
    /// The animation's JSON text; `adjustments` reads a look's four values (generic so that
    /// this module needs no `Interpolatable` conformance of its own for ``Adjustments``).
    package static func encode<Look>(_ animation: Animation<Look>, adjustments: (Look) -> Adjustments) -> String {
        let loop: String =
            switch animation.loop {
            case .once: "\"once\""
            case .forever: "\"forever\""
            case .boomerang: "\"boomerang\""
            case let .count(n): String(max(1, n))
            }
        let n = HTMLText.jsonNumber
        let position = animation.position.keyframes.map { "[\(n($0.time)),\(n($0.value)),\(curve($0.curve))]" }
        func looks(_ track: Track<Look>) -> String {
            "[" + track.keyframes.map { "[\(n($0.time)),\(look(adjustments($0.value))),\(curve($0.curve))]" }.joined(separator: ",") + "]"
        }
        return "{\"d\":\(n(animation.passDuration)),\"l\":\(loop),\"p\":[\(position.joined(separator: ","))],"
            + "\"b\":\(looks(animation.before)),\"a\":\(looks(animation.after))}"
    }

    /// A look as `[brightness, contrast, saturation, hue]`.
    static func look(_ a: Adjustments) -> String {
        "[" + [a.brightness, a.contrast, a.saturation, a.hue].map(HTMLText.jsonNumber).joined(separator: ",") + "]"
    }

    /// One curve description (see the type's documentation).
    package static func curve(_ c: Curve) -> String {
        let n = HTMLText.jsonNumber
        switch c {
        case .hold: return "\"hold\""
        case let .timingCurve(x1, y1, x2, y2): return "[\(n(x1)),\(n(y1)),\(n(x2)),\(n(y2))]"
        case let .spring(s): return "[\(n(s.omega)),\(n(s.zeta))]"
        }
    }
}
