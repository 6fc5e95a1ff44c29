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

    @Test("--max-bytes on a long render: a lower rate estimated with room is searched at once, never rendered whole with fewer colours")
    func capLongLowerRateSearchedAtOnce() throws {
        var spec = try Self.longCapScene(duration: 16, fps: 20)  // 340 frames
        spec.maxBytes = try Renderer.render(Self.capFloor(spec), to: tempPath("long-rate-floor.gif")).bytes - 1
        let reports = Mutex([RenderProgress]())
        let out = tempPath("long-rate.gif")
        let r = try Renderer.render(spec, to: out) { p in reports.withLock { $0.append(p) } }
        let note = try #require(r.notes.first { $0.contains("to fit under") })
        #expect(r.bytes <= spec.maxBytes! && FileBytes.size(out) == r.bytes && r.fps == 13, "\(note)")
        #expect(!note.contains("colours") && (r.colors ?? 0) > 15, "\(note)")
        // At 13 fps nothing with 15 colours was rendered whole: only estimated.
        let seen = reports.withLock { $0 }
        let whole = Set(seen.filter { !$0.trying.hasPrefix("estimating") }.map(\.trying))
        #expect(!whole.contains { $0.contains("13 fps") && $0.contains("15 colours") }, "\(whole)")
        // The least (10 fps, 160 px) was estimated first, and never rendered whole: the ladder
        // did not reach it.
        #expect(seen.first?.trying.hasPrefix("estimating") == true && seen.first?.trying.hasSuffix("160x213") == true)
        #expect(!whole.contains { $0.hasSuffix("160x213") }, "\(whole)")
        // The file is the quality it names at 13 fps, rendered as it is.
        let q = try #require(Self.quality(in: note))
        var same = spec
        (same.quality, same.fps, same.maxBytes) = (q, 13, nil)
        #expect(try Renderer.render(same, to: tempPath("long-rate-same.gif")).bytes == r.bytes)
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
        let typical = QualityCurve.typical
        let c = typical.points
        #expect(zip(c, c.dropFirst()).allSatisfy { $0 < $1 })
        #expect(c.count == 13 && c[10] == 0)  // 40, 45, …, 100, against 90
        for q in stride(from: 40, through: 100, by: 3) {
            let back = typical.quality(from: 90, log2Ratio: typical.at(q) - typical.at(90))
            #expect(abs(back - Double(q)) < 1e-9, "\(q): \(back)")
            // Steepened twice over, twice the ratio lands on the same quality, from anywhere.
            let steep = typical.quality(from: 70, log2Ratio: 2 * (typical.at(q) - typical.at(70)), scale: 2)
            #expect(abs(steep - Double(q)) < 1e-9, "\(q): \(steep)")
        }
        // Past the ends, the ends; a flat curve says nothing but the direction.
        #expect(typical.quality(from: 90, log2Ratio: -5) == 40)
        #expect(typical.quality(from: 60, log2Ratio: 3) == 100)
        #expect(typical.quality(from: 90, log2Ratio: -0.1, scale: 0) == 40)
        // Three quarters of a photo's bytes at 90 is about quality 80 (the old fixed slope, 70).
        #expect(abs(typical.quality(from: 90, log2Ratio: log2(0.75)) - 80) < 3)
    }

    @Test("--max-bytes on a long render estimates each attempt from a sample first: those far over cost a sample, and the fit is exact")
    func capSamplesLongRenders() throws {
        var spec = try Self.longCapScene(duration: 11, fps: 30)  // 330 frames
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
        let (e, seen, out) = try Self.refusedUnderHalfTheLeast(&spec, name: "impossible")
        // Two attempts only: the render as asked, then the least the ladder gives (160 px on
        // the shorter side, 10 fps), and none of the rungs between.
        #expect(Set(seen.map(\.attempt)) == [1, 2], "\(Set(seen.map(\.attempt)))")
        #expect(
            seen.last?.trying.contains("160x213, ") == false && seen.last?.trying.hasSuffix("160x213") == true, "\(seen.last?.trying ?? "")"
        )
        // The size it names fits.
        let fix = try #require(e.fix)
        let size = try #require(fix.firstMatch(of: /make it (\d+)x(\d+) or smaller/).map { (Int($0.1)!, Int($0.2)!) })
        var smaller = spec
        (smaller.width, smaller.height) = size
        #expect(try Renderer.render(smaller, to: out).bytes <= spec.maxBytes!, "\(e)")
    }

    @Test("--max-bytes on a long render: a sample already far over the budget stops part-way, and the fit is exact")
    func capLongSampleStops() throws {
        var spec = try Self.longCapScene(duration: 11, fps: 30)  // 330 frames
        var uncapped = spec
        uncapped.quality = 90
        spec.maxBytes = try Renderer.render(uncapped, to: tempPath("long-stop-free.gif")).bytes / 4
        let reports = Mutex([RenderProgress]())
        let out = tempPath("long-stop.gif")
        let r = try Renderer.render(spec, to: out) { p in reports.withLock { $0.append(p) } }
        #expect(r.bytes <= spec.maxBytes! && FileBytes.size(out) == r.bytes)
        // The first attempt (after the least's sample), four times the budget, stopped within
        // the first half of its sample.
        let first = reports.withLock { $0 }.filter { $0.attempt == 2 }
        #expect(first.allSatisfy { $0.trying.hasPrefix("estimating quality 90") }, "\(first.map(\.trying))")
        #expect((first.map(\.done).max() ?? 48) < 24, "\(first.map(\.done))")
        // The fit is what its settings make uncapped.
        let note = try #require(r.notes.first { $0.contains("to fit under") })
        var same = spec
        let colors = note.firstMatch(of: /at most (\d+)/).map { Int($0.1)! + 1 } ?? spec.gifColors
        (same.maxBytes, same.quality, same.fps, same.gifColors) = (nil, Self.quality(in: note) ?? spec.quality, r.fps, colors)
        (same.width, same.height) = (r.width, r.height)
        #expect(try Renderer.render(same, to: tempPath("long-stop-same.gif")).bytes == r.bytes, "\(note)")
    }

    @Test(
        "--max-bytes on a long render that even the least cannot meet: the least estimated, rendered whole, refused; too short to sample, only rendered whole",
        arguments: [(11.0, 30.0), (7.0, 50.0)])
    func capLongImpossible(duration: Double, fps: Double) throws {
        var spec = try Self.longCapScene(duration: duration, fps: fps)  // 330 or 350 frames; the least 110 (sampled) or 70 (not)
        let (_, seen, _) = try Self.refusedUnderHalfTheLeast(&spec, name: "long-impossible")
        let sampled = duration * 10 >= 96
        #expect(Set(seen.map(\.attempt)) == (sampled ? [1, 2] : [1]), "\(Set(seen.map(\.attempt)))")
        if sampled {
            #expect(seen.filter { $0.attempt == 1 }.allSatisfy { $0.trying.hasPrefix("estimating") && $0.trying.hasSuffix("160x213") })
        }
        let whole = seen.filter { $0.attempt == (sampled ? 2 : 1) }
        #expect(!whole.isEmpty && whole.allSatisfy { !$0.trying.hasPrefix("estimating") && $0.trying.hasSuffix("160x213") })
    }

    /// `spec` (the cap scene) capped at half of what its least (160x213 at 10 fps, quality 40,
    /// 15 colours) makes, rendered: the error, which must say that even the least is over and
    /// leave nothing at the output, the progress reported, and the output's path.
    static func refusedUnderHalfTheLeast(_ spec: inout RenderSpec, name: String) throws -> (SweepError, [RenderProgress], String) {
        var least = capFloor(spec)
        (least.width, least.height, least.fps) = (160, 213, 10)
        spec.maxBytes = try Renderer.render(least, to: tempPath("\(name)-least.gif")).bytes / 2
        let reports = Mutex([RenderProgress]())
        let out = tempPath("\(name).gif")
        let capped = spec
        let e = try #require(throws: SweepError.self) {
            try Renderer.render(capped, to: out) { p in reports.withLock { $0.append(p) } }
        }
        #expect(e.code == .dataError && e.message.contains("even at quality 40"), "\(e)")
        #expect(!FileManager.default.fileExists(atPath: out))
        return (e, reports.withLock { $0 }, out)
    }

    @Test("A sample's bytes: whole, the header and first frame plus the runs' settled mean; part-way, never more than whole")
    func sampleBytesBound() throws {
        let l = 8, windows = 6, n = windows * l, frames = 880
        var rng = SeededGenerator(seed: 61)
        for round in 0..<50 {
            // Bytes written after each frame: a header, a large first frame, then frames of
            // varying size (some frames still on their way: repeats).
            var written = [800, 800 + Int.random(in: 5_000...50_000, using: &rng)]
            while written.count < n { written.append(written.last! + Int.random(in: 0...4_000, using: &rng)) }
            let end = written.last! + Int.random(in: 0...4_000, using: &rng)
            let whole = try #require(SizeCap.sampleBytes(written + [end], frames: frames, windows: windows))
            // Each run's bytes from its third frame to the next run's first (the file's end last).
            let runs = (0..<windows).map { j in (j + 1 < windows ? written[(j + 1) * l] : end) - written[j * l + 2] }
            let expected = Double(written[1]) + Double(runs.reduce(0, +)) / Double(windows * (l - 2)) * Double(frames - 1)
            #expect(abs(whole.estimate - expected) < 1e-6 && whole.least == whole.estimate)
            // A sample stopped part-way as over is over whole too, calibrated and rounded alike.
            let calibration = 0.8 + 0.01 * Double(round % 40)
            let raw = Int(whole.estimate.rounded())
            let cap = Int(Double(SizeCap.calibrated(raw, calibration)) / SizeCap.sampleMargin) - 50 + round * 2
            for k in 2...n {
                let part = try #require(SizeCap.sampleBytes(Array(written[..<k]), frames: frames, windows: windows))
                #expect(part.least <= whole.estimate + 1e-6 && part.least <= part.estimate + 1e-6)
                if SizeCap.overMargin(SizeCap.calibrated(Int(part.least.rounded()), calibration), cap: cap) {
                    #expect(SizeCap.overMargin(SizeCap.calibrated(raw, calibration), cap: cap), "prefix \(k), cap \(cap)")
                }
            }
        }
    }

    @Test("--max-bytes that quality alone meets renders no least: the first attempt, then the search, and the fit is exact")
    func capSearchWithoutLeast() throws {
        var spec = try Self.capScene()
        spec.fps = 30
        let free = try Renderer.render(spec, to: tempPath("search-free.gif")).bytes
        spec.maxBytes = free * 3 / 4
        let reports = Mutex([RenderProgress]())
        let out = tempPath("search.gif")
        let r = try Renderer.render(spec, to: out) { p in reports.withLock { $0.append(p) } }
        let written = try Data(contentsOf: URL(fileURLWithPath: out)).count
        #expect(r.bytes <= spec.maxBytes! && r.bytes == written)
        // Every attempt at the asked rate and size: none was the least (10 fps, 160 px).
        let tried = Set(reports.withLock { $0 }.map(\.trying))
        #expect(tried.count >= 2 && tried.allSatisfy { $0.contains("30 fps") && $0.contains("240x320") }, "\(tried)")
        // The file is the quality it names, rendered as it is.
        let q = try #require(r.notes.first { $0.contains("to fit under") }.flatMap(Self.quality(in:)), "\(r.notes)")
        var same = spec
        (same.maxBytes, same.quality) = (nil, q)
        #expect(try Renderer.render(same, to: tempPath("search-same.gif")).bytes == r.bytes)
    }

    /// The size cap tests' scene: a smooth landscape and its graded copy at 240×320, whose
    /// palette halves on the way down (a step the search must cross).
    static func capScene() throws -> RenderSpec {
        var spec = sweepSpec()
        spec.before = .image(try DemoScenes.flatLandscape())
        spec.after = .image(try DemoScenes.gradedLandscape())
        (spec.width, spec.height) = (240, 320)
        return spec
    }

    /// ``capScene()`` as a linear sweep of `duration` s (and half a second held) at `fps`: a
    /// long render (300 frames or more) is estimated from samples first.
    static func longCapScene(duration: Double, fps: Double) throws -> RenderSpec {
        var spec = try capScene()
        spec.animation = RenderSpec.sweep(from: 1, to: 0, duration: duration, hold: 0.5, curve: .linear)
        spec.fps = fps
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
