/// Where the split and each part of the slider's overlay fall for one split position.
///
/// Computed once per frame by ``SliderOverlay/layout(position:)`` and painted by each pixel
/// format's painter: ``SliderOverlay`` on RGBA frames, ``YUVCompositor`` on Y′CbCr 4:2:0
/// frames. The rules (sub-pixel edge, divider span, knob phase, tag fades) live here only,
/// so a video shows what the PNG frames of the same render show.
package struct OverlayLayout: Sendable, Equatable {
    /// The split edge along the travel axis, in pixels from the top-left; whole pixels
    /// when the style asks for a hard edge.
    package let edge: Double
    /// The before image lies before the edge (false when right-to-left).
    package let beforeFirst: Bool
    /// The split travels top to bottom.
    package let vertical: Bool
    /// Lines along the travel axis wholly before the edge; the next line is mixed.
    package let wholeLines: Int
    /// The share of line `wholeLines` that shows the first image, in 1/256 (0…256).
    package let edgeCoverage: Int
    /// The divider's extent along the travel axis, in pixels, or nil without a handle.
    package let divider: ClosedRange<Double>?
    /// The knob: which pre-drawn sub-pixel phase, and its sprite's top-left corner.
    package let knob: (phase: Int, x: Int, y: Int)?
    /// Opacity of the before tag: `min(p / 0.25, 1)`, scaled by the tag opacity.
    package let beforeTagOpacity: Double
    /// Opacity of the after tag: `min((1 − p) / 0.25, 1)`, scaled by the tag opacity.
    package let afterTagOpacity: Double

    package static func == (a: OverlayLayout, b: OverlayLayout) -> Bool {
        a.edge == b.edge && a.beforeFirst == b.beforeFirst && a.vertical == b.vertical && a.divider == b.divider
            && a.knob?.phase == b.knob?.phase && a.knob?.x == b.knob?.x && a.knob?.y == b.knob?.y
            && a.beforeTagOpacity == b.beforeTagOpacity && a.afterTagOpacity == b.afterTagOpacity
    }

    /// How much of line `i` along the travel axis the first image covers, in 1/256.
    @inline(__always)
    package func splitCoverage(_ i: Int) -> Int { i < wholeLines ? 256 : (i == wholeLines ? edgeCoverage : 0) }

    /// The divider's coverage of line `i` along the travel axis, 0…1 (anti-aliased by area).
    @inline(__always)
    package func dividerCoverage(_ i: Int) -> Double {
        guard let d = divider else { return 0 }
        return max(0, min(Double(i + 1), d.upperBound) - max(Double(i), d.lowerBound))
    }

    /// The first and last lines the divider touches, clipped to `extent`, or nil.
    package func dividerLines(extent: Int) -> ClosedRange<Int>? {
        guard let d = divider else { return nil }
        let first = max(0, Int(d.lowerBound.rounded(.down))), last = min(extent - 1, Int(d.upperBound.rounded(.up)) - 1)
        return first <= last ? first...last : nil
    }
}
