import CGIF
import SweepImaging
import SweepSupport

/// The GIF file itself, through giflib: the header with the global table and the loop
/// block, each frame's timing and coded block, and the trailer. It owns giflib's handle and
/// the byte sink under it; the writer above decides what goes in.
final class GIFStream {
    private let sink: GIFFileSink
    private var gif: UnsafeMutablePointer<GifFileType>?
    private let destination: String

    /// Opens `path` and writes the screen descriptor with `colors` as the global table (of
    /// `tableSize` entries) and, when `loopCount` is set, the NETSCAPE2.0 loop block.
    init(path: String, destination: String, width: Int, height: Int, colors: [RGBA8], tableSize: Int, loopCount: Int?) throws {
        self.destination = destination
        sink = try GIFFileSink(path: path, reportAs: destination)
        var err: Int32 = 0
        gif = EGifOpen(Unmanaged.passUnretained(sink).toOpaque(), gifOutput, &err)
        guard gif != nil else { throw gifError(err, "cannot start the GIF") }
        EGifSetGifVersion(gif, true)
        var table = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: tableSize)
        for (i, c) in colors.enumerated() { table[i] = GifColorType(Red: c.r, Green: c.g, Blue: c.b) }
        let map = GifMakeMapObject(Int32(table.count), &table)
        defer { GifFreeMapObject(map) }
        try check(EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, map), "cannot write the screen descriptor")
        if let loopCount {
            // NETSCAPE2.0 application block, right after the screen descriptor.
            try check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE), "cannot write the loop block")
            var id = Array("NETSCAPE2.0".utf8)
            try check(EGifPutExtensionBlock(gif, 11, &id), "cannot write the loop block")
            var sub: [UInt8] = [1, UInt8(loopCount & 0xff), UInt8((loopCount >> 8) & 0xff)]
            try check(EGifPutExtensionBlock(gif, 3, &sub), "cannot write the loop block")
            try check(EGifPutExtensionTrailer(gif), "cannot write the loop block")
        }
    }

    deinit {
        if let gif { var err: Int32 = 0; EGifCloseFile(gif, &err) }
    }

    /// Writes one frame: its graphics control block (`delay` centiseconds, at least 2, and
    /// its transparent index) and its image block, already coded (`block`).
    func writeFrame(_ block: [UInt8], delay: Int, transparent: Int?) throws {
        var gcb = GraphicsControlBlock(
            DisposalMode: DISPOSE_DO_NOT, UserInputFlag: false, DelayTime: Int32(max(2, min(65535, delay))),
            TransparentColor: transparent.map(Int32.init) ?? NO_TRANSPARENT_COLOR)
        var ext = [UInt8](repeating: 0, count: 4)
        let len = EGifGCBToExtension(&gcb, &ext)
        try check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(len), &ext), "cannot write a frame's timing")
        var encoded = block
        _ = sink.write(&encoded, encoded.count)
        try check(GIF_OK, "cannot write a frame")
    }

    /// Writes the trailer and closes the file.
    func close() throws {
        var err: Int32 = 0
        let status = EGifCloseFile(gif, &err)
        gif = nil
        if status != GIF_OK && sink.failure == 0 { throw gifError(err, "cannot finish the GIF") }
        try sink.close(destination: destination)
    }

    /// Bytes written so far.
    var bytesWritten: Int { sink.bytesWritten }

    private func gifError(_ code: Int32, _ what: String) -> SweepError {
        if sink.failure != 0 { return .writeFailed(what, errno: sink.failure, subject: destination) }
        let text = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        return SweepError(.ioError, "\(what): \(text)", subject: destination, fix: nil)
    }

    private func check(_ status: Int32, _ what: String) throws {
        if status != GIF_OK || sink.failure != 0 { throw gifError(gif?.pointee.Error ?? 0, what) }
    }
}
