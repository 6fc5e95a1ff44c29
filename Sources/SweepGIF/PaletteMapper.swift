import SweepImaging

#if canImport(Glibc)
    import Glibc
#endif

/// Nearest-palette-entry look-ups in OkLab, cached on a 7-bit-per-channel grid so each
/// grid cell is searched once per animation, for the cell's centre.
final class PaletteMapper {
    let palette: GIFPalette
    /// Index + 1 per grid cell, 0 while not searched yet. Zeroed pages from `calloc`, so a
    /// mapper that sees few colours (a band's table) touches a few pages, not 4 MB.
    private let cache: UnsafeMutablePointer<UInt16>
    /// Palette colours as floats for error diffusion.
    let rgb: [(Float, Float, Float)]
    private let search: LightnessSearch

    /// Open-addressed table of the palette's own colours (colour + 1, 0 = empty) and their
    /// indices, so that a colour in the palette always maps to itself exactly.
    private var exactKeys = [UInt32](repeating: 0, count: 1024)
    private var exactIndex = [UInt8](repeating: 0, count: 1024)
    /// Exact look-ups of single colours (``nearest(_:_:_:)``): colour + 1 (0 = empty), entry.
    /// From `calloc`: a mapper that never needs them touches none of their pages.
    private let memoKeys: UnsafeMutablePointer<UInt32>
    private let memoIndex: UnsafeMutablePointer<UInt8>

    init(palette: GIFPalette) {
        self.palette = palette
        guard let memory = calloc(1 << 21, MemoryLayout<UInt16>.stride) else { fatalError("out of memory") }
        cache = memory.bindMemory(to: UInt16.self, capacity: 1 << 21)
        guard let keys = calloc(1 << 16, 4), let indices = calloc(1 << 16, 1) else { fatalError("out of memory") }
        memoKeys = keys.bindMemory(to: UInt32.self, capacity: 1 << 16)
        memoIndex = indices.bindMemory(to: UInt8.self, capacity: 1 << 16)
        rgb = palette.colors.map { (Float($0.r), Float($0.g), Float($0.b)) }
        search = LightnessSearch(palette.lab)
        for (i, c) in palette.colors.enumerated() {
            let key = UInt32(c.r) << 16 | UInt32(c.g) << 8 | UInt32(c.b)
            var slot = Self.slot(key)
            while exactKeys[slot] != 0 && exactKeys[slot] != key + 1 { slot = (slot + 1) & 1023 }
            if exactKeys[slot] == 0 { exactKeys[slot] = key + 1; exactIndex[slot] = UInt8(i) }
        }
    }

    deinit {
        free(cache)
        free(memoKeys)
        free(memoIndex)
    }

    /// Linear light of each grid cell's centre (levels 2k + ½), decoded once.
    private static let centreLinear: [Float] = (0..<128).map { OkLab.linear(encoded: (Float(2 * $0) + 0.5) / 255) }

    @inline(__always)
    static func slot(_ key: UInt32) -> Int { Int((key &* 2654435761) >> 22) & 1023 }

    /// The index of the entry nearest to an sRGB colour (channels 0…255).
    @inline(__always)
    func index(_ r: Int, _ g: Int, _ b: Int) -> Int {
        own(UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)) ?? nearestCached(r, g, b)
    }

    /// The index of the palette's own colour `key` (`r << 16 | g << 8 | b`), if it is one.
    @inline(__always)
    private func own(_ key: UInt32) -> Int? {
        var slot = Self.slot(key)
        while exactKeys[slot] != 0 {
            if exactKeys[slot] == key + 1 { return Int(exactIndex[slot]) }
            slot = (slot + 1) & 1023
        }
        return nil
    }

    /// The index of the entry nearest to exactly this colour (``index(_:_:_:)`` answers for
    /// its grid cell's centre, up to half a level off per channel), remembered per colour.
    @inline(__always)
    func nearest(_ r: Int, _ g: Int, _ b: Int) -> Int {
        let key = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        if let own = own(key) { return own }
        let memo = Int((key &* 2654435761) >> 16) & 0xFFFF
        if memoKeys[memo] == key + 1 { return Int(memoIndex[memo]) }
        let found = search.nearest(OkLab(r: Float(r), g: Float(g), b: Float(b)))
        (memoKeys[memo], memoIndex[memo]) = (key + 1, UInt8(found))
        return found
    }

    /// How many of the RGBA pixels in `pixels` (every `every`-th of them) each entry serves.
    func usage(of pixels: [UInt8], every: Int = 1) -> [Int] {
        var usage = [Int](repeating: 0, count: 256)
        for i in stride(from: 0, to: pixels.count, by: 4 * every) {
            usage[index(Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]))] += 1
        }
        return usage
    }

    /// The index of exactly the colour `key` (`r << 16 | g << 8 | b`; a top byte is
    /// ignored), if the palette holds it.
    @inline(__always)
    func exactIndex(key: UInt32) -> Int? { own(key & 0xFF_FFFF) }

    /// The nearest entry to the centre of the colour's grid cell (two levels a side), cached.
    /// The centre, not a corner: searched for the cell's odd corner, every colour would be
    /// looked up half a level too light per channel on average, which shifts a photo's mean
    /// colour (S-CIELAB sees it) and doubles the first frame's error on a light UI page, whose
    /// near-whites are a level or two apart.
    @inline(__always)
    private func nearestCached(_ r: Int, _ g: Int, _ b: Int) -> Int {
        let key = (r >> 1) << 14 | (g >> 1) << 7 | (b >> 1)
        let hit = cache[key]
        if hit > 0 { return Int(hit) - 1 }
        let linear = Self.centreLinear
        let c = OkLab(linearR: linear[r >> 1], g: linear[g >> 1], b: linear[b >> 1])
        let found = search.nearest(c)
        cache[key] = UInt16(found + 1)
        return found
    }
}
