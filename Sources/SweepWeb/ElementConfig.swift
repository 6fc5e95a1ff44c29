import SweepImaging
import SweepTimeline

/// The element's configuration block: the output size, the look in points with the
/// renderer's points-to-pixels scale, the timeline, and the reduced-motion choice.
///
/// Keys are short because the script reads them (it must stay small): `w`/`h` size in
/// pixels, `k` pixels per point, `sm` smooth edge, `hd`/`lb` handle/labels shown, `dw`/`dc`
/// divider width and colour, `ks`/`kc` knob size and colour, `sc`/`sr`/`so` shadow colour,
/// radius and offset, `gc`/`gs` glyph colour and size, `ls`/`lw`/`lc` label size, weight and
/// colour, `cc` capsule colour, `px`/`py` capsule padding, `li` tag inset, `cr` corner
/// radius, `bg` background, `ff` CSS font family, `rm` reduced-motion variant, `ra` reduce
/// always (the render asked for it), `t` timeline.
package enum ElementConfig {
    /// The JSON text for a `width`×`height` comparison.
    package static func json(
        width: Int, height: Int, style: SliderStyle, timeline: String?,
        reduceMotion: ReduceMotion
    ) -> String {
        let n = HTMLText.jsonNumber
        let k = style.resolvedScale(width: width, height: height)
        // The renderer puts tags on whole pixels (round(inset · scale)); the page does too.
        let inset = (style.labelInset * k).rounded() / k
        var fields: [(String, String)] = [
            ("w", String(width)), ("h", String(height)), ("k", n(k)),
            ("sm", style.smoothEdge ? "1" : "0"), ("hd", style.showHandle ? "1" : "0"), ("lb", style.showLabels ? "1" : "0"),
            ("dw", n(style.dividerWidth)), ("dc", css(style.dividerColor)),
            ("ks", n(style.knobDiameter)), ("kc", css(style.knobColor)),
            ("sc", css(style.shadowColor)), ("sr", n(style.shadowRadius)), ("so", n(style.shadowOffset)),
            ("gc", css(style.glyphColor)), ("gs", n(style.glyphSize)),
            ("ls", n(style.labelSize)), ("lw", String(style.labelWeight)), ("lc", css(style.labelColor)),
            ("cc", css(style.capsuleColor)), ("px", n(style.labelPaddingX)), ("py", n(style.labelPaddingY)),
            ("li", n(inset)), ("cr", n(style.cornerRadius)), ("bg", css(style.background)),
            ("ff", HTMLText.jsonString(HTMLText.cssFontFamily(style.labelFont))),
            // The page honours prefers-reduced-motion even when the render did not ask for it,
            // and plays the reduced variant for everyone when it did (as the GIF does).
            ("rm", HTMLText.jsonString(reduceMotion == .cut ? "cut" : "dissolve")), ("ra", reduceMotion == .off ? "0" : "1"),
        ]
        if let timeline { fields.append(("t", timeline)) }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A colour as a JSON string holding CSS `rgba(r,g,b,a)`.
    static func css(_ c: RGBA8) -> String {
        let a = (Double(c.a) / 255 * 1000).rounded() / 1000
        return "\"rgba(\(c.r),\(c.g),\(c.b),\(HTMLText.jsonNumber(a)))\""
    }
}
