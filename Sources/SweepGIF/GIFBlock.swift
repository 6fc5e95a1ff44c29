import CGIF
import SweepImaging

/// One image block of a GIF frame: a rectangle of indices, its transparent index, and
/// optionally a local colour table (when few colours make smaller LZW codes pay).
struct GIFBlock {
    var rect: PixelRect
    var data: [UInt8]
    var transparent: Int?
    var localColors: [RGBA8]?

    /// The same block with a local colour table of just the colours it uses, if that
    /// table is at most half the global one (so codes get at least a bit shorter).
    func withLocalTable(_ palette: GIFPalette) -> GIFBlock? {
        var used = [Bool](repeating: false, count: 256)
        for v in data { used[Int(v)] = true }
        if let t = transparent { used[t] = false }
        let colors = (0..<256).filter { used[$0] }
        let needed = colors.count + (transparent == nil ? 0 : 1)
        var size = 2
        while size < needed { size *= 2 }
        guard size * 2 <= palette.tableSize else { return nil }
        var map = [UInt8](repeating: 0, count: 256)
        for (i, c) in colors.enumerated() { map[c] = UInt8(i) }
        let newTransparent = transparent.map { _ in colors.count }
        if let t = transparent { map[t] = UInt8(colors.count) }
        return GIFBlock(rect: rect, data: data.map { map[Int($0)] }, transparent: newTransparent,
                        localColors: colors.map { palette.colors[$0] })
    }

    /// giflib's colour map for the local table (caller frees), or nil.
    func makeColorMap() -> UnsafeMutablePointer<ColorMapObject>? {
        guard let localColors else { return nil }
        var size = 2
        while size < localColors.count + (transparent == nil ? 0 : 1) { size *= 2 }
        var table = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size)
        for (i, c) in localColors.enumerated() { table[i] = GifColorType(Red: c.r, Green: c.g, Blue: c.b) }
        return GifMakeMapObject(Int32(size), &table)
    }

    /// Writes the block (descriptor, optional local table, LZW data) with giflib.
    func write(to gif: UnsafeMutablePointer<GifFileType>) -> Bool {
        let map = makeColorMap()
        defer { if let map { GifFreeMapObject(map) } }
        guard EGifPutImageDesc(gif, Int32(rect.x), Int32(rect.y), Int32(rect.width), Int32(rect.height), false, map) == GIF_OK
        else { return false }
        var rows = data // EGifPutLine modifies its buffer
        return rows.withUnsafeMutableBufferPointer { buf in
            for y in 0..<rect.height where EGifPutLine(gif, buf.baseAddress! + y * rect.width, Int32(rect.width)) != GIF_OK {
                return false
            }
            return true
        }
    }

    /// Bytes this block takes once encoded, measured by encoding it with giflib into a
    /// counter.
    func encodedSize(globalTableSize: Int) -> Int {
        final class Counter { var bytes = 0 }
        let counter = Counter()
        var err: Int32 = 0
        let out: OutputFunc = { gif, _, count in
            guard let gif, let user = gif.pointee.UserData else { return 0 }
            Unmanaged<Counter>.fromOpaque(user).takeUnretainedValue().bytes += Int(count)
            return count
        }
        guard let gif = EGifOpen(Unmanaged.passUnretained(counter).toOpaque(), out, &err) else { return Int.max }
        defer { var e: Int32 = 0; EGifCloseFile(gif, &e) }
        // A stand-in global table of the real size: the LZW code size depends on it.
        var table = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: globalTableSize)
        let global = GifMakeMapObject(Int32(globalTableSize), &table)
        defer { GifFreeMapObject(global) }
        EGifPutScreenDesc(gif, Int32(rect.x + rect.width), Int32(rect.y + rect.height), 8, 0, global)
        let before = counter.bytes
        return withExtendedLifetime(counter) { write(to: gif) ? counter.bytes - before : Int.max }
    }
}
