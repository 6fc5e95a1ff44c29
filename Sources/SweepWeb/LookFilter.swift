import SweepImaging

/// A side's look as an SVG `feColorMatrix`: the same 3×4 affine map as
/// ``Adjustments/matrix`` (DESIGN §4), offsets in the fifth column.
///
/// The filter runs with `color-interpolation-filters="sRGB"` because the maths is defined
/// on gamma-encoded sRGB; SVG's default (linearRGB) would apply it to linear light.
package enum LookFilter {
    /// The 20 `values` of `<feColorMatrix type="matrix">`: rows R, G, B, A of
    /// `[m0 m1 m2 0 offset]`, alpha passed through.
    package static func values(_ look: Adjustments) -> [Double] {
        let m = look.matrix
        var v: [Double] = []
        for row in 0..<3 {
            v += [m.m[row * 3], m.m[row * 3 + 1], m.m[row * 3 + 2], 0, m.offset[row]]
        }
        return v + [0, 0, 0, 1, 0]
    }

    /// ``values(_:)`` as the attribute text, each number written so that it reads back exactly.
    package static func attribute(_ look: Adjustments) -> String {
        values(look).map { HTMLText.jsonNumber($0) }.joined(separator: " ")
    }

    /// The `<filter>` element for one side (`before` or `after`); the element's script
    /// gives it an id and points the side's image at it.
    static func element(side: String, look: Adjustments) -> String {
        "<filter data-side=\"\(side)\" color-interpolation-filters=\"sRGB\">"
            + "<feColorMatrix type=\"matrix\" values=\"\(attribute(look))\"/></filter>"
    }
}
