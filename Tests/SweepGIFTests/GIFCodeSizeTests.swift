import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@testable import SweepGIF

/// Writes an exact wipe losslessly with the file's table ordered by `usage`, checks that it
/// decodes to the source frames and that no strip carries a table of its own, and returns
/// each strip's LZW minimum code size.
private func stripCodeSizes(_ frames: [RGBAImage], palette: GIFPalette, usage: ColorUsage) throws -> [Int] {
    let out = try writeGIF(frames, palette: palette, quality: 100, usage: usage, keep: true)
    defer { try? FileManager.default.removeItem(atPath: out.path) }
    for (f, src) in zip(out.frames, frames) { #expect(f.pixels == src.pixels) }
    let strips = try storedImages(out.path).dropFirst()
    #expect(strips.allSatisfy { !$0.hasLocalTable })
    return strips.map(\.minCodeSize)
}

@Suite("GIF: narrower codes for the entries a frame uses")
struct GIFCodeSizeTests {
    @Test("A frame that uses only the palette's first entries gets narrower codes, and decodes exactly")
    func narrowCodes() throws {
        // 150 light colours wiped by 40 dark ones: 190 colours, an exact palette.
        let light = picture(120, 60) { x, y in (150 + (x + y) % 100, 220, 230) }
        let dark = picture(120, 60) { x, y in (10 + (x / 3 + y) % 40, 20, 30) }
        let frames = wipe(light, dark, steps: 6)
        let palette = GIFPalette.build(samples: [(light, 1), (dark, 1)], count: 256)
        let exactPalette = palette.isExact
        #expect(exactPalette)
        let out = try writeGIF(frames, palette: palette, quality: 100, keep: true)
        defer { try? FileManager.default.removeItem(atPath: out.path) }
        for (f, src) in zip(out.frames, frames) { #expect(f.pixels == src.pixels) }
        let images = try storedImages(out.path)
        #expect(images.count == frames.count)
        // The dark strips need file indices 0…40 (the transparent index first, then the dark
        // colours): 6 bits, not the global table's 8.
        let strips = images.dropFirst().filter { !$0.hasLocalTable }
        #expect(!strips.isEmpty)
        for s in strips { #expect(s.minCodeSize <= 6, "strip at x \(s.x): code size \(s.minCodeSize)") }
    }

    @Test("The colours the wipe writes come first in the file's table, whatever their lightness, so its strips get narrower codes")
    func changedColoursFirst() throws {
        // 100 colours wiped by 50 others of the same lightnesses (the red channel alternates
        // between the two sides): a lightness order interleaves them, so a strip of the after
        // picture reaches index 150 and needs 8 bits; with its 50 colours first, 6.
        let before = picture(100, 40) { x, y in
            let k = (x + y) % 100; return (2 * k, 2 * k, 40)
        }
        let after = picture(100, 40) { x, y in
            let k = (x * 3 + y) % 50; return (4 * k + 1, 4 * k, 40)
        }
        let frames = wipe(before, after, steps: 5)
        let palette = GIFPalette.build(samples: [(before, 1), (after, 1)], count: 256)
        #expect(palette.isExact && palette.colors.count == 150)
        let usage = ColorUsage(samples: [frames[0], frames[2], frames[5]], step: 2, palette: palette)
        #expect(Set(usage.bands.joined()).count == 50)
        for usage in [ColorUsage.unknown, usage] {
            let widths = try stripCodeSizes(frames, palette: palette, usage: usage)
            #expect(widths.count == 5 && widths.allSatisfy { $0 == (usage.bands.isEmpty ? 8 : 6) })
        }
    }

    @Test("Colours most strips need come first in the file's table, so those strips code with 3-bit symbols")
    func sharedColoursFirst() throws {
        // The after picture's left two thirds use 6 mid greys; its right third uses them and
        // 15 yellows of every lightness. Lightness alone puts the greys among 141 colours, so
        // every strip needs 7 or 8 bits; the usage order puts them first (indices 1…6).
        let before = picture(96, 40) { x, y in
            let k = (x + 2 * y) % 120; return (2 * k, 2 * k, min(255, 2 * k + 1))
        }
        let after = picture(96, 40) { x, y in
            let grey = 111 + 2 * ((x + y) % 6), yellow = 5 + 8 * ((3 * x + y) % 30)
            return x < 64 || (x + y) % 2 == 0 ? (grey, grey, grey) : (yellow, yellow, 0)
        }
        let frames = wipe(before, after, steps: 12)
        let palette = GIFPalette.build(samples: [(before, 1), (after, 1)], count: 256)
        #expect(palette.isExact && palette.colors.count == 141)
        let usage = ColorUsage(samples: frames, step: 1, palette: palette)
        #expect(usage.bands.count == 12)
        let widths = try [ColorUsage.unknown, usage].map { try stripCodeSizes(frames, palette: palette, usage: $0) }
        #expect(widths.allSatisfy { $0.count == 12 })
        #expect(widths[0].prefix(8).allSatisfy { $0 >= 7 })
        #expect(widths[1].prefix(8).allSatisfy { $0 == 3 })
        #expect(widths[1].suffix(4).allSatisfy { $0 <= 6 })
    }

    @Test("The usage order places last the colour the fewest strips still counted need, and drops the strips it serves no more")
    func usageRanks() {
        // Four strips need colours 4 and 5, one needs all six. Colours 0…3 are needed once
        // each: they go last (latest in the fallback order first), and the strip needing them
        // all no longer counts, so 4 and 5 tie and the fallback order puts 4 first.
        let usage = ColorUsage(bands: [[4, 5], [4, 5], [0, 1, 2, 3, 4, 5], [5, 4], [4, 5]])
        #expect(usage.ranks(colors: 6, before: [0, 1, 2, 3, 4, 5]) == [2, 3, 4, 5, 0, 1])
        // A colour no strip needs has no place; an empty usage places none.
        #expect(ColorUsage(bands: [[1]]).ranks(colors: 3, before: [0, 1, 2]) == [nil, 0, nil])
        #expect(ColorUsage.unknown.ranks(colors: 3, before: [0, 1, 2]) == [nil, nil, nil])
    }

    @Test("A local table larger than the global one gets codes wide enough for its indices")
    func localCodeSize() {
        let block = GIFBlock(
            rect: PixelRect(x: 0, y: 0, width: 4, height: 1), data: [0, 9, 20, 30], transparent: nil,
            localColors: (0..<31).map { RGBA8(r: UInt8($0), g: 0, b: 0) })
        #expect(block.codeSize(globalTableSize: 16) == 5)
        var global = block
        global.localColors = nil
        #expect(global.codeSize(globalTableSize: 256) == 5)
        global.data = [0, 3, 2]
        #expect(global.codeSize(globalTableSize: 256) == 2)
    }
}
