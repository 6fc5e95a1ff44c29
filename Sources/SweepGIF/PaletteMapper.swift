import SweepImaging

#if canImport(Glibc)
    import Glibc
#endif

/// Nearest-palette-entry look-ups in OkLab, cached on a 7-bit-per-channel grid so each
/// grid cell is searched once per animation; a cell whose eight colours do not share their
/// nearest entry is looked up colour by colour, so every look-up is exact.
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
    /// Nearest entries of single colours in cells whose colours differ in it: colour + 1 (0 =
    /// empty) in the low 24 bits of the key, the entry in the top 8. From `calloc`, as the cache.
    private let exactMemo: UnsafeMutablePointer<UInt32>

    init(palette: GIFPalette) {
        self.palette = palette
        guard let memory = calloc(1 << 21, MemoryLayout<UInt16>.stride) else { fatalError("out of memory") }
        cache = memory.bindMemory(to: UInt16.self, capacity: 1 << 21)
        guard let memo = calloc(1 << 16, MemoryLayout<UInt32>.stride) else { fatalError("out of memory") }
        exactMemo = memo.bindMemory(to: UInt32.self, capacity: 1 << 16)
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
        free(exactMemo)
    }

    @inline(__always)
    static func slot(_ key: UInt32) -> Int { Int((key &* 2654435761) >> 22) & 1023 }

    /// The index of the entry nearest to an sRGB colour (channels 0…255).
    @inline(__always)
    func index(_ r: Int, _ g: Int, _ b: Int) -> Int {
        let key = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        var slot = Self.slot(key)
        while exactKeys[slot] != 0 {
            if exactKeys[slot] == key + 1 { return Int(exactIndex[slot]) }
            slot = (slot + 1) & 1023
        }
        return nearestCached(r, g, b)
    }

    /// How many of the RGBA pixels in `pixels` (every `every`-th of them) each entry serves.
    func usage(of pixels: [UInt8], every: Int = 1) -> [Int] {
        var usage = [Int](repeating: 0, count: 256)
        for i in stride(from: 0, to: pixels.count, by: 4 * every) {
            usage[index(Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]))] += 1
        }
        return usage
    }

    /// The index of exactly this colour in the palette, or −1.
    func exactIndex(of c: RGBA8) -> Int16 {
        let key = UInt32(c.r) << 16 | UInt32(c.g) << 8 | UInt32(c.b)
        var slot = Self.slot(key)
        while exactKeys[slot] != 0 {
            if exactKeys[slot] == key + 1 { return Int16(exactIndex[slot]) }
            slot = (slot + 1) & 1023
        }
        return -1
    }

    /// A grid cell whose colours do not all share one nearest entry.
    private static let mixed: UInt16 = 0xFFFF

    @inline(__always)
    private func nearestCached(_ r: Int, _ g: Int, _ b: Int) -> Int {
        let key = (r >> 1) << 14 | (g >> 1) << 7 | (b >> 1)
        let hit = cache[key]
        if hit > 0 && hit != Self.mixed { return Int(hit) - 1 }
        if hit == 0 {
            // First visit: the cell's entry is every one of its eight colours' nearest when the
            // runner-up is farther, by more than twice the cell's reach in OkLab, than the nearest; else
            // the cell is looked up colour by colour. (The entry of the cell's corner alone
            // was up to a level off per channel: on a light UI page, where the palette's
            // near-whites are a level or two apart, that doubled the first frame's S-CIELAB
            // error.)
            let centre = OkLab(r: Float(r | 1), g: Float(g | 1), b: Float(b | 1))
            let (found, first, second) = search.nearestTwo(centre)
            let reach = Self.reach(lightness: centre.l)
            let margin = second.squareRoot() - first.squareRoot()
            if margin > 2 * reach {
                cache[key] = UInt16(found + 1)
                return found
            }
            cache[key] = Self.mixed
        }
        return nearestExact(r, g, b)
    }

    /// How far (weighted OkLab distance, as ``OkLab/distance2(_:)`` but not squared) any colour
    /// of a grid cell can be from the cell's odd corner, whose OkLab lightness is `lightness`:
    /// one level per channel moves OkLab most in the dark. Checked against all eight corners
    /// of every cell (at most 0.95 of this).
    @inline(__always)
    static func reach(lightness l: Float) -> Float { 0.0021 + 0.000_35 / max(l * l, 0.0001) }

    /// The nearest entry of one colour, remembered in a direct-mapped table.
    private func nearestExact(_ r: Int, _ g: Int, _ b: Int) -> Int {
        let colour = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        let slot = Int((colour &* 2654435761) >> 16) & 0xFFFF
        let memo = exactMemo[slot]
        if memo & 0xFF_FFFF == colour &+ 1 && memo != 0 { return Int(memo >> 24) }
        let found = search.nearest(OkLab(r: Float(r), g: Float(g), b: Float(b)))
        // colour + 1 fits 24 bits except for white (0xFFFFFF + 1), which is then not remembered.
        if colour < 0xFF_FFFF { exactMemo[slot] = UInt32(found) << 24 | (colour + 1) }
        return found
    }
}
