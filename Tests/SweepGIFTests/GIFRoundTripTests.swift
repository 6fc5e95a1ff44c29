import Foundation
import SweepImaging
import SweepTestSupport
import Testing

@testable import SweepGIF

func tempPath(_ name: String) -> String {
    Scratch.path(name)
}

/// A smooth two-colour gradient, so quantization has real work to do.
func gradient(_ w: Int, _ h: Int, shift: Int = 0) -> RGBAImage {
    var img = RGBAImage(width: w, height: h)
    for y in 0..<h {
        for x in 0..<w {
            let i = (y * w + x) * 4
            img.pixels[i] = UInt8((x * 255 / max(1, w - 1) + shift) % 256)
            img.pixels[i + 1] = UInt8(y * 255 / max(1, h - 1))
            img.pixels[i + 2] = UInt8(128)
        }
    }
    return img
}

/// A wipe from `a` to `b` in `steps` frames.
func wipe(_ a: RGBAImage, _ b: RGBAImage, steps: Int) -> [RGBAImage] {
    (0...steps).map { s in
        var f = a
        let edge = a.width * s / steps
        for y in 0..<a.height {
            for x in 0..<edge { for c in 0..<4 { f.pixels[(y * a.width + x) * 4 + c] = b.pixels[(y * a.width + x) * 4 + c] } }
        }
        return f
    }
}

/// Writes `frames` (4 cs each) with `palette`, checks that giflib decodes one frame per
/// source frame and that FFmpeg decodes the same pixels, and returns what giflib decodes and
/// the file's size. The file is removed unless `keep` is set; then `path` names it.
func writeGIF(
    _ frames: [RGBAImage], palette: GIFPalette, quality: Int = 90, lossy: Int? = nil, dither: DitherMode = .diffusion,
    firstFramePalette: GIFPalette? = nil, stretches: StretchPalettes = .none, usage: ColorUsage = .unknown, keep: Bool = false,
    screenTimes: [ScreenTime]? = nil
) throws -> (path: String, frames: [RGBAImage], bytes: Int) {
    let path = tempPath("written.gif")
    defer { if !keep { try? FileManager.default.removeItem(atPath: path) } }
    let writer = try GIFWriter(
        path: path, width: frames[0].width, height: frames[0].height, palette: palette, dither: dither,
        quality: GIFQuality(quality), lossy: lossy, firstFramePalette: firstFramePalette, usage: usage,
        stretches: stretches)
    for (i, f) in frames.enumerated() { try writer.add(f, delay: 4, screenTime: screenTimes?[i]) }
    try writer.finish()
    let giflib = try GIFReader(path: path).frames
    let ffmpeg = try VideoReader(path: path).frames
    #expect(giflib.count == frames.count)
    #expect(ffmpeg.count == giflib.count)
    for (a, b) in zip(giflib, ffmpeg) { #expect(a.pixels == b.pixels, "giflib and FFmpeg differ") }
    return (path, giflib, writer.bytesWritten)
}

@Suite("GIF writer round trips through giflib")
struct GIFRoundTripTests {
    @Test("Timing rounds cumulatively: 30 fps gives 3,3,4; never below 2 cs")
    func timing() {
        #expect(Array(GIFTiming.delays(count: 6, fps: 30)) == [3, 3, 4, 3, 3, 4])
        #expect(GIFTiming.delays(count: 30, fps: 30).reduce(0, +) == 100)
        #expect(GIFTiming.delays(count: 4, fps: 100).allSatisfy { $0 >= 2 })
        #expect(GIFTiming.delays(count: 25, fps: 25).allSatisfy { $0 == 4 })
    }

    @Test("Frames, delays, loop count and version survive; pixels stay close to the source")
    func roundTrip() throws {
        let a = gradient(64, 48), b = gradient(64, 48, shift: 60)
        let palette = GIFPalette.build(samples: [(a, 1), (b, 1)], count: 256)
        let path = tempPath("rt.gif")
        let w = try GIFWriter(path: path, width: 64, height: 48, palette: palette, dither: .diffusion, loopCount: 0)
        try w.add(a, delay: 4)
        try w.add(b, delay: 6)
        try w.add(b, delay: 5)  // identical: merges into the previous frame's delay
        try w.add(a, delay: 4)
        try w.finish()
        let r = try GIFReader(path: path)
        #expect(r.version == "GIF89a")
        #expect(r.loopCount == 0)
        #expect(r.frames.count == 3)
        #expect(r.delays == [4, 11, 4])
        for (frame, src) in zip(r.frames, [a, b, a]) {
            var err = 0.0
            for i in 0..<(64 * 48) { for c in 0..<3 { err += abs(Double(frame.pixels[i * 4 + c]) - Double(src.pixels[i * 4 + c])) } }
            #expect(err / Double(64 * 48 * 3) < 6)
        }
    }

    @Test("A pixel whose source does not change never changes in the GIF", arguments: DitherMode.allCases)
    func zeroFlicker(dither: DitherMode) throws {
        let before = gradient(80, 40), after = gradient(80, 40, shift: 100)
        let palette = GIFPalette.build(samples: [(before, 1), (after, 1)], count: 64)
        let path = tempPath("flicker.gif")
        let w = try GIFWriter(path: path, width: 80, height: 40, palette: palette, dither: dither)
        var sources: [RGBAImage] = []
        for k in 0...8 {
            var f = after
            let edge = 80 - k * 10
            for y in 0..<40 {
                for x in 0..<edge { for c in 0..<4 { f.pixels[(y * 80 + x) * 4 + c] = before.pixels[(y * 80 + x) * 4 + c] } }
            }
            sources.append(f)
            try w.add(f, delay: 4)
        }
        try w.finish()
        let frames = try GIFReader(path: path).frames
        #expect(frames.count == 9)
        for k in 1..<frames.count {
            for p in 0..<(80 * 40) where sources[k].pixels[p * 4..<p * 4 + 4] == sources[k - 1].pixels[p * 4..<p * 4 + 4] {
                #expect(frames[k].pixels[p * 4..<p * 4 + 4] == frames[k - 1].pixels[p * 4..<p * 4 + 4])
            }
        }
    }

    @Test("Reserved colours are in the palette exactly")
    func reserved() {
        let img = gradient(32, 32)
        let p = GIFPalette.build(samples: [(img, 1)], count: 16, reserved: [.white, RGBA8(r: 1, g: 2, b: 3)])
        #expect(p.colors.contains(.white))
        #expect(p.colors.contains(RGBA8(r: 1, g: 2, b: 3)))
        #expect(p.colors.count <= 15 && p.transparentIndex == p.colors.count)
    }

    @Test("A write failure (disk full) is an I/O error")
    func diskFull() throws {
        let img = gradient(64, 64)
        let palette = GIFPalette.build(samples: [(img, 1)], count: 256)
        #expect(throws: (any Error).self) {
            let w = try GIFWriter(path: "/dev/full", width: 64, height: 64, palette: palette)
            try w.add(img, delay: 4)
            try w.finish()
        }
    }
}

@Suite("Palettes per stretch of frames")
struct LocalPaletteTests {
    @Test("A frame the global palette fits poorly gets its own table; pixels stay right and still pixels stay still")
    func localTables() throws {
        // The global palette only knows greys; then most of the picture turns colourful.
        var grey = RGBAImage(width: 64, height: 64)
        for i in 0..<(64 * 64) {
            // Near-greys, more than 255 of them, so the palette is a real quantization.
            let v = i % 64 * 4
            grey.pixels[i * 4] = UInt8(v); grey.pixels[i * 4 + 1] = UInt8(v)
            grey.pixels[i * 4 + 2] = UInt8(min(255, v + i / 64 % 6)); grey.pixels[i * 4 + 3] = 255
        }
        let colour = gradient(64, 64)
        var mixed = colour
        for y in 0..<64 { for x in 0..<8 { for c in 0..<4 { mixed.pixels[(y * 64 + x) * 4 + c] = grey.pixels[(y * 64 + x) * 4 + c] } } }
        let palette = GIFPalette.build(samples: [(grey, 1)], count: 256)
        let path = tempPath("local.gif")
        let w = try GIFWriter(path: path, width: 64, height: 64, palette: palette, dither: .none)
        let sources = [grey, mixed, mixed, grey]
        for f in sources { try w.add(f, delay: 5) }
        try w.finish()
        #expect(w.localPaletteFrames >= 1)
        let frames = try GIFReader(path: path).frames
        #expect(frames.count == 3)  // the repeated frame is merged
        for (decoded, source) in zip(frames, [grey, mixed, grey]) {
            var err = 0.0
            for i in 0..<(64 * 64 * 4) where i % 4 != 3 { err += abs(Double(decoded.pixels[i]) - Double(source.pixels[i])) }
            #expect(err / Double(64 * 64 * 3) < 6)
        }
        // The left strip never changed in the source, so it never changes in the GIF.
        for y in 0..<64 { for x in 0..<8 { #expect(frames[1][x, y] == frames[0][x, y]) } }
    }
}
