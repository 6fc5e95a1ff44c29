import Dispatch
import SweepImaging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Palettes fitted to what each stretch of an animation writes.
///
/// A frame of a GIF writes only the pixels that changed, and may bring a local colour table
/// for them. In a wipe, the frames of one stretch of time write one band of the after
/// picture, so a table fitted to that band alone places its colours where the band needs
/// them. GIF has no shared local table: each frame that uses it carries its own copy (cut to
/// the colours it uses when that halves it), which is why tables are kept small. The stretches run between
/// key frames sampled before writing: each palette is fitted to the pixels of the later key
/// frame that differ from the earlier one, with as many entries as ``tableEntries(usage:reserved:quality:)``
/// allows. The writer uses it when it cuts the error of the global palette (or of the table
/// in use) by a fifth or more.
package struct StretchPalettes: Sendable {
    /// The first frame of each stretch, ascending.
    package let starts: [Int]
    /// The palette fitted to each stretch.
    package let palettes: [GIFPalette]

    /// k-means passes for a stretch's palette: fewer than for the global one, since a dozen
    /// are built before the first frame, and the error test decides whether one is used.
    static let iterations = 4

    /// No stretch palettes.
    package static let none = StretchPalettes(starts: [], palettes: [])

    init(starts: [Int], palettes: [GIFPalette]) {
        self.starts = starts
        self.palettes = palettes
    }

    /// Plans the palettes between `keyFrames` (frame index and picture, ascending), each of
    /// at most `colors` entries (the transparent one included) with `reserved` kept exact.
    /// A stretch whose key frames differ in under 1 % of the pixels gets none.
    package static func plan(
        keyFrames: [(index: Int, image: RGBAImage)], global: GIFPalette, colors: Int, reserved: [RGBA8],
        quality: GIFQuality
    ) -> StretchPalettes {
        guard keyFrames.count > 1 else { return .none }
        let pairs = Array(zip(keyFrames.dropLast(), keyFrames.dropFirst()))
        let built = Mutex([GIFPalette?](repeating: nil, count: pairs.count))
        DispatchQueue.concurrentPerform(iterations: pairs.count) { k in
            let (a, b) = pairs[k]
            guard let changed = changedPixels(from: a.image, to: b.image) else { return }
            // Every 4th pixel is plenty for the shares, and each look-up may search the palette.
            let usage = PaletteMapper(palette: global).usage(of: changed.pixels, every: 4)
            let count = min(colors, tableEntries(usage: usage, reserved: reserved.count, quality: quality))
            let p = GIFPalette.build(
                samples: [(changed, 1)], count: count, reserved: reserved, transparent: true, iterations: Self.iterations)
            built.withLock { $0[k] = p }
        }
        let results = built.withLock { $0 }
        var starts: [Int] = []
        var palettes: [GIFPalette] = []
        for (k, (a, _)) in pairs.enumerated() {
            if let p = results[k] {
                starts.append(a.index + 1)
                palettes.append(p)
            }
        }
        return StretchPalettes(starts: starts, palettes: palettes)
    }

    /// The entries (a power of two, transparent one included) of a stretch's table, or of a
    /// frame's band's table (see ``GIFWriter``), from how often the global palette's entries
    /// serve the stretch's pixels (`usage`).
    ///
    /// Finer colours cost bytes: more distinct indices make shorter LZW strings. So the table
    /// gets the colours the global palette effectively spends there (2 to the entropy of
    /// `usage`, in bits), rising at 80 and above to all the entries it touches, and is rounded
    /// down to a power of two so that none of the table is paid for unused and the codes start
    /// as narrow as they can. It gets at least 32 entries: a stretch the global palette
    /// serves with fewer colours is one it fits poorly (or flat content, where more entries
    /// cost no bytes). Measured on pairs A, C, D and G (docs/decisions/gif-encoder.md):
    /// rounding up or to the nearest power costs more bytes for the same error.
    static func tableEntries(usage: [Int], reserved: Int, quality: GIFQuality) -> Int {
        let total = Double(usage.reduce(0, +))
        guard total > 0 else { return 32 }
        var bits = 0.0
        for u in usage where u > 0 {
            let share = Double(u) / total
            bits -= share * log2(share)
        }
        let effective = Int(pow(2, bits).rounded())
        let touched = usage.filter { $0 > 0 }.count
        let rise = min(1, max(0, Double(quality.value - 80) / 20))
        let wanted = effective + Int((Double(touched - effective) * rise).rounded()) + 1 + reserved
        // At 100 the table is filled instead: the top setting spends bytes on fidelity.
        let power = log2(Double(wanted)).rounded(quality.value >= 100 ? .up : .down)
        return max(32, min(256, 1 << Int(power)))
    }

    /// The pixels of `b` that differ from `a`, as a one-row picture, or nil when under 1 %
    /// of them do.
    static func changedPixels(from a: RGBAImage, to b: RGBAImage) -> RGBAImage? {
        guard let out = changes(from: a, to: b) else { return nil }
        let n = out.count / 4
        guard n * 100 >= a.width * a.height else { return nil }
        return RGBAImage(width: n, height: 1, pixels: out)
    }

    /// The pixels of `b` that differ from `a`'s, as RGBA bytes (nil when the sizes differ).
    static func changes(from a: RGBAImage, to b: RGBAImage) -> [UInt8]? {
        guard a.width == b.width, a.height == b.height else { return nil }
        var out: [UInt8] = []
        let pa = a.pixels, pb = b.pixels
        for i in stride(from: 0, to: pb.count, by: 4)
        where pa[i] != pb[i] || pa[i + 1] != pb[i + 1] || pa[i + 2] != pb[i + 2] || pa[i + 3] != pb[i + 3] {
            out += pb[i..<(i + 4)]
        }
        return out
    }
}
