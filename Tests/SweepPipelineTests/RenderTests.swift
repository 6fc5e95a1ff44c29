import Foundation
import SweepGIF
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTestSupport
import SweepTimeline
import Synchronization
import Testing

@testable import SweepPipeline

func tempPath(_ name: String) -> String {
    Scratch.path(name)
}

let red = RGBA8(r: 220, g: 30, b: 30), blue = RGBA8(r: 30, g: 60, b: 220)

func sweepSpec(hold: Double = 0.2, duration: Double = 1.0, loop: LoopMode = .forever) -> RenderSpec {
    var spec = RenderSpec(
        before: .image(RGBAImage(width: 160, height: 120, fill: red)),
        after: .image(RGBAImage(width: 160, height: 120, fill: blue)),
        animation: RenderSpec.sweep(from: 1, to: 0, duration: duration, hold: hold, curve: .easeInOut, loop: loop))
    spec.fps = 20
    return spec
}

func near(_ a: RGBA8, _ b: RGBA8, _ tol: Int) -> Bool {
    abs(Int(a.r) - Int(b.r)) <= tol && abs(Int(a.g) - Int(b.g)) <= tol && abs(Int(a.b) - Int(b.b)) <= tol
}

@Suite("Render end to end")
struct RenderTests {
    @Test("GIF: frame timing, loop, first frame before, last frame after")
    func gif() throws {
        let path = tempPath("s.gif")
        let r = try Renderer.render(sweepSpec(), to: path)
        #expect(r.frames == 20)  // (0.2 + 0.6 + 0.2) s × 20 fps
        let g = try GIFReader(path: path)
        #expect(g.width == 160 && g.height == 120)
        #expect(g.loopCount == 0)
        #expect(g.frames.count == r.framesWritten)
        #expect(g.delays.reduce(0, +) == 100)  // 1 s in centiseconds, holds merged
        // Away from the tags and the knob (which sit at the top and the middle).
        #expect(near(g.frames.first![40, 100], red, 12))
        #expect(near(g.frames.first![140, 100], red, 12))
        #expect(near(g.frames.last![20, 100], blue, 12))
        #expect(near(g.frames.last![140, 100], blue, 12))
    }

    @Test("A photo's GIF below quality 80 has a smaller table, and each step down is smaller and further from the frames")
    func photoPalette() throws {
        func photo(_ shift: Int) -> RGBAImage {
            picture { x, y in
                let n = (x &* 73 &+ y &* 151 &+ (x * y) % 97 &+ shift) % 41
                return (60 + x / 2 + n, 80 + y / 2 + n, 100 + n + shift)
            }
        }
        // 255, 127 and 44 colours, and the transparent entry.
        try expectSmallerTables(photo(0), photo(60), qualities: [90, 70, 50], tables: [256, 128, 64])
    }

    @Test("A gradient's GIF keeps its table down to quality 60, then it shrinks; each step down is smaller and further from the frames")
    func gradientPalette() throws {
        // Smooth, with no grain: about 19 000 colours in each picture.
        let before = picture { x, y in (x + y / 2, 40 + y, 200 - x) }
        let after = picture { x, y in (20 + y, 200 - x / 2, 60 + x / 2 + y / 3) }
        // 255 colours at 70 and 60, then 127 and 63, and the transparent entry.
        try expectSmallerTables(before, after, qualities: [70, 60, 50, 40], tables: [256, 256, 128, 64])
    }

    @Test("A wipe's first frame takes a table of its own; the global table serves what the later frames show")
    func tablesByFrame() throws {
        // A red picture becoming a blue one, both grainy gradients of thousands of colours.
        let before = picture { x, y in
            let n = (x &* 37 &+ y &* 91) % 29; return (100 + x / 2 + n, 20 + n / 2, 20 + y / 4)
        }
        let after = picture { x, y in
            let n = (x &* 53 &+ y &* 17) % 29; return (20 + n / 2, 40 + y / 3, 100 + x / 2 + n)
        }
        var spec = sweepSpec()
        (spec.before, spec.after, spec.quality) = (.image(before), .image(after), 90)
        // A hard edge: an anti-aliased one would blend the two, and the blends are rightly fitted too.
        (spec.style.showHandle, spec.style.showLabels, spec.style.smoothEdge) = (false, false, false)
        let path = tempPath("tables.gif")
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try Renderer.render(spec, to: path)
        let d = try #require(FileManager.default.contents(atPath: path)).map { $0 }
        // The global table, from the logical screen descriptor; then the first image's flags.
        let entries = 2 << Int(d[10] & 7)
        let global = (0..<entries).map { RGBA8(r: d[13 + 3 * $0], g: d[14 + 3 * $0], b: d[15 + 3 * $0]) }
        var i = 13 + 3 * entries
        while d[i] == 0x21 {
            i += 2
            while d[i] != 0 { i += Int(d[i]) + 1 }
            i += 1
        }
        #expect(d[i] == 0x2C && d[i + 9] & 0x80 != 0, "the first frame has a local table")
        // Every colour of the global table is one of the after picture's blues: none is spent on the red.
        #expect(global.filter { Int($0.r) > Int($0.b) + 30 }.isEmpty)
        #expect(global.filter { Int($0.b) > Int($0.r) + 30 }.count >= 200)
        // Each picture is drawn closely: its own table for the first frame, the global one after.
        func error(_ a: RGBAImage, _ b: RGBAImage) -> Double {
            var e = 0
            for k in a.pixels.indices where k % 4 != 3 { e += abs(Int(a.pixels[k]) - Int(b.pixels[k])) }
            return Double(e) / Double(a.width * a.height * 3)
        }
        let gif = try GIFReader(path: path)
        #expect(error(gif.frames[0], before) < 3)
        #expect(error(try #require(gif.frames.last), after) < 3)
    }

    /// A 160×120 picture from a colour function.
    private func picture(_ color: (Int, Int) -> (Int, Int, Int)) -> RGBAImage {
        var img = RGBAImage(width: 160, height: 120)
        for y in 0..<120 {
            for x in 0..<160 {
                let (r, g, b) = color(x, y), i = (y * 160 + x) * 4
                (img.pixels[i], img.pixels[i + 1], img.pixels[i + 2], img.pixels[i + 3]) = (UInt8(r), UInt8(g), UInt8(b), 255)
            }
        }
        return img
    }

    /// Renders `before` → `after` (no overlay) at each of `qualities`, from the highest down, and
    /// expects the global tables `tables`, files that get smaller at each step, and frames that
    /// get further from the lossless ones (or, where the table stays, no closer).
    private func expectSmallerTables(_ before: RGBAImage, _ after: RGBAImage, qualities: [Int], tables: [Int]) throws {
        /// The global table's size (from the logical screen descriptor), the file's size, the
        /// decoded GIF and the rendered frames.
        func render(_ quality: Int) throws -> (table: Int, bytes: Int, gif: GIFReader, frames: [RGBAImage]) {
            var spec = sweepSpec()
            (spec.before, spec.after, spec.quality) = (.image(before), .image(after), quality)
            (spec.style.showHandle, spec.style.showLabels) = (false, false)
            let path = tempPath("palette\(quality).gif"), dir = tempPath("frames\(quality)")
            defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: dir) }
            _ = try Renderer.render(spec, to: path)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            _ = try Renderer.render(spec, to: dir + "/f-%03d.png")
            let bytes = try #require(FileManager.default.contents(atPath: path))
            let frames = try (0..<20).map { try ImageDecoder.decode(path: dir + String(format: "/f-%03d.png", $0)) }
            return (2 << Int(bytes[10] & 7), bytes.count, try GIFReader(path: path), frames)
        }
        /// The mean error per channel of the decoded frames against their sources.
        func error(_ gif: GIFReader, _ frames: [RGBAImage]) -> Double {
            var error = 0, slot = 0
            for (image, delay) in zip(gif.frames, gif.delays) {
                for i in stride(from: 0, to: image.pixels.count, by: 4) {
                    for c in 0..<3 { error += abs(Int(image.pixels[i + c]) - Int(frames[slot].pixels[i + c])) * delay / 5 }
                }
                slot += delay / 5
            }
            #expect(slot == frames.count)
            return Double(error) / Double(frames.count * 160 * 120 * 3)
        }
        let runs = try qualities.map { try render($0) }
        #expect(runs.map(\.table) == tables)
        // The knob stays monotone: each step down is smaller and further from the frames.
        let bytes = runs.map(\.bytes), errors = runs.map { error($0.gif, $0.frames) }
        #expect(zip(bytes, bytes.dropFirst()).allSatisfy { $0 > $1 }, "\(bytes)")
        #expect(zip(errors, errors.dropFirst()).allSatisfy { $0 < $1 }, "\(errors)")
    }

    @Test("A GIF asked for more than 50 fps plays at its true length, at 50 fps, with a note")
    func gifFrameRateCap() throws {
        var spec = sweepSpec()
        spec.fps = 60
        let path = tempPath("fast.gif")
        let r = try Renderer.render(spec, to: path)
        #expect(r.fps == 50 && r.frames == 50)
        #expect(r.notes.contains { $0.contains("50 fps") })
        let g = try GIFReader(path: path)
        #expect(g.delays.reduce(0, +) == 100)  // still 1 s
        #expect(g.delays.allSatisfy { $0 >= 2 })
        // Video keeps the asked rate.
        #expect(try Renderer.render(spec, to: tempPath("fast.mp4")).fps == 60)
    }

    @Test("MP4: H.264 yuv420p, frame count, duration, first before, last after")
    func mp4() throws {
        let path = tempPath("s.mp4")
        let r = try Renderer.render(sweepSpec(), to: path)
        let v = try VideoReader(path: path)
        #expect(v.codecName == "h264" && v.pixelFormat == "yuv420p")
        #expect(v.frameCount == r.frames && r.frames == 20)
        #expect(abs(v.duration - 1.0) < 0.06)
        #expect(near(v.frames.first![140, 100], red, 10))
        #expect(near(v.frames.last![20, 100], blue, 10))
    }

    @Test("Odd sizes become even for 4:2:0 video, with a note")
    func oddSize() throws {
        var spec = sweepSpec()
        spec.width = 101
        spec.height = 75
        let r = try Renderer.render(spec, to: tempPath("odd.mp4"))
        #expect(r.width == 100 && r.height == 74)
        #expect(!r.notes.isEmpty)
    }

    @Test("PNG sequence: one lossless file per frame equal to the rendered frames")
    func pngSequence() throws {
        let dir = tempPath("seq")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let spec = sweepSpec()
        let r = try Renderer.render(spec, to: dir + "/f-%03d.png")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(files.count == r.frames + 1)
        #expect(files.filter { $0.hasPrefix(".") } == [".f-%03d.png.sweep"])  // the record of what sweep wrote
        let source = try FrameSource(spec: spec)
        let state = spec.animation.state(ofFrame: 9, fps: spec.fps)
        #expect(try ImageDecoder.decode(path: dir + "/f-009.png") == source.render(state))
    }

    @Test("A failed render leaves an existing output untouched and no temporary file")
    func atomic() throws {
        let dir = tempPath("atomic")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let out = dir + "/keep.gif"
        _ = FileManager.default.createFile(atPath: out, contents: Data("precious".utf8))
        var spec = sweepSpec()
        spec.after = .file(dir + "/missing.jpg")
        #expect(throws: SweepError.self) { try Renderer.render(spec, to: out) }
        #expect(FileManager.default.contents(atPath: out) == Data("precious".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["keep.gif"])
    }

    @Test("Reduce motion: dissolve never shows a split between the ends")
    func dissolve() throws {
        var spec = sweepSpec()
        spec.style.showHandle = false
        spec.style.showLabels = false
        spec.reduceMotion = .dissolve
        let source = try FrameSource(spec: spec)
        let mid = source.render(spec.animation.state(ofFrame: 10, fps: spec.fps, reduceMotion: .dissolve))
        // Left and right edges look alike: a blend, not a wipe.
        #expect(near(mid[5, 60], mid[155, 60], 1))
        #expect(!near(mid[5, 60], red, 20) && !near(mid[5, 60], blue, 20))
    }
}
