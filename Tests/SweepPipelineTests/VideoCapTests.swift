import Foundation
import SweepImaging
import SweepSupport
import SweepTestSupport
import Synchronization
import Testing

@testable import SweepPipeline

/// A video size cap aims its rate factor at the budget from the bytes the attempts made
/// (issue 61, item 4), instead of a fixed ladder of +4 steps that stopped 12 steps up.
@Suite("Video size caps")
struct VideoCapTests {
    @Test("The search: one attempt aims by bytes halving every 6 CRF steps; two by their own slope; it stops at 51")
    func search() {
        var s = VideoCapSearch(knob: "crf", start: 20, bound: 51, halving: 6, keepsLook: 28, cap: 1000)
        // 4000 bytes at CRF 20: log2(4000 / 950) = 2.07 halvings, 12.4 steps up: 33.
        #expect(s.next(after: 20, bytes: 4000) == 33)
        // 1200 at 33: the two measured 13 steps for log2(4000 / 1200) = 1.74 halvings, 7.5 a
        // halving; log2(1200 / 950) = 0.34 of one is 2.5 steps: 36.
        #expect(s.next(after: 33, bytes: 1200) == 36)
        // Far over the budget: never past the bound, and nothing after it.
        var far = VideoCapSearch(knob: "crf", start: 40, bound: 51, halving: 6, keepsLook: 28, cap: 1000)
        #expect(far.next(after: 40, bytes: 1_000_000) == 51)
        #expect(far.next(after: 51, bytes: 900_000) == nil)
        // An animated WebP's quality falls toward 0.
        var webp = VideoCapSearch(knob: "quality", start: 80, bound: 0, halving: 12, keepsLook: 50, cap: 1000)
        let q = webp.next(after: 80, bytes: 2000)
        #expect(q != nil && q! < 80 && q! >= 0)
    }

    @Test("A fit under three quarters of the cap is tried once more, between it and the last attempt over")
    func refined() {
        var s = VideoCapSearch(knob: "crf", start: 20, bound: 51, halving: 6, keepsLook: 28, cap: 1000)
        _ = s.next(after: 20, bytes: 16000)
        // 16000 at 20, 500 at 36: the line falls log2(32) = 5 halvings in 16 steps; 95 % of the
        // cap is log2(16000 / 950) = 4.07 of them, 13.03 steps: 33.03, rounded toward the fit.
        #expect(s.refined(fit: 36, bytes: 500) == 34)
        // Three quarters or more of the cap: kept as it is.
        #expect(s.refined(fit: 36, bytes: 760) == nil)
        // Nothing between: none.
        #expect(s.refined(fit: 21, bytes: 500) == nil)
        // An animated WebP's quality goes the other way.
        var w = VideoCapSearch(knob: "quality", start: 80, bound: 0, halving: 12, keepsLook: 50, cap: 1000)
        _ = w.next(after: 80, bytes: 4000)
        // log2(4000 / 950) / log2(4000 / 300) = 0.555 of 40 steps down: 57.8, rounded toward the fit.
        #expect(w.refined(fit: 40, bytes: 300) == 57)
        // No attempt left after five over: none.
        var spent = VideoCapSearch(knob: "crf", start: 20, bound: 51, halving: 6, keepsLook: 28, cap: 1000)
        for v in [20, 24, 28, 30, 32] { _ = spent.next(after: v, bytes: 2000) }
        #expect(spent.refined(fit: 40, bytes: 300) == nil)
    }

    @Test("The bytes at CRF 28: only when the cap is shown to need more; read off the two attempts either side")
    func keepingLook() {
        let s = VideoCapSearch(knob: "crf", start: 20, bound: 51, halving: 6, keepsLook: 28, cap: 1000)
        // Over at 20, fitted at 36 with 500: even the slowest fall (24 steps a halving) from
        // the fit reads 500 · 2^(8/24) = 630 at 28, under the cap: not shown, nothing said.
        #expect(s.bytesKeepingLook([(20, 4000)], fit: (36, 500)) == nil)
        // Fitted at 40 with 900: 900 · 2^(12/24) = 1273, over: shown; the line through 20 and 40.
        let read = s.bytesKeepingLook([(20, 4000)], fit: (40, 900))
        #expect(read != nil && abs(read! - 4000 * pow(900.0 / 4000, 0.4)) < 1)
        // Over at 30: shown; the line through 20 and 30 gives 4000^0.2 · 1200^0.8 = 1527.
        let over = s.bytesKeepingLook([(20, 4000), (30, 1200)], fit: (36, 500))
        #expect(over != nil && abs(over! - 1526.7) < 1)
        // Over at 28 itself: its own bytes.
        #expect(s.bytesKeepingLook([(20, 4000), (28, 1300)], fit: (33, 900)) == 1300)
        // A first attempt already past 28 (the knob set there): nothing to keep.
        #expect(s.bytesKeepingLook([(30, 4000)], fit: (40, 900)) == nil)
    }

    /// A sweep between two grainy photo-like pictures (seeds `seed` and `seed + 1`, the second
    /// graded), at their size.
    static func grainySweep(_ w: Int, _ h: Int, fps: Double, duration: Double, seed: Int) -> RenderSpec {
        var spec = sweepSpec(hold: 0.2, duration: duration)
        spec.before = .image(grainy(w, h, seed: seed))
        spec.after = .image(grainy(w, h, seed: seed + 1, grade: 30))
        (spec.width, spec.height, spec.fps) = (w, h, fps)
        return spec
    }

    @Test("An MP4 under a tenth of its size: it fits, uses most of the budget, in at most 4 renders, every frame kept")
    func tenth() throws {
        let dir = try Scratch.folder("video-cap")
        var spec = Self.grainySweep(320, 240, fps: 15, duration: 2, seed: 1)
        let free = try Renderer.render(spec, to: dir + "/free.mp4")
        spec.maxBytes = free.bytes / 10
        let attempts = Mutex(0)
        let r = try Renderer.render(spec, to: dir + "/capped.mp4") { p in attempts.withLock { $0 = max($0, p.attempt) } }
        let bytes = try FileManager.default.attributesOfItem(atPath: dir + "/capped.mp4")[.size] as! Int
        #expect(bytes <= free.bytes / 10 && bytes == r.bytes)
        #expect(Double(bytes) >= 0.5 * Double(free.bytes / 10), "\(bytes) of \(free.bytes / 10)")
        #expect(attempts.withLock { $0 } <= 4, "\(r.notes)")
        #expect(r.notes.contains { $0.contains("to fit under") && $0.contains("CRF 20 → ") }, "\(r.notes)")
        // The frames are all there, as ffprobe counts them.
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        probe.arguments = [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
            "-of", "csv=p=0", dir + "/capped.mp4",
        ]
        let out = Pipe()
        probe.standardOutput = out
        try probe.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        #expect(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) == free.frames)
    }

    @Test("A cap past CRF 28: one advice, naming a size at which CRF 28 fits; none when CRF 28 fits")
    func advice() throws {
        let dir = try Scratch.folder("video-cap-advice")
        var spec = Self.grainySweep(320, 240, fps: 15, duration: 2, seed: 5)
        var at28 = spec
        at28.videoOptions = [("crf", "28")]
        let bytes28 = try Renderer.render(at28, to: dir + "/28.mp4").bytes
        let cap = bytes28 / 3
        spec.maxBytes = cap
        let said = Mutex<[String]>([])
        spec.advise = { a in said.withLock { $0.append(a.message) } }
        let r = try Renderer.render(spec, to: dir + "/capped.mp4")
        #expect(r.bytes <= cap)
        let advice = try #require(r.capAdvice, "\(r.notes)")
        #expect(said.withLock { $0 } == [advice.message])
        #expect(advice.message.contains("past CRF 28"), "\(advice.message)")
        // Pictures: no end; a smaller size, even.
        #expect(advice.end == nil)
        #expect(advice.width < 320 && advice.height < 240 && advice.width % 2 == 0 && advice.height % 2 == 0)
        var smaller = at28
        (smaller.width, smaller.height) = (advice.width, advice.height)
        let made = try Renderer.render(smaller, to: dir + "/smaller.mp4")
        #expect(made.bytes <= cap, "\(advice.width)x\(advice.height) at CRF 28: \(made.bytes) of \(cap)")
        // A cap CRF 28 meets: nothing said.
        spec.maxBytes = bytes28 * 11 / 10
        said.withLock { $0 = [] }
        let mild = try Renderer.render(spec, to: dir + "/mild.mp4")
        #expect(mild.capAdvice == nil && said.withLock { $0 }.isEmpty, "\(mild.notes)")
    }

    @Test("Under what even CRF 51 cannot reach: refused, naming the limit, nothing written")
    func unreachable() throws {
        let dir = try Scratch.folder("video-cap-none")
        var spec = Self.grainySweep(160, 120, fps: 10, duration: 1, seed: 3)
        spec.maxBytes = 1024
        do {
            _ = try Renderer.render(spec, to: dir + "/tiny.mp4")
            Issue.record("a 1 KiB cap fitted")
        } catch let e as SweepError {
            #expect(e.code == .dataError && e.message.contains("over the limit of"), "\(e)")
            #expect(e.fix?.contains("crf 51 is the most it gives") == true, "\(e)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/tiny.mp4"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
}
