import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@testable import SweepGIF

/// Index patterns that stress different parts of the coder: noise (short matches, many
/// resets), runs (long matches), a repeating tile (KwKwK codes) and a picture whose halves
/// differ (a stretch should end at the change).
private func pattern(_ kind: Int, width: Int, height: Int, colors: Int) -> [UInt8] {
    // Seeded, so a failing pattern is the same on the next run.
    var rng = SeededGenerator(seed: UInt64(kind * 1_000_003 + width * 1009 + height * 31 + colors))
    var out = [UInt8](repeating: 0, count: width * height)
    for i in out.indices {
        let x = i % width, y = i / width
        switch kind {
        case 0: out[i] = UInt8(Int.random(in: 0..<colors, using: &rng))
        case 1: out[i] = UInt8((x / 37 + y / 11) % colors)
        case 2: out[i] = UInt8((x * 7 + y * 3) % 5 % colors)
        default: out[i] = y < height / 2 ? UInt8(Int.random(in: 0..<colors, using: &rng)) : UInt8((x / 9) % colors)
        }
    }
    return out
}

/// Writes `indices` as a one-frame GIF with an exact palette of `colors` greys.
private func writeGIF(_ indices: [UInt8], width: Int, height: Int, colors: Int) throws -> (path: String, image: RGBAImage) {
    let greys = (0..<colors).map { RGBA8(r: UInt8($0 * 255 / max(1, colors - 1)), g: UInt8($0 * 97 % 256), b: UInt8($0), a: 255) }
    var image = RGBAImage(width: width, height: height)
    for (i, v) in indices.enumerated() {
        let c = greys[Int(v)]
        image.pixels[i * 4] = c.r; image.pixels[i * 4 + 1] = c.g; image.pixels[i * 4 + 2] = c.b; image.pixels[i * 4 + 3] = 255
    }
    let path = tempPath("lzw-\(colors).gif")
    let w = try GIFWriter(
        path: path, width: width, height: height,
        palette: GIFPalette(colors: greys, transparentIndex: nil, isExact: true), dither: .none)
    try w.add(image, delay: 4)
    try w.finish()
    return (path, image)
}

@Suite("LZW coder")
struct LZWEncoderTests {
    @Test(
        "Every code size and pattern decodes exactly, with giflib and with FFmpeg",
        arguments: [2, 3, 5, 16, 17, 100, 256])
    func decodesExactly(colors: Int) throws {
        for kind in 0..<4 {
            let (path, image) = try writeGIF(
                pattern(kind, width: 331, height: 157, colors: colors), width: 331, height: 157, colors: colors)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let giflib = try GIFReader(path: path)
            #expect(giflib.frames.count == 1)
            #expect(giflib.frames.first?.pixels == image.pixels, "giflib, \(colors) colours, pattern \(kind)")
            let ffmpeg = try VideoReader(path: path)
            #expect(ffmpeg.frames.count == 1)
            #expect(ffmpeg.frames.first?.pixels == image.pixels, "FFmpeg, \(colors) colours, pattern \(kind)")
        }
    }

    @Test("Resetting where it is cheapest beats resetting only when full on a picture whose texture changes")
    func cheaperThanFullResets() throws {
        // A strip of a photo, as one frame of a wipe writes it (8 px wide): sky above, a
        // textured deck below, whose noise the sky's dictionary does not help with. The noise
        // is a fixed hash, so the test sees the same picture every run.
        let width = 8, height = 720
        var data = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let hash = (UInt32(x + 8 * y) &* 2_654_435_761) ^ (UInt32(y) &* 2_246_822_519)
                let noise = Int((hash ^ (hash >> 15)) % 24)
                data[y * width + x] = y < height / 2 ? UInt8(y / 4 + (x + y) % 3) : UInt8(100 + noise + y % 7)
            }
        }
        var lzw = LZWEncoder()
        let a = lzw.encode(data, minCodeSize: 8, policy: .whereCheapest)
        let b = lzw.encode(data, minCodeSize: 8, policy: .whenFull)
        #expect(a.count < b.count, "\(a.count) vs \(b.count)")
        // The writer keeps the smaller stream, this one, and it decodes exactly.
        let (path, image) = try writeGIF(data, width: width, height: height, colors: 256)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try GIFReader(path: path).frames.first?.pixels == image.pixels)
    }

    @Test("Sub-blocks hold at most 255 bytes and chain to the end of the stream")
    func subBlocks() {
        var lzw = LZWEncoder()
        let stream = lzw.encode(pattern(0, width: 200, height: 200, colors: 256), minCodeSize: 8, policy: .whereCheapest)
        var i = 0, blocks = 0
        while i < stream.count {
            #expect(stream[i] > 0)
            i += Int(stream[i]) + 1
            blocks += 1
        }
        #expect(i == stream.count)
        #expect(blocks == (stream.count - blocks + 254) / 255)
    }
}
