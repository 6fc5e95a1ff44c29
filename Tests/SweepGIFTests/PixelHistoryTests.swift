import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@testable import SweepGIF

@Suite("GIF: what each pixel showed for its last source colours")
struct PixelHistoryTests {
    @Test("A pixel remembers what it showed for its last four source colours, most recent first, updated when shown again")
    func pixelHistory() {
        var history = PixelHistory(count: 2)
        let (a, b, c, d, e, f) = (
            PixelHistory.key(10, 0, 0, 255), PixelHistory.key(20, 0, 0, 255), PixelHistory.key(30, 0, 0, 255),
            PixelHistory.key(40, 0, 0, 255), PixelHistory.key(50, 0, 0, 255), PixelHistory.key(60, 0, 0, 255)
        )
        #expect(PixelHistory.key(10, 0, 0, 127) == 0)  // a transparent source is never remembered
        history.move(1, to: a, leaving: 0)  // the first frame: nothing shown before
        #expect(history.recall(1, a) == 0)
        history.move(1, to: b, leaving: 0xFF00_0011)
        #expect(history.recall(1, a) == 0xFF00_0011)
        #expect(history.recall(0, a) == 0)  // another pixel's memory is its own
        for (next, shown) in [(c, UInt32(0xFF00_0022)), (d, 0xFF00_0033), (e, 0xFF00_0044)] { history.move(1, to: next, leaving: shown) }
        // Four remembered: a, b, c, d (e is shown now).
        #expect([a, b, c, d].map { history.recall(1, $0) } == [0xFF00_0011, 0xFF00_0022, 0xFF00_0033, 0xFF00_0044])
        history.move(1, to: f, leaving: 0xFF00_0055)  // e joins, the oldest (a) goes
        #expect(history.recall(1, a) == 0)
        #expect(history.recall(1, e) == 0xFF00_0055)
        // Back to c, now shown as 0x66: leaving it updates c's entry rather than adding one.
        history.move(1, to: c, leaving: 0xFF00_0066)
        history.move(1, to: a, leaving: 0xFF00_0077)
        #expect(history.recall(1, c) == 0xFF00_0077)
        #expect([d, e, f].map { history.recall(1, $0) } == [0xFF00_0044, 0xFF00_0055, 0xFF00_0066])
        #expect(history.recall(1, b) == 0)
        // Nothing is remembered for a source that showed nothing (transparent).
        history.move(1, to: 0, leaving: 0xFF00_0088)
        history.move(1, to: b, leaving: 0)
        #expect(history.recall(1, 0) == 0)
    }

    @Test("A split that moves back brings the picture back as it was shown: no patchwork of bands")
    func splitMovingBack() throws {
        // Smooth gradients (dithered, with a small lossy budget at 90), a divider two pixels
        // wide in a third colour, the split going to two thirds and back, a few pixels a frame.
        let (w, h) = (180, 60)
        let before = picture(w, h) { x, y in (90 + x / 4, 100 + y / 3 + x / 8, 120 + x / 6) }
        let after = picture(w, h) { x, y in (200 - x / 3, 60 + y, 150 - x / 5 - y / 2) }
        let edges = Array(stride(from: 0, through: 120, by: 7)) + Array(stride(from: 120, through: 0, by: -9)) + [0]
        let frames = edges.map { edge in
            var f = before
            for y in 0..<h {
                for x in 0..<min(w, edge + 2) {
                    let i = (y * w + x) * 4
                    for c in 0..<3 { f.pixels[i + c] = x < edge ? after.pixels[i + c] : 250 }
                }
            }
            return f
        }
        let palette = GIFPalette.build(samples: [(before, 1), (after, 1)], count: 64)
        #expect(!palette.isExact)
        let out = try writeGIF(frames, palette: palette, quality: 90)
        #expect(out.frames.count == frames.count)
        // Back at the start, every pixel shows what it showed in the first frame.
        let first = out.frames[0], last = out.frames[frames.count - 1]
        var differ = 0
        for y in 0..<h { for x in 0..<w where first[x, y] != last[x, y] { differ += 1 } }
        #expect(differ == 0, "\(differ) of \(w * h) pixels differ")
    }
}
