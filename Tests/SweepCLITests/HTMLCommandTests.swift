import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@Suite("sweep render … -o page.html", .serialized)
struct HTMLCommandTests {
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images").path

    @Test("--poster writes the still beside the page, and the page links it for previews")
    func poster() throws {
        let dir = try scratchDir()
        let r = try runSweep([
            "render", "\(Self.images)/jpeg-baseline.jpg", "\(Self.images)/png-rgb8.png", "-o", "\(dir)/c.html",
            "--size", "200x150", "--poster", "--retina", "--json",
        ])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"format\":\"html\""))
        #expect(FileManager.default.fileExists(atPath: "\(dir)/c.html.poster.jpg"))
        let html = try String(contentsOfFile: "\(dir)/c.html", encoding: .utf8)
        #expect(html.contains("<meta property=\"og:image\" content=\"c.html.poster.jpg\">"))
        #expect(html.contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"))
        // The link preview is the size the platforms show, and a relative URL is noted.
        #expect(html.contains("<meta property=\"og:image:width\" content=\"1200\">"))
        #expect(html.contains("<meta property=\"og:image:height\" content=\"630\">"))
        let poster = try ImageDecoder.decode(path: "\(dir)/c.html.poster.jpg")
        #expect(poster.width == 1200 && poster.height == 630)
        #expect(r.stdout.contains("--poster-url https://"), "\(r.stdout)")
        let absolute = try runSweep([
            "render", "\(Self.images)/jpeg-baseline.jpg", "\(Self.images)/png-rgb8.png", "-o", "\(dir)/d.html",
            "--size", "200x150", "--poster", "--poster-url", "https://example.com/d.jpg", "--json",
        ])
        #expect(absolute.code == 0 && !absolute.stdout.contains("--poster-url"), "\(absolute.stdout)")
        #expect(try String(contentsOfFile: "\(dir)/d.html", encoding: .utf8).contains("content=\"https://example.com/d.jpg\""))
    }

    @Test("--codec html, --fragment and a bad --page-images")
    func options() throws {
        let dir = try scratchDir()
        let r = try runSweep([
            "render", "\(Self.images)/jpeg-baseline.jpg", "-o", "\(dir)/part", "--codec", "html",
            "--fragment", "--page-images", "webp", "-q",
        ])
        #expect(r.code == 0, "\(r.stderr)")
        let text = try String(contentsOfFile: "\(dir)/part", encoding: .utf8)
        #expect(!text.contains("<html") && text.contains("data:image/webp;base64,"))
        let bad = try runSweep(["render", "\(Self.images)/jpeg-baseline.jpg", "-o", "\(dir)/x.html", "--page-images", "gif"])
        #expect(bad.code == 64 && bad.stderr.contains("--page-images"))
    }
}
