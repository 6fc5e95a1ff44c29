import SweepImaging
import SweepTimeline

/// A self-contained interactive comparison: the `<sweep-compare>` element with both side
/// images inline, its script and style, and the animation to autoplay.
///
/// Built from a plain description (encoded images, size, look, timeline) so that it knows
/// nothing of decoding or files; ``html()`` gives a whole page, ``fragment()`` the part to
/// paste into an existing one.
package struct ComparisonPage: Sendable {
    /// The comparison's size in CSS pixels (the renderer's output size).
    package var width: Int
    package var height: Int
    /// The sides at `width`×`height`, without overlay or look.
    package var before: WebImage
    package var after: WebImage
    /// The sides at twice the size, for high-density screens (`srcset … 2x`).
    package var beforeRetina: WebImage?
    package var afterRetina: WebImage?
    /// The slider's look.
    package var style: SliderStyle
    /// The timeline as ``TimelineJSON`` (`nil`: a still slider).
    package var timeline: String?
    /// Play the timeline when the page opens (and show the pause button).
    package var autoplay = false
    /// Each side's look when the page opens, as an SVG filter; the script animates them.
    package var beforeLook = Adjustments.identity
    package var afterLook = Adjustments.identity
    /// The variant under `prefers-reduced-motion: reduce`; `.off` means `.dissolve`.
    package var reduceMotion: ReduceMotion = .off
    /// The split position to show instead of the timeline's start (required without a timeline).
    package var position: Double?
    /// Link previews, when a poster is written.
    package var preview: SocialPreview?

    /// A page for the given sides, size and look; set ``timeline`` to animate it.
    package init(width: Int, height: Int, before: WebImage, after: WebImage, style: SliderStyle) {
        self.width = width
        self.height = height
        self.before = before
        self.after = after
        self.style = style
    }

    /// What the comparison shows, for the title and the previews' alt text:
    /// "Before and after comparison".
    package var summary: String {
        let b = style.beforeLabel.isEmpty ? "Before" : style.beforeLabel
        var a = style.afterLabel.isEmpty ? "After" : style.afterLabel
        // "Before and After" reads as two proper nouns: lower a capitalised word.
        if let first = a.first, first.isUppercase, a.dropFirst().allSatisfy({ !$0.isUppercase }) {
            a = first.lowercased() + a.dropFirst()
        }
        return "\(b) and \(a) comparison"
    }

    /// The page's own layout around the element (centred, with a neutral backdrop).
    static let pageStyle =
        "html{color-scheme:light dark}body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#1d1d1f}"

    /// The whole page: a strict Content-Security-Policy (no network at all; the inline
    /// script and style allowed by their SHA-256 hashes), the previews' meta tags, the element.
    package func html() -> String {
        let css = ElementStyle.source + Self.pageStyle
        let script = ElementScript.source
        let csp =
            "default-src 'none'; img-src data:; style-src \(SHA256.cspSource(css)); "
            + "script-src \(SHA256.cspSource(script)); base-uri 'none'; form-action 'none'"
        var head = [
            "<meta charset=\"utf-8\">",
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">",
            "<meta http-equiv=\"Content-Security-Policy\" content=\"\(csp)\">",
            "<title>\(HTMLText.escape(summary))</title>",
            "<link rel=\"icon\" href=\"data:,\">",
        ]
        if let p = preview {
            let url = HTMLText.escape(p.url), alt = HTMLText.escape(p.alt)
            head += [
                "<meta property=\"og:title\" content=\"\(HTMLText.escape(summary))\">",
                "<meta property=\"og:type\" content=\"website\">",
                "<meta property=\"og:image\" content=\"\(url)\">",
                "<meta property=\"og:image:width\" content=\"\(p.width)\">",
                "<meta property=\"og:image:height\" content=\"\(p.height)\">",
                "<meta property=\"og:image:alt\" content=\"\(alt)\">",
                "<meta name=\"twitter:card\" content=\"summary_large_image\">",
                "<meta name=\"twitter:image\" content=\"\(url)\">",
                "<meta name=\"twitter:image:alt\" content=\"\(alt)\">",
            ]
        }
        return "<!doctype html>\n<html lang=\"en\">\n<head>\n" + head.joined(separator: "\n")
            + "\n<style>\(css)</style>\n</head>\n<body>\n" + element() + "\n<script>\(script)</script>\n</body>\n</html>\n"
    }

    /// The element with its style and script, to paste into an existing page (no `<html>`,
    /// no CSP: the host page's policy applies and must allow them).
    package func fragment() -> String {
        "<style>\(ElementStyle.source)</style>\n" + element() + "\n<script>\(ElementScript.source)</script>\n"
    }

    /// The `<sweep-compare>` markup: images, look filters and the configuration block.
    func element() -> String {
        let e = HTMLText.escape
        var attrs = [
            "width=\"\(width)\"", "height=\"\(height)\"",
            "before-label=\"\(e(style.beforeLabel))\"", "after-label=\"\(e(style.afterLabel))\"",
            "aria-label=\"\(e(summary))\"",
        ]
        if autoplay, timeline != nil { attrs.append("autoplay") }
        if style.orientation == .vertical { attrs.append("vertical") }
        if style.rightToLeft { attrs.append("dir=\"rtl\"") }
        if let p = position { attrs.append("position=\"\(HTMLText.jsonNumber(p))\"") }
        func img(_ side: String, _ image: WebImage, _ retina: WebImage?, _ alt: String) -> String {
            var s = "<img data-side=\"\(side)\" src=\"\(image.dataURI)\""
            // The 1x candidate is `src` itself, so the big data URI is not written twice.
            if let retina { s += " srcset=\"\(retina.dataURI) 2x\"" }
            return s + " width=\"\(width)\" height=\"\(height)\" alt=\"\(e(alt))\">"
        }
        let filters =
            "<svg class=\"sc-d\" width=\"0\" height=\"0\" aria-hidden=\"true\">"
            + LookFilter.element(side: "before", look: beforeLook) + LookFilter.element(side: "after", look: afterLook) + "</svg>"
        let config = ElementConfig.json(
            width: width, height: height, style: style, timeline: timeline,
            reduceMotion: reduceMotion)
        return "<sweep-compare \(attrs.joined(separator: " "))>\n"
            + img("before", before, beforeRetina, style.beforeLabel) + "\n"
            + img("after", after, afterRetina, style.afterLabel) + "\n"
            + filters + "\n<script type=\"application/json\">\(config)</script>\n</sweep-compare>"
    }
}
