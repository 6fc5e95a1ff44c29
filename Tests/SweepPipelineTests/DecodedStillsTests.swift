import Foundation
import SweepTestSupport
import SweepTimeline
import SweepWorker
import Synchronization
import Testing

@testable import SweepImaging
@testable import SweepPipeline

@Suite("Size cap: still inputs decoded once for all of a fit's attempts")
struct DecodedStillsTests {
    /// Two 240×160 PNG files, a test card and the same card darker, written by FFmpeg: a flat
    /// picture, which a cap fits by the quality search, a whole render an attempt.
    static func cards() throws -> (before: String, after: String) {
        let (a, b) = (tempPath("card-before.png"), tempPath("card-after.png"))
        try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=240x160", "-frames:v", "1", a])
        try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=240x160", "-vf", "eq=brightness=-0.25", "-frames:v", "1", b])
        return (a, b)
    }

    static func dissolve(_ files: (before: String, after: String)) -> RenderSpec {
        var spec = sweepSpec(hold: 0.25, duration: 1.5)
        (spec.before, spec.after) = (.file(files.before), .file(files.after))
        spec.reduceMotion = .dissolve
        return spec
    }

    @Test(
        "A capped GIF decodes each still input once over all its attempts (the worker once more, at the size found), and its file is its settings' uncapped, byte for byte"
    )
    func cappedDecodesOnce() throws {
        let files = try Self.cards()
        // The size is found from the inputs first, decoded whole; the worker then decodes
        // once more, resized to that size as it decodes, for every attempt.
        for (decoding, opens) in [(DecodeIsolation.worker, 2), (.inProcess, 1)] {
            var spec = Self.dissolve(files)
            spec.decoding = decoding
            let free = try Renderer.render(spec, to: tempPath("cards-free.gif"))
            spec.maxBytes = free.bytes * 6 / 10
            let stills = DecodedStills()
            spec.stills = stills
            let attempts = Mutex(Set<Int>())
            let out = tempPath("cards-capped.gif")
            let r = try Renderer.render(spec, to: out) { p in attempts.withLock { _ = $0.insert(p.attempt) } }
            #expect(r.bytes <= spec.maxBytes!)
            #expect(attempts.withLock { $0.count } >= 2, "the fit took more than one attempt")
            #expect(stills.opens(side: 0) == opens && stills.opens(side: 1) == opens, "\(decoding)")
            // Decoded anew, uncapped at the settings the fit chose: the same file.
            let note = try #require(r.notes.first { $0.contains("to fit under") })
            var same = spec
            (same.maxBytes, same.stills) = (nil, nil)
            same.quality = try #require(GIFOutputTests.quality(in: note), "\(note)")
            if note.contains("colours") { same.gifColors = (r.colors ?? 0) + 1 }
            let again = tempPath("cards-again.gif")
            _ = try Renderer.render(same, to: again)
            #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == Data(contentsOf: URL(fileURLWithPath: out)))
        }
    }

    @Test(
        "At another size (a lower rung), a kept still gives the pixels of decoding it anew: resized from its decode, or decoded again where the worker resizes"
    )
    func anotherSize() throws {
        let files = try Self.cards()
        // The decode worker resizes a still to the render's size as it decodes: once per
        // size. In process, the decode is kept whole and resized per size.
        for (decoding, opens) in [(DecodeIsolation.worker, 2), (.inProcess, 1)] {
            var spec = Self.dissolve(files)
            spec.decoding = decoding
            let stills = DecodedStills()
            for (w, h) in [(240, 160), (192, 128), (240, 160)] {
                (spec.width, spec.height) = (w, h)
                var kept = spec
                kept.stills = stills
                let (a, b) = (try FrameSource(spec: kept), try FrameSource(spec: spec))
                #expect(a.beforeBase == b.beforeBase && a.afterBase == b.afterBase && a.width == w && a.height == h)
            }
            #expect(stills.opens(side: 0) == opens && stills.opens(side: 1) == opens, "\(decoding)")
        }
    }

    @Test("A clip side is not kept: each attempt opens it afresh, at its start")
    func clipsOpenAfresh() throws {
        let clip = tempPath("stills-counter.mp4")
        try ClipMaker.counter(clip, fps: 10, seconds: 1)
        var spec = Self.dissolve(try Self.cards())
        spec.before = .file(clip)
        let stills = DecodedStills()
        spec.stills = stills
        let first = try FrameSource(spec: spec)
        let start = first.beforeBase
        try first.advanceClips(to: 0.5)
        #expect(first.beforeBase != start, "the counter moved on")
        let second = try FrameSource(spec: spec)
        #expect(second.beforeClip !== first.beforeClip && second.beforeBase == start)
        #expect(stills.opens(side: 0) == 2 && stills.opens(side: 1) == 1)
    }
}
