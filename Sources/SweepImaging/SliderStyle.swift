/// The look of the comparison slider, in points (docs/REFERENCE.md §look).
///
/// Every size is in points; ``resolvedScale(width:height:)`` converts points to pixels.
/// The defaults reproduce the seed component.
public struct SliderStyle: Sendable, Equatable {
    /// Which way the split runs.
    public enum Orientation: String, Sendable, Codable, CaseIterable {
        /// The split line is vertical and moves left–right (the default).
        case horizontal
        /// The split line is horizontal and moves up–down; before is on top.
        case vertical
    }

    /// Which way the split runs.
    public var orientation: Orientation = .horizontal
    /// Right-to-left layout: before on the right, mirrored tags.
    public var rightToLeft = false
    /// Points-to-pixels factor; `nil` means shorter output side / 390 (a phone-screen look).
    public var uiScale: Double?

    /// Anti-alias the split edge (the boundary pixel mixes both sides). Off, the edge lands
    /// on whole pixels: a plain wipe, as FFmpeg's xfade draws it, with no blended colours.
    public var smoothEdge = true

    /// Draw the divider line and the knob.
    public var showHandle = true
    /// Divider width in points.
    public var dividerWidth = 3.0
    /// Divider colour.
    public var dividerColor = RGBA8.white
    /// Knob diameter in points.
    public var knobDiameter = 44.0
    /// Knob fill colour.
    public var knobColor = RGBA8.white
    /// Shadow under the knob: colour with its opacity, blur radius and downward offset.
    public var shadowColor = RGBA8(r: 0, g: 0, b: 0, a: 77)
    /// Shadow blur radius in points (Gaussian σ is half of it).
    public var shadowRadius = 6.0
    /// Shadow offset downwards in points.
    public var shadowOffset = 2.0
    /// The double-arrow glyph: colour (black at 70 %) and size (body text, 17 pt).
    public var glyphColor = RGBA8(r: 0, g: 0, b: 0, a: 179)
    /// Glyph size in points.
    public var glyphSize = 17.0

    /// Draw the Before/After tags.
    public var showLabels = true
    /// Text of the before tag (any Unicode; empty hides it).
    public var beforeLabel = "Before"
    /// Text of the after tag (any Unicode; empty hides it).
    public var afterLabel = "After"
    /// A fontconfig family list, e.g. "Sans" or "Noto Sans, Noto Sans CJK JP".
    public var labelFont = "Sans"
    /// Tag text size in points.
    public var labelSize = 12.0
    /// Pango weight (400 regular, 600 semibold, 700 bold).
    public var labelWeight = 600
    /// Tag text colour.
    public var labelColor = RGBA8.white
    /// Tag capsule colour (black at 50 %).
    public var capsuleColor = RGBA8(r: 0, g: 0, b: 0, a: 128)
    /// Capsule padding left and right, in points.
    public var labelPaddingX = 10.0
    /// Capsule padding above and below, in points.
    public var labelPaddingY = 5.0
    /// Tag inset from the frame edges, in points.
    public var labelInset = 12.0

    /// Rounded corners of the whole frame (0 = square). The seed uses 24 pt.
    public var cornerRadius = 0.0
    /// Colour outside rounded corners and behind letterboxing.
    public var background = RGBA8.black

    /// The seed component's look.
    public init() {}

    /// Pixels per point for an output of the given size.
    public func resolvedScale(width: Int, height: Int) -> Double {
        uiScale ?? Double(min(width, height)) / 390
    }

    /// The characters of the labels no installed font can draw (they would show as boxes),
    /// each once; empty means every label renders (Pango falls back across fonts for scripts
    /// and emoji the main font lacks).
    ///
    /// - Throws: `.internalError` when Cairo or Pango cannot be set up.
    public func missingLabelCharacters() throws -> [Character] {
        guard showLabels else { return [] }
        let canvas = try CairoCanvas(width: 1, height: 1)
        var seen = Set<Character>(), missing: [Character] = []
        for c in beforeLabel + afterLabel where !c.isWhitespace && seen.insert(c).inserted {
            if try canvas.unknownGlyphs(String(c), font: labelFont, weight: labelWeight) > 0 { missing.append(c) }
        }
        return missing
    }
}
