import CGIF
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
        var used = [Bool](repeating: false, count: 256)
        for v in data { used[Int(v)] = true }
        if let t = transparent { used[t] = false }
        let colors = (0..<256).filter { used[$0] }
        guard GIFPalette.tableSize(for: colors.count + (transparent == nil ? 0 : 1)) * 2 <= palette.tableSize else { return nil }
        var map = [UInt8](repeating: 0, count: 256)
        for (i, c) in colors.enumerated() { map[c] = UInt8(i) }
        let newTransparent = transparent.map { _ in colors.count }
        if let t = transparent { map[t] = UInt8(colors.count) }
        return GIFBlock(
            rect: rect, data: data.map { map[Int($0)] }, transparent: newTransparent,
            localColors: colors.map { palette.colors[$0] })
    }

    /// giflib's colour map for the local table (caller frees), or nil.
    func makeColorMap() -> UnsafeMutablePointer<ColorMapObject>? {
        guard let localColors, let size = localTableSize else { return nil }
        var table = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size)
        for (i, c) in localColors.enumerated() { table[i] = GifColorType(Red: c.r, Green: c.g, Blue: c.b) }
        return GifMakeMapObject(Int32(size), &table)
    }

    /// The LZW minimum code size for this block: the bits of its colour table (at least 2).
    func codeSize(globalTableSize: Int) -> Int {
        let size = localTableSize ?? globalTableSize
        var bits = 1
        while 1 << bits < size { bits += 1 }
        return max(2, bits)
    }

    /// Bytes the block takes in the file with `stream` as its LZW data: the image descriptor,
    /// the local table, the code-size byte, the sub-blocks and their terminator.
    func fileBytes(stream: [UInt8]) -> Int {
        10 + 3 * (localTableSize ?? 0) + 1 + stream.count + 1
    }

    /// Writes the block: the descriptor and optional local table through giflib (which also
    /// writes the code-size byte for that table), then `stream`, our own LZW sub-blocks, as
    /// giflib's pre-compressed code blocks.
    func write(to gif: UnsafeMutablePointer<GifFileType>, stream: [UInt8]) -> Bool {
        let map = makeColorMap()
        defer { if let map { GifFreeMapObject(map) } }
        // giflib keeps a copy of the last local table and, given none, drops it without
        // freeing it; free it here so that long GIFs with local tables do not leak.
        if map == nil, let kept = gif.pointee.Image.ColorMap {
            GifFreeMapObject(kept)
            gif.pointee.Image.ColorMap = nil
        }
        guard EGifPutImageDesc(gif, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height), false, map) == GIF_OK
        else { return false }
        return stream.withUnsafeBufferPointer { buf in
            var i = 0
            while i < buf.count {
                let block = buf.baseAddress! + i
                let status = i == 0 ? EGifPutCode(gif, 0, block) : EGifPutCodeNext(gif, block)
                guard status == GIF_OK else { return false }
                i += Int(buf[i]) + 1
            }
            return EGifPutCodeNext(gif, nil) == GIF_OK
        }
    }
}
