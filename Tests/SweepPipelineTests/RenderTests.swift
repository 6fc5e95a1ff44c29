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

@Suite("Reduced motion in a GIF")
struct ReducedMotionGIFTests {
    /// Red to blue over 3 s between 0.5 s holds, at 30 fps, without overlay.
    func spec(_ mode: ReduceMotion) -> RenderSpec {
        var spec = sweepSpec()
        spec.animation = RenderSpec.sweep(from: 1, to: 0, duration: 4, hold: 0.5, curve: .linear)
        (spec.fps, spec.reduceMotion) = (30, mode)
        (spec.style.showHandle, spec.style.showLabels) = (false, false)
        return spec
    }

    /// The frames a GIF shows, with how long each is shown (cs).
    func shown(_ path: String) throws -> [(RGBAImage, Int)] {
        let g = try GIFReader(path: path)
        return Array(zip(g.frames, g.delays))
    }

    @Test("A dissolve's fade changes at 10 fps in a GIF (each step held 10 cs), and still blends from before to after in time")
    func fadeHeld() throws {
        let path = tempPath("fade.gif")
        let r = try Renderer.render(spec(.dissolve), to: path)
        let frames = try shown(path)
        #expect(frames.reduce(0) { $0 + $1.1 } == 400)
        // The fade's 3 s in 30 steps or fewer (one per 10 cs), where 30 fps would give 90.
        #expect(r.framesWritten <= 33 && r.frames == 120, "\(r.framesWritten)")
        #expect(frames.dropFirst().dropLast().allSatisfy { $0.1 >= 10 }, "\(frames.map(\.1))")
        // At 2 s, half way, the picture is half red, half blue (within one step of 1/30).
        var t = 0
        let mid = try #require(
            frames.first { f in
                t += f.1; return t > 200
            }
        ).0
        let red = Double(mid[80, 60].r)
        #expect(abs(red - 127.5) <= 255.0 / 30 + 2, "\(red)")
    }

    @Test("auto is a cut in a GIF (two pictures, one change, as --reduce-motion cut makes) and a cross-fade elsewhere")
    func autoChoice() throws {
        let gif = tempPath("auto.gif")
        let r = try Renderer.render(spec(.auto), to: gif)
        let frames = try shown(gif)
        #expect(frames.count == 2 && r.framesWritten == 2, "\(frames.count)")
        #expect(frames[0].1 == 50 && frames[0].0[80, 60].r > 200 && frames[1].0[80, 60].b > 200)
        let cut = tempPath("cut.gif")
        _ = try Renderer.render(spec(.cut), to: cut)
        #expect(try Data(contentsOf: URL(fileURLWithPath: gif)) == Data(contentsOf: URL(fileURLWithPath: cut)))
        let png = tempPath("auto-%03d.png")
        var still = spec(.auto)
        still.fps = 10
        _ = try Renderer.render(still, to: png)
        let mid = try ImageDecoder.decode(path: String(format: png, 20))
        #expect(abs(Int(mid[80, 60].r) - 128) < 20, "a blend half way: \(mid[80, 60])")
    }
}

@Suite("Frame source")
struct FrameSourceTests {
    @Test("Adjusting on the fly gives the same pixels as adjusting once and caching")
    func fusedEqualsCached() throws {
        var before = RGBAImage(width: 64, height: 40)
        for i in 0..<(64 * 40) {
            before.pixels[i * 4] = UInt8(i % 251); before.pixels[i * 4 + 1] = UInt8((i * 7) % 256); before.pixels[i * 4 + 3] = 255
        }
        var spec = RenderSpec(before: .image(before), after: nil, animation: RenderSpec.sweep())
        spec.style.showLabels = false
        let state = FrameState(position: 0.37, before: Adjustments.noir, after: Adjustments.dream)
        let fused = try FrameSource(spec: spec).render(state)  // first sight: on the fly
        let source = try FrameSource(spec: spec)
        _ = source.render(state)
        let cached = source.render(state)  // held look: cached
        #expect(fused == cached)
        // And the look really applies: the after side is not the plain photo.
        #expect(fused[60, 5] != before[60, 5])
    }
}

@Suite("GIF output")
struct GIFOutputTests {
    /// Two flat-colour sides: every colour fits the palette, so the GIF must be exact.
    func flatSpec() -> RenderSpec {
        var before = RGBAImage(width: 90, height: 60, fill: red)
        for y in 0..<60 { for x in 0..<45 { before.pixels[(y * 90 + x) * 4 + 1] = 200 } }
        var spec = RenderSpec(
            before: .image(before), after: .image(RGBAImage(width: 90, height: 60, fill: blue)),
            animation: RenderSpec.sweep(from: 1, to: 0, duration: 1.4, hold: 0.2, curve: .linear))
        spec.fps = 10
        spec.style.showHandle = false
        spec.style.showLabels = false
        spec.style.smoothEdge = false
        return spec
    }

    @Test("Frames composed from an exact palette decode to the rendered pixels exactly (giflib and FFmpeg)")
    func exact() throws {
        let spec = flatSpec()
        let path = tempPath("exact.gif")
        let r = try Renderer.render(spec, to: path)
        let source = try FrameSource(spec: spec)
        let expected = (0..<r.frames).map { source.render(spec.animation.state(ofFrame: $0, fps: spec.fps)) }
        // giflib: merged frames carry the summed delay; expand them back to 10 fps frames.
        let g = try GIFReader(path: path)
        var expanded: [RGBAImage] = []
        for (f, d) in zip(g.frames, g.delays) { expanded += Array(repeating: f, count: d / 10) }
        #expect(expanded.count == r.frames)
        for (a, b) in zip(expanded, expected) { #expect(a.pixels == b.pixels) }
        // FFmpeg's GIF decoder agrees.
        let v = try VideoReader(path: path)
        #expect(v.codecName == "gif" && v.frameCount == g.frames.count)
        for (a, b) in zip(v.frames, g.frames) { #expect(a.pixels == b.pixels) }
    }

    @Test("At low quality the overlay stays exact: the lossy coder and dithering leave its colours alone", arguments: [40, 90])
    func overlayExact(quality: Int) throws {
        var spec = sweepSpec(hold: 0.1, duration: 1.0)
        spec.before = .image(try DemoScenes.flatLandscape())
        spec.after = .image(try DemoScenes.gradedLandscape())
        spec.width = 240
        spec.height = 160
        spec.fps = 10
        spec.quality = quality
        let path = tempPath("overlay.gif")
        let r = try Renderer.render(spec, to: path)
        let source = try FrameSource(spec: spec)
        let g = try GIFReader(path: path)
        var expanded: [RGBAImage] = []
        for (f, d) in zip(g.frames, g.delays) { expanded += Array(repeating: f, count: d / 10) }
        #expect(expanded.count == r.frames)
        // Every pixel the lossless frame draws in the divider's, knob's or tags' text colour
        // (white; the photos have none) shows exactly that colour.
        var checked = 0
        for (k, decoded) in expanded.enumerated() {
            let truth = source.render(spec.animation.state(ofFrame: k, fps: spec.fps))
            for y in 0..<160 {
                for x in 0..<240 where truth[x, y] == spec.style.knobColor {
                    checked += 1
                    #expect(decoded[x, y] == truth[x, y], "frame \(k) (\(x),\(y)): \(decoded[x, y])")
                }
            }
        }
        #expect(checked > 1000)
    }

    @Test("--max-bytes is honoured by giving up quality, colours, frame rate and size, and says so")
    func cap() throws {
        var spec = try Self.capScene()
        let free = try Renderer.render(spec, to: tempPath("free.gif"))
        // Half way from the default's size to quality 50's (this smooth picture's palette
        // halves there).
        var fifty = spec
        fifty.quality = 50
        let half = try Renderer.render(fifty, to: tempPath("q50.gif")).bytes
        #expect(half < free.bytes)
        spec.maxBytes = (free.bytes + half) / 2
        let path = tempPath("capped.gif")
        let capped = try Renderer.render(spec, to: path)
        #expect(capped.bytes <= spec.maxBytes!)
        #expect(FileBytes.size(path) == capped.bytes)
        // Quality goes first, searched to use the budget: a cap the lossy coder alone can
        // meet keeps every colour and the frame rate.
        let note = try #require(capped.notes.first { $0.contains("to fit under") })
        let q = try #require(Self.quality(in: note))
        #expect(q > 40 && q < 90, "\(note)")
        #expect(!note.contains("colours") && !note.contains("frame rate"), "\(note)")
        #expect(capped.fps == spec.fps)
        // The file is what that quality makes, and little of the budget is left: the search
        // stops within 5 % of it, or where the next quality up is over it.
        var at = spec
        (at.quality, at.maxBytes) = (q, nil)
        #expect(try Renderer.render(at, to: tempPath("at-q.gif")).bytes == capped.bytes)
        if Double(capped.bytes) < 0.95 * Double(spec.maxBytes!) {
            at.quality = q + 1
            #expect(try Renderer.render(at, to: tempPath("at-q1.gif")).bytes > spec.maxBytes!)
        }
        // Then colours: half of what quality 40's palette held (quality may already have
        // shrunk it below --colors, and a cap above it would render the same file again).
        var low = spec
        (low.quality, low.maxBytes) = (40, nil)
        let q40 = try Renderer.render(low, to: tempPath("q40.gif"))
        let held = try #require(q40.colors)
        #expect(held <= 255 && held > 32)
        spec.maxBytes = q40.bytes - 1
        let fewer = try Renderer.render(spec, to: path)
        #expect(fewer.bytes <= spec.maxBytes!)
        #expect(fewer.notes.contains { $0.contains("quality 90 → 40, colours \(held) → at most \(held / 2)") }, "\(fewer.notes)")
        let now = try #require(fewer.colors)
        #expect(now <= held / 2 && now > held / 4)
        // The summary's palette size is the global table's (its size field, 2^(n+1) entries with the transparent one).
        let header = try #require(FileManager.default.contents(atPath: path))
        #expect(2 << Int(header[10] & 7) >= now + 1 && 1 << Int(header[10] & 7) < now + 1)
        // A cap that cannot be met: an error, and no file.
        spec.maxBytes = 1500
        let own = tempPath("cap-dir")
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        let none = own + "/impossible.gif"
        let failure = #expect(throws: SweepError.self) { try Renderer.render(spec, to: none) }
        #expect(!FileManager.default.fileExists(atPath: none))
        let dir = URL(fileURLWithPath: none).deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        // The size it names is what the least attempt makes (rendered whole, not estimated
        // from where it stopped): a cap of that size fits.
        let named = try #require((failure?.message.firstMatch(of: /\((\d+) bytes\)/)).flatMap { Int($0.1) })
        #expect(named < q40.bytes / 2, "\(failure?.message ?? "")")  // the least: a lower rate, a smaller size
        spec.maxBytes = named
        let fits = try Renderer.render(spec, to: none)
        #expect(fits.bytes <= named, "\(failure?.message ?? "")")
    }

    @Test("--max-bytes: once a lower frame rate fits with room, quality is searched again there with every colour")
    func capRaisesQualityAgain() throws {
        var spec = try Self.capScene()
        // Under what quality 40 with 15 colours makes at the full rate: colours and quality
        // cannot fit it, a lower frame rate must.
        var floor = Self.capFloor(spec)
        let least = try Renderer.render(floor, to: tempPath("floor.gif"))
        spec.maxBytes = least.bytes - 1
        let path = tempPath("rate.gif")
        let r = try Renderer.render(spec, to: path)
        #expect(r.bytes <= spec.maxBytes! && FileBytes.size(path) == r.bytes)
        let note = try #require(r.notes.first { $0.contains("to fit under") })
        #expect(note.contains("frame rate 20 → 13 fps"), "\(note)")
        #expect(r.fps == 13)
        // At 13 fps the search rose again from quality 40 with 15 colours: every colour is
        // back (the note no longer gives them up), at the quality it settled on.
        let q = try #require(Self.quality(in: note))
        #expect(q >= 40, "\(note)")
        #expect(!note.contains("colours"), "\(note)")
        #expect((r.colors ?? 0) > 15)
        var same = spec
        (same.quality, same.fps, same.maxBytes) = (q, 13, nil)
        let again = try Renderer.render(same, to: tempPath("rate-again.gif"))
        #expect(again.bytes == r.bytes && again.colors == r.colors)
        // More of the budget used than the floor with 15 colours makes at that rate.
        (floor.fps, floor.maxBytes) = (13, nil)
        #expect(try Renderer.render(floor, to: tempPath("floor13.gif")).bytes < r.bytes)
    }

    @Test("--max-bytes: an attempt over the budget stops once its bytes pass the cap; the file is the same")
    func capStopsAttemptsOver() throws {
        var spec = try Self.capScene()
        // Under quality 40 with 15 colours: the ladder goes to a lower frame rate, past
        // attempts far over the budget.
        spec.maxBytes = try Renderer.render(Self.capFloor(spec), to: tempPath("stop-floor.gif")).bytes - 1
        let reports = Mutex([RenderProgress]())
        // An output already there stays as it was until the fit is done, through every attempt.
        let out = tempPath("stop.gif")
        try Data("old".utf8).write(to: URL(fileURLWithPath: out))
        let untouched = Mutex(true)
        let r = try Renderer.render(spec, to: out) { p in
            reports.withLock { $0.append(p) }
            if (try? Data(contentsOf: URL(fileURLWithPath: out))) != Data("old".utf8) { untouched.withLock { $0 = false } }
        }
        #expect(r.bytes <= spec.maxBytes!)
        #expect(untouched.withLock { $0 })
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)).count == r.bytes && r.output == out)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: out).deletingLastPathComponent().path).filter {
                $0.hasPrefix(".stop.gif")
            }.isEmpty)
        // Each attempt reports its number, counting from 1, and the most attempts the fit can
        // take, a bound that never grows and that no attempt passes.
        let seen = reports.withLock { $0 }
        var attempts: [(last: Int, total: Int)] = []
        for (i, p) in seen.enumerated() {
            if i == 0 || p.attempt != seen[i - 1].attempt {
                #expect(p.attempt == attempts.count + 1 && p.done == 1)
                attempts.append((p.done, p.total))
            } else {
                attempts[attempts.count - 1].last = p.done
            }
            #expect(p.attempt <= p.attempts)
            if i > 0 { #expect(p.attempts <= seen[i - 1].attempts) }
        }
        #expect(seen.dropFirst().allSatisfy { !$0.trying.isEmpty && $0.trying.contains("fps") })
        #expect(attempts.count >= 4, "\(attempts)")
        // The first is rendered whole (later ones are measured against it); some later one,
        // over the budget, stopped part-way.
        #expect(attempts.first.map { $0.last == $0.total } == true)
        #expect(attempts.dropFirst().contains { $0.last < $0.total }, "\(attempts)")
        // The fit is rendered whole, and the file is what its settings make uncapped.
        #expect(attempts.contains { $0.last == $0.total && $0.total == r.frames })
        let note = try #require(r.notes.first { $0.contains("to fit under") })
        var same = spec
        (same.quality, same.fps, same.maxBytes) = (try #require(Self.quality(in: note)), r.fps, nil)
        if note.contains("colours") { same.gifColors = (r.colors ?? 0) + 1 }
        let again = try Renderer.render(same, to: tempPath("stop-again.gif"))
        #expect(again.bytes == r.bytes)
    }

    @Test("A stopped attempt's size is estimated from one rendered whole: the first frame as written, the rest by share")
    func capEstimate() {
        // Bytes written after each frame, with the file one frame behind (a header of 100
        // until the first frame arrives), the last frame and a 1-byte trailer at the end.
        func written(first: Int, later: [Int]) -> (written: [Int], bytes: Int) {
            var w = [100], sum = 100 + first
            w.append(sum)
            for b in later.dropLast() {
                sum += b
                w.append(sum)
            }
            return (w, sum + later.last! + 1)
        }
        // A sweep whose bands grow then shrink (easing), at two qualities and two frame rates.
        let shape = [1, 2, 4, 6, 8, 8, 6, 4, 2, 1]
        let reference = written(first: 1000, later: shape.map { $0 * 30 })
        let lower = written(first: 700, later: shape.map { $0 * 12 })
        for k in 2...8 {
            let e = SizeCap.estimate(Array(lower.written.prefix(k + 1)), frames: 11, reference: reference)
            #expect(abs(e - lower.bytes) <= 1, "after \(k + 1) frames: \(e) for \(lower.bytes)")
        }
        // Half the frames (every other band, each twice as wide): the same share of the sweep.
        let slower = written(first: 700, later: stride(from: 0, to: 10, by: 2).map { (shape[$0] + shape[$0 + 1]) * 12 })
        let e = SizeCap.estimate(Array(slower.written.prefix(4)), frames: 6, reference: reference)
        #expect(abs(Double(e - slower.bytes)) <= 0.05 * Double(slower.bytes), "\(e) for \(slower.bytes)")
        // Never less than what is written already; with only the first frame in, scaled as it compares.
        let early = SizeCap.estimate([100, 800], frames: 11, reference: reference)
        #expect(early > 800 && abs(Double(early) - 800.0 / 1100 * Double(reference.bytes)) < 2)
    }

    @Test("A size cap's first guess reads the budget off the typical curve: it rises with quality, and reading it back gives the quality")
    func capTypicalCurve() {
        let c = SizeCap.typicalCurve
        #expect(zip(c, c.dropFirst()).allSatisfy { $0 < $1 })
        #expect(c.count == 13 && c[10] == 0)  // 40, 45, …, 100, against 90
        for q in stride(from: 40, through: 100, by: 3) {
            let back = SizeCap.quality(from: 90, log2Ratio: SizeCap.typical(q) - SizeCap.typical(90))
            #expect(abs(back - Double(q)) < 1e-9, "\(q): \(back)")
            // Steepened twice over, twice the ratio lands on the same quality, from anywhere.
            let steep = SizeCap.quality(from: 70, log2Ratio: 2 * (SizeCap.typical(q) - SizeCap.typical(70)), scale: 2)
            #expect(abs(steep - Double(q)) < 1e-9, "\(q): \(steep)")
        }
        // Past the ends, the ends; a flat curve says nothing but the direction.
        #expect(SizeCap.quality(from: 90, log2Ratio: -5) == 40)
        #expect(SizeCap.quality(from: 60, log2Ratio: 3) == 100)
        #expect(SizeCap.quality(from: 90, log2Ratio: -0.1, scale: 0) == 40)
        // Three quarters of a photo's bytes at 90 is about quality 80 (the old fixed slope, 70).
        #expect(abs(SizeCap.quality(from: 90, log2Ratio: log2(0.75)) - 80) < 3)
    }

    /// The size cap tests' scene: a smooth landscape and its graded copy at 240×320, whose
    /// palette halves on the way down (a step the search must cross).
    @Test("--max-bytes on a long render estimates each attempt from a sample first: those far over cost a sample, and the fit is exact")
    func capSamplesLongRenders() throws {
        var spec = try Self.capScene()
        spec.animation = RenderSpec.sweep(from: 1, to: 0, duration: 11, hold: 0.5, curve: .linear)
        spec.fps = 30  // 330 frames
        var uncapped = spec
        uncapped.quality = 90
        let free = try Renderer.render(uncapped, to: tempPath("long-free.gif")).bytes
        uncapped.quality = 40
        let low = try Renderer.render(uncapped, to: tempPath("long-low.gif")).bytes
        spec.maxBytes = (free + low) / 2  // a quality between fits, at the same frame rate
        let reports = Mutex([RenderProgress]())
        let out = tempPath("long.gif")
        let r = try Renderer.render(spec, to: out) { p in reports.withLock { $0.append(p) } }
        let written = try Data(contentsOf: URL(fileURLWithPath: out)).count
        #expect(r.bytes <= spec.maxBytes! && r.frames >= 300 && written == r.bytes, "\(r.frames) \(r.bytes) \(r.notes) free \(free)")
        // Attempts told apart by number: an estimate renders 48 frames (6 runs of 8).
        let seen = reports.withLock { $0 }
        var attempts: [Int: (estimate: Int, whole: Int)] = [:]
        for p in seen {
            var a = attempts[p.attempt] ?? (0, 0)
            if p.trying.hasPrefix("estimating") { a.estimate = max(a.estimate, p.done) } else { a.whole = max(a.whole, p.done) }
            attempts[p.attempt] = a
        }
        #expect(attempts.values.contains { $0.estimate == 48 && $0.whole == 0 }, "an attempt far over stopped at its sample: \(attempts)")
        #expect(attempts.values.allSatisfy { $0.estimate == 0 || $0.estimate == 48 })
        // The quality it settled on is what makes this file uncapped.
        let q = try #require(r.notes.first { $0.contains("to fit under") }.flatMap(Self.quality(in:)))
        var same = spec
        (same.maxBytes, same.quality) = (nil, q)
        #expect(try Renderer.render(same, to: tempPath("long-same.gif")).bytes == r.bytes)
    }

    @Test("--max-bytes that even the ladder's least cannot meet is refused after the first attempt and the least, with a size that fits")
    func capImpossibleAtOnce() throws {
        var spec = try Self.capScene()
        (spec.width, spec.height) = (480, 640)
        spec.animation = RenderSpec.sweep(from: 1, to: 0, duration: 4, hold: 0.5)
        var least = Self.capFloor(spec)
        (least.width, least.height, least.fps) = (160, 213, 10)
        spec.maxBytes = try Renderer.render(least, to: tempPath("least.gif")).bytes / 2
        let reports = Mutex([RenderProgress]())
        let out = tempPath("impossible.gif")
        let e = try #require(throws: SweepError.self) {
            try Renderer.render(spec, to: out) { p in reports.withLock { $0.append(p) } }
        }
        // Two attempts only: the render as asked, then the least the ladder gives (160 px on
        // the shorter side, 10 fps), and none of the rungs between.
        let seen = reports.withLock { $0 }
        #expect(Set(seen.map(\.attempt)) == [1, 2], "\(Set(seen.map(\.attempt)))")
        #expect(
            seen.last?.trying.contains("160x213, ") == false && seen.last?.trying.hasSuffix("160x213") == true, "\(seen.last?.trying ?? "")"
        )
        #expect(e.code == .dataError && e.message.contains("even at quality 40"), "\(e)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // The size it names fits.
        let fix = try #require(e.fix)
        let size = try #require(fix.firstMatch(of: /make it (\d+)x(\d+) or smaller/).map { (Int($0.1)!, Int($0.2)!) })
        var smaller = spec
        (smaller.width, smaller.height) = size
        #expect(try Renderer.render(smaller, to: out).bytes <= spec.maxBytes!, "\(e)")
    }

    static func capScene() throws -> RenderSpec {
        var spec = sweepSpec()
        spec.before = .image(try DemoScenes.flatLandscape())
        spec.after = .image(try DemoScenes.gradedLandscape())
        (spec.width, spec.height) = (240, 320)
        return spec
    }

    /// `spec` at the least quality and colours a cap gives up before the frame rate: quality
    /// 40 with 15 colours (and the transparent entry).
    static func capFloor(_ spec: RenderSpec) -> RenderSpec {
        var floor = spec
        (floor.quality, floor.gifColors) = (40, 16)
        return floor
    }

    /// The quality a size cap's note says it settled on ("quality 90 → 57").
    static func quality(in note: String) -> Int? {
        guard let r = note.range(of: #"quality \d+ → (\d+)"#, options: .regularExpression) else { return nil }
        return Int(note[r].split(separator: " ").last!)
    }
}

@Suite("Y′CbCr fast path")
struct YUVPathTests {
    @Test(
        "Composing in Y′CbCr matches converting the RGB frame, overlay and corners included",
        arguments: [(false, false), (true, false), (false, true)])
    func matchesRGB(rtl: Bool, vertical: Bool) throws {
        var spec = RenderSpec(
            before: .image(try DemoScenes.flatLandscape()), after: .image(try DemoScenes.gradedLandscape()),
            animation: RenderSpec.sweep())
        spec.width = 300
        spec.height = 400
        spec.style.cornerRadius = 24
        spec.style.rightToLeft = rtl
        spec.style.orientation = vertical ? .vertical : .horizontal
        let source = try FrameSource(spec: spec)
        let path = tempPath("yuv.mp4")
        let writer = try VideoWriter(path: path, width: 300, height: 400, fps: 30)
        let yuv = YUVCompositor(
            before: try writer.convert(source.sides(before: .identity, after: .identity).before),
            after: try writer.convert(source.sides(before: .identity, after: .identity).after),
            overlay: source.overlay)
        for p in [0.0, 0.237, 0.5, 0.81, 1.0] {
            var fast = YUVImage(width: 300, height: 400)
            yuv.render(position: p, into: &fast)
            let reference = try writer.convert(source.render(FrameState(position: p, before: .identity, after: .identity)))
            func meanError(_ a: [UInt8], _ b: [UInt8]) -> Double {
                Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
            }
            func maxError(_ a: [UInt8], _ b: [UInt8]) -> Int { zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0 }
            #expect(meanError(fast.y, reference.y) < 0.3)
            #expect(meanError(fast.u, reference.u) < 0.5 && meanError(fast.v, reference.v) < 0.5)
            // Away from edges the two agree to a level or two; at anti-aliased edges the
            // chroma filters differ a little.
            let worst = zip(fast.y, reference.y).enumerated().max {
                abs(Int($0.element.0) - Int($0.element.1)) < abs(Int($1.element.0) - Int($1.element.1))
            }!
            #expect(maxError(fast.y, reference.y) <= 24, "p \(p) at x \(worst.offset % 300) y \(worst.offset / 300): \(worst.element)")
        }
        try writer.finish()
    }
}

@Suite("Default size")
struct DefaultSizeTests {
    @Test("Without --size a big photo is fitted within 800 px for GIF and 1920 px for video, with a note")
    func fitted() throws {
        let big = RGBAImage(width: 2400, height: 1600, fill: red)
        var spec = RenderSpec(
            before: .image(big), after: .image(RGBAImage(width: 2400, height: 1600, fill: blue)),
            animation: RenderSpec.sweep(duration: 0.2, hold: 0))
        spec.fps = 10
        let gif = try Renderer.render(spec, to: tempPath("big.gif"))
        #expect(gif.width == 800 && gif.height == 534)
        #expect(gif.notes.contains { $0.contains("800 px") })
        let mp4 = try Renderer.render(spec, to: tempPath("big.mp4"))
        #expect(mp4.width == 1920 && mp4.height == 1280)
        // A size cap starts its ladder from the default size, not from the photo's.
        spec.maxBytes = 1_000_000
        let capped = try Renderer.render(spec, to: tempPath("big-capped.gif"))
        #expect(capped.width == 800 && capped.height == 534)
        #expect(capped.notes.contains { $0.contains("800 px") })
        spec.maxBytes = nil
        // A small input keeps its size, without a note.
        spec.before = .image(RGBAImage(width: 300, height: 200, fill: red))
        spec.after = nil
        let small = try Renderer.render(spec, to: tempPath("small.gif"))
        #expect(small.width == 300 && small.height == 200 && !small.notes.contains { $0.contains("fitted") })
        // A 1-pixel image becomes the smallest output, 2×2, rather than a complaint about --size.
        spec.before = .image(RGBAImage(width: 1, height: 1, fill: red))
        let dot = try Renderer.render(spec, to: tempPath("dot.gif"))
        #expect(dot.width == 2 && dot.height == 2 && !dot.notes.contains { $0.contains("fitted") })
    }
}
