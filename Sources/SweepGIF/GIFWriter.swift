#if canImport(Glibc)
import Glibc
#endif
import CGIF
import SweepImaging
import SweepSupport

/// Writes an animated GIF89a frame by frame through giflib, keeping one frame in memory.
///
/// Each frame is compared with the previous one: only pixels whose source changed are
/// quantized again, only the changed rectangle is written, and inside it the pixels that
/// still show the right colour become transparent. A frame identical to the previous one
/// lengthens that frame's delay instead of being written.
public final class GIFWriter {
    public let width: Int
    public let height: Int
    public let palette: GIFPalette
    let destination: String
    private let sink: GIFFileSink
    private var gif: UnsafeMutablePointer<GifFileType>?
    private var quantizer: FrameQuantizer
    private var previousPixels: [UInt8]?
    private var indices: [UInt8]
    private var shown: [UInt8]
    private var changed: [Bool]
    private var pending: (rect: PixelRect, data: [UInt8], delay: Int, transparent: Bool)?
    /// Frames written to the file so far.
    public private(set) var framesWritten = 0

    /// Opens `path` (normally an ``AtomicOutput``'s temporary path) and writes the header.
    ///
    /// - Parameters:
    ///   - loopCount: `nil` for no loop extension (play once); 0 for forever; n for n repeats.
    public init(path: String, destination: String? = nil, width: Int, height: Int, palette: GIFPalette,
                dither: DitherMode = .diffusion, lossy: Int = 0, loopCount: Int? = 0) throws {
        precondition(width > 0 && width <= 65535 && height > 0 && height <= 65535)
        self.width = width
        self.height = height
        self.palette = palette
        self.destination = destination ?? path
        sink = try GIFFileSink(path: path)
        quantizer = FrameQuantizer(mapper: PaletteMapper(palette: palette), dither: dither, lossy: lossy,
                                   width: width, height: height)
        indices = [UInt8](repeating: 0, count: width * height)
        shown = indices
        changed = [Bool](repeating: true, count: width * height)
        var err: Int32 = 0
        gif = EGifOpen(Unmanaged.passUnretained(sink).toOpaque(), gifOutput, &err)
        guard gif != nil else { throw gifError(err, "cannot start the GIF") }
        EGifSetGifVersion(gif, true)
        var table = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: palette.tableSize)
        for (i, c) in palette.colors.enumerated() { table[i] = GifColorType(Red: c.r, Green: c.g, Blue: c.b) }
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

    private func gifError(_ code: Int32, _ what: String) -> SweepError {
        if sink.failure != 0 {
            return SweepError(.ioError, "\(what): \(String(cString: strerror(sink.failure)))", subject: destination,
                              fix: "check free disk space and permissions")
        }
        let text = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        return SweepError(.ioError, "\(what): \(text)", subject: destination, fix: nil)
    }

    private func check(_ status: Int32, _ what: String) throws {
        if status != GIF_OK || sink.failure != 0 { throw gifError(gif?.pointee.Error ?? 0, what) }
    }

    /// Adds a frame shown for `delay` centiseconds.
    public func add(_ frame: RGBAImage, delay: Int) throws {
        precondition(frame.width == width && frame.height == height)
        let rect: PixelRect
        if let prev = previousPixels {
            rect = diff(prev, frame.pixels)
            if rect.isEmpty {
                pending?.delay += delay
                return
            }
            quantizer.quantize(frame, rect: rect, changed: changed, into: &indices)
        } else {
            rect = PixelRect(x: 0, y: 0, width: width, height: height)
            quantizer.quantize(frame, rect: rect, changed: nil, into: &indices)
        }
        previousPixels = frame.pixels
        try emit(rect: rect, delay: delay, first: framesWritten == 0 && pending == nil)
    }

    /// Marks changed pixels and returns their bounding rectangle.
    private func diff(_ a: [UInt8], _ b: [UInt8]) -> PixelRect {
        var minX = width, minY = height, maxX = -1, maxY = -1
        a.withUnsafeBufferPointer { ap in
            b.withUnsafeBufferPointer { bp in
                let a32 = UnsafeRawPointer(ap.baseAddress!).assumingMemoryBound(to: UInt32.self)
                let b32 = UnsafeRawPointer(bp.baseAddress!).assumingMemoryBound(to: UInt32.self)
                for y in 0..<height {
                    let row = y * width
                    for x in 0..<width {
                        let c = a32[row + x] != b32[row + x]
                        changed[row + x] = c
                        if c {
                            if x < minX { minX = x }
                            if x > maxX { maxX = x }
                            if y < minY { minY = y }
                            maxY = y
                        }
                    }
                }
            }
        }
        if maxX < 0 { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
        return PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }

    /// Turns the new index map into the pending frame (flushing the old one).
    private func emit(rect: PixelRect, delay: Int, first: Bool) throws {
        let t = palette.transparentIndex.map { UInt8($0) }
        var data = [UInt8](repeating: 0, count: rect.width * rect.height)
        var usesTransparency = first && t != nil
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let p = (rect.y + y) * width + rect.x + x
                let v = indices[p]
                if !first, let t, v == shown[p] {
                    data[y * rect.width + x] = t
                    usesTransparency = true
                } else {
                    data[y * rect.width + x] = v
                }
                shown[p] = v
            }
        }
        try flushPending()
        pending = (rect, data, delay, usesTransparency)
    }

    private func flushPending() throws {
        guard var p = pending else { return }
        pending = nil
        var gcb = GraphicsControlBlock(DisposalMode: DISPOSE_DO_NOT, UserInputFlag: false,
                                       DelayTime: Int32(max(2, min(65535, p.delay))),
                                       TransparentColor: p.transparent ? Int32(palette.transparentIndex ?? -1) : NO_TRANSPARENT_COLOR)
        var ext = [UInt8](repeating: 0, count: 4)
        let len = EGifGCBToExtension(&gcb, &ext)
        try check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(len), &ext), "cannot write a frame's timing")
        try check(EGifPutImageDesc(gif, Int32(p.rect.x), Int32(p.rect.y), Int32(p.rect.width), Int32(p.rect.height), false, nil),
                  "cannot write a frame")
        let w = p.rect.width
        try p.data.withUnsafeMutableBufferPointer { buf in
            for y in 0..<p.rect.height {
                // EGifPutLine modifies its buffer; each row is written exactly once, so that is fine.
                try check(EGifPutLine(gif, buf.baseAddress! + y * w, Int32(w)), "cannot write a frame")
            }
        }
        framesWritten += 1
    }

    /// Writes the last frame and the trailer, and closes the file.
    public func finish() throws {
        try flushPending()
        var err: Int32 = 0
        let status = EGifCloseFile(gif, &err)
        gif = nil
        if status != GIF_OK && sink.failure == 0 { throw gifError(err, "cannot finish the GIF") }
        try sink.close(destination: destination)
    }

    /// Bytes written so far.
    public var bytesWritten: Int { sink.bytesWritten }
}
