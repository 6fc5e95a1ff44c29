import SweepImaging

/// One image block of a GIF frame: a rectangle of indices, its transparent index, and
/// optionally a local colour table (when few colours make smaller LZW codes pay).
struct GIFBlock {
    var rect: PixelRect
    var data: [UInt8]
    var transparent: Int?
    var localColors: [RGBA8]?

    /// Entries of the local colour table (its colours and the transparent index), or nil.
    var localTableSize: Int? {
        localColors.map { GIFPalette.tableSize(for: $0.count + (transparent == nil ? 0 : 1)) }
    }

    /// The same block with a local colour table of just the colours it uses, if that
    /// table is at most half the global one (so codes get at least a bit shorter).
    func withLocalTable(_ palette: GIFPalette) -> GIFBlock? {
        compacted(palette.colors, atMost: palette.tableSize / 2)
    }

    /// The same block of a local table with the table cut to just the colours it uses, if
    /// that makes the table smaller. A stretch's table serves several frames, and each
    /// frame's band uses part of it: the smaller table costs fewer bytes and narrower codes.
    func withUsedColors() -> GIFBlock? {
        guard let localColors, let size = localTableSize else { return nil }
        return compacted(localColors, atMost: size / 2)
    }

    /// The block with a local table of the colours of `colors` its indices use, if that table
    /// has at most `limit` entries.
    private func compacted(_ colors: [RGBA8], atMost limit: Int) -> GIFBlock? {
        var used = [Bool](repeating: false, count: 256)
        for v in data { used[Int(v)] = true }
        if let t = transparent { used[t] = false }
        let kept = (0..<min(256, colors.count)).filter { used[$0] }
        guard GIFPalette.tableSize(for: kept.count + (transparent == nil ? 0 : 1)) <= limit else { return nil }
        var map = [UInt8](repeating: 0, count: 256)
        for (i, c) in kept.enumerated() { map[c] = UInt8(i) }
        let newTransparent = transparent.map { _ in kept.count }
        if let t = transparent { map[t] = UInt8(kept.count) }
        return GIFBlock(
            rect: rect, data: data.map { map[Int($0)] }, transparent: newTransparent, localColors: kept.map { colors[$0] })
    }

    /// The LZW minimum code size for this block: the bits of its local table (which may be
    /// larger than the global one), or for a block of the global table the bits its largest
    /// index needs (at least 2). Decoders take any code size that covers the indices, so a
    /// strip of the palette's first 32 colours is coded with 6-bit codes to start with
    /// instead of 9-bit ones.
    func codeSize(globalTableSize: Int) -> Int {
        let size = localTableSize ?? min(Int(data.max() ?? 0) + 1, globalTableSize)
        var bits = 1
        while 1 << bits < size { bits += 1 }
        return max(2, bits)
    }

    /// Bytes the block takes in the file with `stream` as its LZW data: the image descriptor,
    /// the local table, the code-size byte, the sub-blocks and their terminator.
    func fileBytes(stream: [UInt8]) -> Int {
        10 + 3 * (localTableSize ?? 0) + 1 + stream.count + 1
    }

    /// The block as it goes into the file: the image descriptor, the local table if any, the
    /// code-size byte, `stream` (our own LZW sub-blocks) and the terminating empty sub-block.
    /// Written by us rather than giflib, whose descriptor writer ties the code size to the
    /// colour table.
    func bytes(stream: [UInt8], minCodeSize: Int) -> [UInt8] {
        var out: [UInt8] = [0x2C]
        for v in [rect.x, rect.y, rect.width, rect.height] { out += [UInt8(v & 0xff), UInt8(v >> 8)] }
        if let localColors, let size = localTableSize {
            var bits = 0
            while 2 << bits < size { bits += 1 }
            out.append(0x80 | UInt8(bits))
            for i in 0..<size {
                let c = i < localColors.count ? localColors[i] : RGBA8(r: 0, g: 0, b: 0)
                out += [c.r, c.g, c.b]
            }
        } else {
            out.append(0)
        }
        out.append(UInt8(minCodeSize))
        out += stream
        out.append(0)
        return out
    }
}
