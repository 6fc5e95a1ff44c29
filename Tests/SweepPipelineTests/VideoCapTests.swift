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
        let q = w.refined(fit: 40, bytes: 300)
        #expect(q != nil && q! > 40 && q! < 80)
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

    @Test("A cap past CRF 28: one advice, once two attempts measured the slope, naming a size at which CRF 28 fits; none when it fits")
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
        // A cap CRF 28 meets: the fit stays at or below it, and says nothing.
        spec.maxBytes = bytes28 * 3 / 2
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
