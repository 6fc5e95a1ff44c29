import SweepImaging
import SweepPipeline

/// A request resolved once (``RenderRequest/resolve(_:door:)``): what every door renders for
/// it. The format is applied (duration, still, extension, codec, cap, safe insets), the
/// keyframes are made from the timing as asked, the scope rule has refused or noted the
/// options that cannot act, and the poster and the page's link preview are planned.
package struct ResolvedRender: Sendable {
    /// The render, sides included.
    package var spec: RenderSpec
    /// Where it is written (with the format's extension when the request gave none).
    package var output: String
    /// What is written there.
    package var kind: OutputKind
    /// Where the split rests in a still or a poster.
    package var position: Double
    /// The poster written beside an animation, when asked.
    package var poster: String?
    /// Notes the request adds to the render's own (a format's limit dropped, an option that
    /// cannot act on this output and so is ignored, a page's relative og:image).
    package var notes: [String]

    /// True for a still (`preview`, or a still format).
    package var still: Bool { if case .still = kind { true } else { false } }
}
