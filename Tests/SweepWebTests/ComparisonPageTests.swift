import Foundation
import SweepImaging
import SweepTimeline
import Testing

@testable import SweepWeb

/// A small page: two 1-pixel "images" (the bytes need not decode for these checks).
func samplePage(style: SliderStyle = SliderStyle(), after look: Adjustments = .identity) -> ComparisonPage {
    var page = ComparisonPage(
        width: 320, height: 240, before: WebImage(bytes: [0xFF, 0xD8, 0xFF], mimeType: "image/jpeg"),
        after: WebImage(bytes: [0x89, 0x50, 0x4E, 0x47], mimeType: "image/png"), style: style)
    let anim = Animation<Double>(
        position: Track([
            Keyframe(time: 0, value: 1.0, curve: .hold),
            Keyframe(time: 2, value: 0.0, curve: .easeInOut),
        ]),
        before: Track(constant: 0), after: Track(constant: 0))
    page.timeline = TimelineJSON.encode(anim) { _ in look }
    page.autoplay = true
    page.afterLook = look
    return page
}

/// The text between `open` and the next `close`, for each occurrence.
func sections(_ s: String, _ open: String, _ close: String) -> [String] {
    var out: [String] = []
    var rest = s[...]
    while let a = rest.range(of: open), let b = rest[a.upperBound...].range(of: close) {
        out.append(String(rest[a.upperBound..<b.lowerBound]))
        rest = rest[b.upperBound...]
    }
    return out
}

/// The page with every data URI, CSP hash (Base64 may hold "//") and og/twitter meta tag taken out.
func withoutDataAndPreviews(_ html: String) -> String {
    var s = html.replacingOccurrences(of: #"data:[^"\s]*"#, with: "DATA", options: .regularExpression)
    s = s.replacingOccurrences(of: #"'sha256-[A-Za-z0-9+/=]+'"#, with: "HASH", options: .regularExpression)
    s = s.replacingOccurrences(of: #"<meta (property="og:|name="twitter:)[^>]*>"#, with: "", options: .regularExpression)
    return s
}

@Suite("The interactive page")
struct ComparisonPageTests {
    @Test("The page has a strict CSP whose hashes match the inline script and style")
    func csp() throws {
        let html = samplePage().html()
        let meta = try #require(sections(html, "<meta http-equiv=\"Content-Security-Policy\" content=\"", "\"").first)
        #expect(meta.hasPrefix("default-src 'none'; img-src data:; "))
        let script = try #require(sections(html, "<script>", "</script>").first)
        let style = try #require(sections(html, "<style>", "</style>").first)
        #expect(meta.contains("script-src \(SHA256.cspSource(script))"))
        #expect(meta.contains("style-src \(SHA256.cspSource(style))"))
        #expect(!meta.contains("unsafe"))
    }

    @Test("No URL leaves the page: no http:, https: or // outside data URIs and the preview tags")
    func noNetwork() {
        var page = samplePage()
        page.preview = SocialPreview(url: "https://example.com/compare.poster.jpg", width: 320, height: 240, alt: page.summary)
        for text in [page.html(), page.fragment()] {
            let s = withoutDataAndPreviews(text)
            #expect(!s.contains("http:"))
            #expect(!s.contains("https:"))
            #expect(!s.contains("//"))
        }
        // The preview URL appears only in the og/twitter tags.
        #expect(page.html().components(separatedBy: "https://example.com").count == 3)
    }

    @Test("The element's script and style together are at most 12 KB")
    func size() {
        let bytes = ElementScript.source.utf8.count + ElementStyle.source.utf8.count
        #expect(bytes <= 12 * 1024, "script \(ElementScript.source.utf8.count) + style \(ElementStyle.source.utf8.count) bytes")
    }

    @Test(
        "The feColorMatrix values are the Adjustments 3×4 map",
        arguments: [
            Adjustments.vivid, .noir, .dream, Adjustments(brightness: 0.2, contrast: 0.7, saturation: 2.5, hue: -45),
        ])
    func filterValues(look: Adjustments) throws {
        let html = samplePage(after: look).html()
        let filter = try #require(sections(html, "<filter data-side=\"after\"", "</filter>").first)
        #expect(filter.contains("color-interpolation-filters=\"sRGB\""))
        let text = try #require(sections(filter, "values=\"", "\"").first)
        let values = text.split(separator: " ").compactMap { Double($0) }
        #expect(values.count == 20)
        let m = look.matrix
        for row in 0..<3 {
            #expect(Array(values[row * 5..<row * 5 + 3]) == Array(m.m[row * 3..<row * 3 + 3]))
            #expect(values[row * 5 + 3] == 0)
            #expect(values[row * 5 + 4] == m.offset[row])  // additive brightness lands in the offset column
        }
        #expect(Array(values[15...]) == [0, 0, 0, 1, 0])
        // And the map does what DESIGN §4 says on a colour.
        let (r, g, b) = m.map(0.2, 0.5, 0.8)
        let f = { (x: Double, y: Double, z: Double, row: Int) in
            values[row * 5] * x + values[row * 5 + 1] * y + values[row * 5 + 2] * z + values[row * 5 + 4]
        }
        #expect(abs(f(0.2, 0.5, 0.8, 0) - r) < 1e-12 && abs(f(0.2, 0.5, 0.8, 1) - g) < 1e-12 && abs(f(0.2, 0.5, 0.8, 2) - b) < 1e-12)
    }

    @Test("Labels and fonts are escaped: a <script> in a label does not inject")
    func escaping() throws {
        var style = SliderStyle()
        style.beforeLabel = "</script><script>alert(1)</script>"
        style.afterLabel = "\"><img src=x onerror=alert(2)>"
        style.labelFont = "x</style><script>alert(3)</script>"
        let page = samplePage(style: style)
        for html in [page.html(), page.fragment()] {
            #expect(!html.contains("<script>alert"))
            #expect(!html.contains("<img src=x"))
            #expect(!html.contains("</style><script>"))
            // Exactly the element's script and its JSON block.
            #expect(html.components(separatedBy: "<script").count == 3)
            #expect(html.contains("before-label=\"&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;\""))
            let json = try #require(sections(html, "<script type=\"application/json\">", "</script>").first)
            let config = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let font = try #require(config["ff"] as? String)
            #expect(!font.contains("<") && !font.contains(")"))
        }
        #expect(page.html().contains("<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; and"))
    }

    @Test("--fragment gives the element, its style and script, and no page around them")
    func fragment() {
        let f = samplePage().fragment()
        #expect(!f.contains("<html") && !f.contains("<head") && !f.contains("<body") && !f.contains("<meta"))
        #expect(f.hasPrefix("<style>") && f.contains("<sweep-compare ") && f.contains("<script>(()=>{"))
        #expect(f.contains(ElementScript.source) && f.contains(ElementStyle.source))
    }

    @Test("A poster gives og:image and twitter:image with its size and alt text from the labels")
    func previews() {
        var page = samplePage()
        #expect(!page.html().contains("og:image"))
        page.preview = SocialPreview(url: "compare.poster.jpg", width: 320, height: 240, alt: page.summary)
        let html = page.html()
        for tag in [
            "<meta property=\"og:image\" content=\"compare.poster.jpg\">",
            "<meta property=\"og:image:width\" content=\"320\">", "<meta property=\"og:image:height\" content=\"240\">",
            "<meta property=\"og:image:alt\" content=\"Before and after comparison\">",
            "<meta name=\"twitter:card\" content=\"summary_large_image\">",
            "<meta name=\"twitter:image\" content=\"compare.poster.jpg\">",
        ] {
            #expect(html.contains(tag), "\(tag)")
        }
        var style = SliderStyle()
        style.beforeLabel = "Antes"
        style.afterLabel = "Después"
        #expect(samplePage(style: style).summary == "Antes and después comparison")
    }

    @Test("The timeline is keyframes and curve descriptions, not samples")
    func timeline() throws {
        let anim = Animation<Double>(
            position: Track([
                Keyframe(time: 0, value: 1.0, curve: .hold),
                Keyframe(time: 0.5, value: 1.0, curve: .hold),
                Keyframe(time: 2.5, value: 0.25, curve: .bouncy),
                Keyframe(time: 3, value: 0, curve: .timingCurve(0.25, 0.1, 0.25, 1)),
            ]),
            before: Track(constant: 0), after: Track(constant: 1), loop: .boomerang)
        let text = TimelineJSON.encode(anim) { $0 == 0 ? .identity : .noir }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["d"] as? Double == 3)
        #expect(json["l"] as? String == "boomerang")
        let p = try #require(json["p"] as? [[Any]])
        #expect(p.count == 4)
        #expect(p[0][2] as? String == "hold")
        let spring = Spring(duration: 0.5, bounce: 0.3)
        #expect(p[2][2] as? [Double] == [spring.omega, spring.zeta])
        #expect(p[3][2] as? [Double] == [0.25, 0.1, 0.25, 1])
        let a = try #require(json["a"] as? [[Any]])
        #expect(a[0][1] as? [Double] == [-0.05, 1.35, 0, 0])
        #expect(
            TimelineJSON.encode(
                Animation<Double>(
                    position: Track(constant: 0.5), before: Track(constant: 0),
                    after: Track(constant: 0), loop: .count(3))
            ) { _ in .identity }
            .contains("\"l\":3"))
    }
}
