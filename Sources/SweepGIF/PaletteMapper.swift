import SweepImaging

/// Nearest-palette-entry look-ups in OkLab, cached on a 7-bit-per-channel grid so each
/// grid cell is searched once per animation.
final class PaletteMapper {
    let palette: GIFPalette
    private var cache: [Int16]
    /// Palette colours as floats for error diffusion.
    let rgb: [(Float, Float, Float)]

    init(palette: GIFPalette) {
        self.palette = palette
        cache = [Int16](repeating: -1, count: 1 << 21)
        rgb = palette.colors.map { (Float($0.r), Float($0.g), Float($0.b)) }
    }

    /// The index of the entry nearest to an sRGB colour (channels 0…255).
    @inline(__always)
    func index(_ r: Int, _ g: Int, _ b: Int) -> Int {
        let key = (r >> 1) << 14 | (g >> 1) << 7 | (b >> 1)
        let hit = cache[key]
        if hit >= 0 { return Int(hit) }
        let c = OkLab(r: Float(r | 1), g: Float(g | 1), b: Float(b | 1))
        let found = GIFPalette.nearest(c, in: palette.lab)
        cache[key] = Int16(found)
        return found
    }
}
