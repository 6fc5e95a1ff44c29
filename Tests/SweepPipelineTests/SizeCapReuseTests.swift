import Foundation
import SweepGIF
import SweepImaging
import SweepSupport
import SweepTestSupport
import SweepTimeline
import Synchronization
import Testing

@testable import SweepPipeline

/// A photo-like picture: smooth light across it, fine grain over it (`seed` varies the grain,
/// `grade` the colours).
func grainy(_ w: Int, _ h: Int, seed: Int, grade: Int = 0) -> RGBAImage {
    var img = RGBAImage(width: w, height: h)
    var state = UInt64(seed) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    for y in 0..<h {
        for x in 0..<w {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let n = Int(state >> 58) - 32
            let i = (y * w + x) * 4
            img.pixels[i] = UInt8(max(0, min(255, 60 + x * 140 / w + n + grade)))
            img.pixels[i + 1] = UInt8(max(0, min(255, 90 + y * 100 / h + n / 2)))
            img.pixels[i + 2] = UInt8(max(0, min(255, 150 - x * 60 / w + n - grade)))
            img.pixels[i + 3] = 255
        }
    }
    return img
}

@Suite("Size cap: the first attempt coded again, and advice before the long work")
struct SizeCapReuseTests {
    /// A 1.5 s dissolve between two grainy pictures at 240×160, 20 fps.
    static func dissolveScene() -> RenderSpec {
        var spec = sweepSpec(hold: 0.25, duration: 1.5, loop: .forever)
        spec.before = .image(grainy(240, 160, seed: 1))
        spec.after = .image(grainy(240, 160, seed: 2, grade: 40))
        spec.reduceMotion = .dissolve
        return spec
    }

    @Test("A cap a larger lossy budget meets: coded again from the first attempt, under the cap, that recording's bytes at the budget")
    func lossyFromTheFirstAttempt() throws {
        var spec = Self.dissolveScene()
        let free = try Renderer.render(spec, to: tempPath("free.gif"))
        spec.maxBytes = free.bytes * 7 / 10
        let path = tempPath("lossy-capped.gif")
        let attempts = Mutex(Set<Int>())
        let tries = Mutex([String]())
        let bounds = Mutex([(attempt: Int, bound: Int)]())
        let r = try Renderer.render(spec, to: path) { p in
            attempts.withLock { _ = $0.insert(p.attempt) }
            tries.withLock { if $0.last != p.trying { $0.append(p.trying) } }
            bounds.withLock { $0.append((p.attempt, p.attempts)) }
        }
        // The most attempts the fit can take: a bound no attempt passes and that never grows.
        let seen = bounds.withLock { $0 }
        #expect(seen.last!.attempt <= seen.first!.bound, "\(seen.first!) to \(seen.last!)")
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $1.bound <= $0.bound })
        #expect(r.bytes <= spec.maxBytes! && FileBytes.size(path) == r.bytes)
        // Numbered from 1 without a gap; with two cores, the first guesses coded two at once.
        #expect(attempts.withLock { $0 } == Set(1...attempts.withLock { $0.count }))
        if ParallelCores.count > 1 {
            #expect(tries.withLock { $0 }.dropFirst().first?.contains(/lossy \d+ and \d+ at once/) == true, "\(tries.withLock { $0 })")
        }
        // Nothing is left beside the output: the stage and every coding's file are gone.
        let (folder, name) = (URL(fileURLWithPath: path).deletingLastPathComponent().path, URL(fileURLWithPath: path).lastPathComponent)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(name) && $0 != name }
        #expect(left.isEmpty, "\(left)")
        // Most of the budget is used: the search stops within 5 % of it, or a step short of it.
        #expect(Double(r.bytes) >= 0.85 * Double(spec.maxBytes!), "\(r.bytes) of \(spec.maxBytes!)")
        let note = try #require(r.notes.first { $0.contains("to fit under") })
        let lossy = try #require(
            note.firstMatch(of: /lossy LZW 10 → (\d+)/).flatMap { Int($0.1) }, "\(note)")
        #expect(!note.contains("colours") && !note.contains("frame rate") && r.fps == spec.fps && r.colors == free.colors)
        // The estimate lands at once or a round later: the first attempt and at most three
        // rounds of codings (each one attempt, two budgets at once with two cores).
        #expect(attempts.withLock { $0.count } <= 4, "\(attempts.withLock { $0 })")
        // The file is the first attempt's quantization coded again at that budget, byte for
        // byte (QuantizedFramesTests: that is an encode's bytes with the same early passes).
        var first = spec
        first.maxBytes = nil
        let recording = QuantizedFrames()
        _ = try Renderer.renderOnce(first, kind: .gif, to: tempPath("first.gif"), recording: recording)
        let again = tempPath("again.gif")
        _ = try GIFEncoder.recode(recording, lossy: lossy, path: again, destination: again)
        #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == Data(contentsOf: URL(fileURLWithPath: path)))
        // And rendering that budget whole, every early pass run, gives the same frames at about the same size.
        var at = spec
        (at.lossy, at.maxBytes) = (lossy, nil)
        let whole = try Renderer.render(at, to: tempPath("at-lossy.gif"))
        #expect(
            whole.framesWritten == r.framesWritten && abs(Double(whole.bytes) / Double(r.bytes) - 1) < 0.03,
            "\(whole.bytes) against \(r.bytes)")
        #expect(r.capAdvice == nil)
    }

    @Test("A cap that takes fewer colours or frames than quality 40 keeps: advice once, before the search, and in the result")
    func adviceBeforeTheLongWork() throws {
        var spec = try GIFOutputTests.capScene()
        let free = try Renderer.render(spec, to: tempPath("adv-free.gif"))
        // Well under what quality 40 with every colour makes, still over the least the ladder gives.
        let floor = try Renderer.render(GIFOutputTests.capFloor(spec), to: tempPath("adv-floor.gif"))
        spec.maxBytes = floor.bytes * 4 / 5
        #expect(Double(spec.maxBytes!) < 0.45 * Double(free.bytes))
        let events = Mutex([String]())
        spec.advise = { a in events.withLock { $0.append("advice: " + a.message) } }
        let r = try Renderer.render(spec, to: tempPath("adv.gif")) { p in
            events.withLock { if $0.last != "attempt \(p.attempt)" { $0.append("attempt \(p.attempt)") } }
        }
        #expect(r.bytes <= spec.maxBytes!)
        let seen = events.withLock { $0 }
        let said = seen.filter { $0.hasPrefix("advice: ") }
        #expect(said.count == 1, "\(seen)")
        // Said after the first attempt (and the least, when rendered after it), before the ladder's rungs.
        let at = try #require(seen.firstIndex { $0.hasPrefix("advice: ") })
        #expect(seen[..<at].filter { $0.hasPrefix("attempt") }.count <= 2, "\(seen)")
        #expect(seen[(at + 1)...].contains { $0.hasPrefix("attempt") }, "\(seen)")
        let advice = try #require(r.capAdvice)
        #expect("advice: " + advice.message == said.first)
        #expect(advice.message.contains("fewer colours or frames than quality 40"), "\(advice.message)")
        // Pictures: no end (a sweep changes each pixel once however long it takes), a smaller size.
        #expect(advice.end == nil)
        #expect(advice.width < spec.width! && advice.height < spec.height! && advice.width % 2 == 0 && advice.height % 2 == 0)
        // A cap quality meets: no advice.
        spec.maxBytes = free.bytes * 9 / 10
        let told = Mutex(false)
        spec.advise = { _ in told.withLock { $0 = true } }
        #expect(try Renderer.render(spec, to: tempPath("adv-none.gif")).capAdvice == nil)
        #expect(!told.withLock { $0 })
    }

    @Test("On a photo-like dissolve, the size the advice names fits at quality 40 with every colour and the full rate")
    func advisedSizeFits() throws {
        var spec = Self.dissolveScene()
        let free = try Renderer.render(spec, to: tempPath("fit-free.gif"))
        spec.maxBytes = free.bytes * 3 / 10
        let r = try Renderer.render(spec, to: tempPath("fit-capped.gif"))
        #expect(r.bytes <= spec.maxBytes!)
        let advice = try #require(r.capAdvice)
        var smaller = spec
        (smaller.width, smaller.height, smaller.quality, smaller.maxBytes) = (advice.width, advice.height, 40, nil)
        let made = try Renderer.render(smaller, to: tempPath("fit-smaller.gif"))
        #expect(made.bytes <= spec.maxBytes!, "\(advice.width)x\(advice.height): \(made.bytes) of \(spec.maxBytes!)")
        #expect(made.fps == spec.fps)
    }

    @Test("A lossy search's guesses: between two attempts kept a quarter in unless a round codes two; two aims either side of one guess")
    func lossyGuesses() {
        let hi = (l: 10, bytes: 2_000_000), lo = (l: 30, bytes: 1_000_000)
        // The curve through the two: log2 bytes fall 1 from 10 to 30, where the typical curve
        // falls 1.11 (−0.99 at 25, −1.35 at 40), so 1.05 MB (−0.93) reads −1.032 on it: 26.74.
        #expect(SizeCap.nextLossy(hi: hi, lo: lo, target: 1_050_000) == 25)  // kept at three quarters in
        #expect(abs(SizeCap.nextLossy(hi: hi, lo: lo, target: 1_050_000, kept: false) - 26.74) < 0.01)
        // Fewer bytes wanted, a larger budget: the ends of "close enough" bracket the aim.
        let cap = 1_080_000.0
        let ends = [0.99, 0.97, 0.955].map { SizeCap.nextLossy(hi: hi, lo: lo, target: $0 * cap, kept: false) }
        #expect(ends[0] < ends[1] && ends[1] < ends[2], "\(ends)")
        // Unbracketed, the two aims of a round lie either side of the one guess, a few budgets apart.
        let one = SizeCap.nextLossy(hi: hi, lo: nil, target: 0.97 * cap)
        let (more, fewer) = (
            SizeCap.nextLossy(hi: hi, lo: nil, target: 0.97 * cap * exp2(SizeCap.spread)),
            SizeCap.nextLossy(hi: hi, lo: nil, target: 0.97 * cap * exp2(-SizeCap.spread))
        )
        #expect(more < one && one < fewer && fewer - more < 10, "\(more), \(one), \(fewer)")
    }
}
