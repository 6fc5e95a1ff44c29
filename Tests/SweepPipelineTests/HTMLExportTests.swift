import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTimeline
import Testing

@testable import SweepPipeline

/// The data URIs of a page, decoded: (MIME type, bytes).
func dataImages(_ html: String) -> [(String, [UInt8])] {
    let pattern = try! NSRegularExpression(pattern: #"data:(image/[a-z]+);base64,([A-Za-z0-9+/=]+)"#)
    return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { m in
        let mime = String(html[Range(m.range(at: 1), in: html)!])
        let data = Data(base64Encoded: String(html[Range(m.range(at: 2), in: html)!]))!
        return (mime, [UInt8](data))
    }
}

@Suite("HTML export")
struct HTMLExportTests {
    @Test("A .html output writes one page with both fitted sides inline")
    func page() throws {
        let path = tempPath("page.html")
        let result = try Renderer.render(sweepSpec(), to: path)
        #expect(result.format == "html" && result.width == 160 && result.height == 120)
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(html.hasPrefix("<!doctype html>") && html.contains("<sweep-compare ") && html.contains(" autoplay"))
        let images = dataImages(html)
        #expect(images.count == 2 && images.allSatisfy { $0.0 == "image/jpeg" })
        let before = try ImageDecoder.decode(bytes: images[0].1, name: "before")
        #expect(before.width == 160 && before.height == 120)
        #expect(near(before[80, 60], red, 6))
        let after = try ImageDecoder.decode(bytes: images[1].1, name: "after")
        #expect(near(after[80, 60], blue, 6))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
            .filter { $0.hasSuffix(".tmp") && $0.contains(URL(fileURLWithPath: path).lastPathComponent) }  // other tests share the folder
        #expect(leftovers.isEmpty)
    }

    @Test("--retina adds a 2x set; --page-images png is lossless; a transparent background gives PNG")
    func images() throws {
        var spec = sweepSpec()
        spec.html.retina = true
        spec.html.imageFormat = .png
        let path = tempPath("retina.html")
        _ = try Renderer.render(spec, to: path)
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(html.contains(" 2x\""))
        let images = dataImages(html)
        #expect(images.count == 4 && images.allSatisfy { $0.0 == "image/png" })
        let big = try ImageDecoder.decode(bytes: images[1].1, name: "2x")
        #expect(big.width == 320 && big.height == 240)
        let small = try ImageDecoder.decode(bytes: images[0].1, name: "1x")
        #expect(small[10, 10] == red)

        var clear = sweepSpec()
        clear.style.background = .clear
        let p2 = tempPath("clear.html")
        _ = try Renderer.render(clear, to: p2)
        #expect(dataImages(try String(contentsOfFile: p2, encoding: .utf8)).allSatisfy { $0.0 == "image/png" })
    }

    @Test("--fragment writes the element only; a poster URL gives previews")
    func fragmentAndPoster() throws {
        var spec = sweepSpec()
        spec.html.fragment = true
        let path = tempPath("fragment.html")
        let result = try Renderer.render(spec, to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(result.format == "html-fragment" && !text.contains("<html") && text.contains("<sweep-compare "))

        var withPoster = sweepSpec()
        withPoster.html.posterURL = "page.poster.jpg"
        let p2 = tempPath("poster.html")
        _ = try Renderer.render(withPoster, to: p2)
        let html = try String(contentsOfFile: p2, encoding: .utf8)
        #expect(html.contains("<meta property=\"og:image\" content=\"page.poster.jpg\">"))
        #expect(html.contains("<meta property=\"og:image:width\" content=\"160\">"))
    }

    @Test("A flashing page warns like a GIF, and --strict refuses it leaving no file")
    func flashes() throws {
        var keys = [Keyframe<Adjustments>(time: 0, value: .identity, curve: .hold)]
        for k in 1...20 {
            keys.append(Keyframe(time: Double(k) * 0.1, value: k % 2 == 0 ? .identity : Adjustments(brightness: -1), curve: .hold))
        }
        var spec = RenderSpec(
            before: .image(RGBAImage(width: 400, height: 300, fill: .white)), after: nil,
            animation: Animation(position: Track(constant: 0), before: Track(constant: .identity), after: Track(keys)))
        spec.fps = 20
        let warned = try Renderer.render(spec, to: tempPath("flash.html"))
        #expect(warned.notes.contains { $0.contains("WCAG") })
        #expect(try Renderer.render(sweepSpec(), to: tempPath("calm.html")).notes.isEmpty)
        spec.refuseFlashes = true
        let out = tempPath("flash-strict.html")
        #expect(throws: SweepError.self) { try Renderer.render(spec, to: out) }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("The kind follows .html, .htm or --codec html; a missing folder fails with nothing written")
    func kind() throws {
        #expect(try OutputKind.infer(path: "a.html") == .html)
        #expect(try OutputKind.infer(path: "a.HTM") == .html)
        #expect(try OutputKind.infer(path: "page", codec: "html") == .html)
        #expect(throws: SweepError.self) { try Renderer.render(sweepSpec(), to: "/nonexistent-dir/x.html") }
    }

    @Test("A codec's file extension names a file of that codec in its own container")
    func codecExtensions() throws {
        for c in VideoCodec.all {
            #expect(try OutputKind.infer(path: "out." + c.fileExtension, codec: c.name) == .video(c, container: c.container), "\(c.name)")
        }
        #expect(VideoCodec.named("prores")?.fileExtension == "mov" && VideoCodec.h264.fileExtension == "mp4")
    }
}
