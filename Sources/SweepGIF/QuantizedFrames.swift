import Foundation
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What a GIF's quantization made, frame by frame, kept so that the file can be coded again
/// with another lossy LZW budget without quantizing again (``GIFEncoder/recode(_:lossy:path:destination:)``).
///
/// Quantization (palettes, dithering, the indices) does not depend on the lossy budget: the
/// budget sets only how far the coder may stray at each pixel, which is kept here as a code
/// of its texture (``FrameQuantizer/latitudeCode``), the budget itself computed again from
/// it. What does depend on what the coder wrote is a pixel coming back to a colour it
/// showed (``PixelHistory``; a dissolve's pixels step back and forth by a level): it shows
/// that colour again, whatever the coder made of it, so its index is looked up again from
/// the history kept while coding again. Should the palette hold that colour under one budget
/// and lack it under the other, the dithering after it differs: that frame is quantized
/// again from its source, which is kept too. A smooth band coming back to colours it showed
/// may choose its table from them; such a recording is not ``replayable``.
///
/// Per frame written it holds ``bytesPerPixel`` bytes a pixel of its changed rectangle and
/// its source (4 bytes a pixel): an 800×500 photo dissolve (31 frames stored) about 71 MB. Past
/// `limit` bytes the frames go to a temporary file, unlinked as soon as it is opened, so that
/// it is gone on every path (an error, a signal, a crash) once its descriptor is closed.
package final class QuantizedFrames {
    /// One frame as quantized.
    struct Frame {
        /// The changed rectangle (empty for a frame identical to the one before).
        let rect: PixelRect
        let delay: Int
        /// How long the frame's pixels stay on screen, which scales their budgets.
        let screenTime: ScreenTime?
        /// The palette the frame was quantized to: nil for the global one.
        let palette: GIFPalette?
        /// Whether every pixel of the rectangle is new (the first frame).
        let whole: Bool
        /// Where its bytes start in the store, and how many.
        let offset: Int
        let length: Int
    }

    /// The code of a pixel that gets no lossy budget at all (the overlay, flat colour the
    /// palette holds).
    static let noBudget: UInt8 = 0x7F
    /// Per pixel of a rectangle, the code of a pixel that did not change.
    static let unchanged: UInt8 = 0x7E
    /// The code of a pixel that came back to a colour it showed, and shows it again: its
    /// index is looked up again from what the coder wrote (``PixelHistory``).
    static let recalled: UInt8 = 0x7D
    /// A flag on the code of a pixel that came back to a colour it showed, which the palette
    /// lacked: quantized afresh. Coded again, the colour it showed must be missing again.
    static let returned: UInt8 = 0x80
    /// Bytes kept per pixel of a changed rectangle: the index and the code. The frame's
    /// source (4 bytes a pixel) follows.
    static let bytesPerPixel = 2

    /// The most bytes held in memory; past it the frames go to a temporary file.
    package let limit: Int
    /// The folder of the temporary file.
    let directory: String
    /// How the writer that made the recording was set up, for one that codes it again.
    var plan: GIFWriter.Plan?
    private(set) var frames: [Frame] = []
    /// False once a frame depended on what the coder wrote before (``PixelHistory``), or
    /// when the quantization had no lossy budget to record.
    package internal(set) var replayable = true
    /// Per frame written, whether the early-reset pass's stream was the smaller
    /// (``FrameCoder``): coded again, only those frames run that pass (``GIFWriter/earlyPasses``).
    package internal(set) var earlyWins: [Bool] = []
    /// Whether the encode that made it finished: only a whole recording is coded again.
    package internal(set) var complete = false
    private var memory: [UInt8] = []
    private var fd: Int32 = -1
    private var size = 0

    /// A recording holding at most `limit` bytes in memory, spilling past it to a temporary
    /// file in `directory` (by default `$TMPDIR`, or /tmp).
    package init(limit: Int = 256 << 20, directory: String? = nil) {
        self.limit = limit
        self.directory = directory ?? getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Bytes held in memory.
    package var bytesInMemory: Int { memory.count }
    /// Bytes in the temporary file (0 while none was needed).
    package var bytesSpilled: Int { fd >= 0 ? size : 0 }
    /// Frames recorded.
    package var frameCount: Int { frames.count }
    /// The mean texture of the pixels recorded, 0 (smooth) to 1 (textured all over): how far
    /// a larger lossy budget can shrink the file (``FrameQuantizer/latitudeCode``).
    package var texture: Double { texturePixels == 0 ? 0 : Double(textureSum) / Double(texturePixels) / 6 }
    /// The share of the pixels counted in ``texture`` that get no lossy budget: flat colour
    /// the palette holds (a screenshot's fills) and the overlay.
    package var held: Double { texturePixels == 0 ? 0 : Double(heldPixels) / Double(texturePixels) }
    /// The share of the pixels counted in ``texture`` that no texture masks (gradients, edges).
    package var smooth: Double { texturePixels == 0 ? 0 : Double(smoothPixels) / Double(texturePixels) }
    /// The mean share of the picture that a frame after the first changes, over the frames
    /// that change anything (the first, drawn whole, left out): a sweep's bands and knob are a
    /// small share whatever its length, a dissolve's or a look's changes cover most of it.
    package var coverage: Double { changingFrames == 0 ? 0 : shareSum / Double(changingFrames) }
    /// Whether any pixel was counted (``texture``, ``held``, ``smooth``).
    package var measured: Bool { texturePixels > 0 }
    private var textureSum = 0, texturePixels = 0, heldPixels = 0, smoothPixels = 0
    /// Pixels counted in all, and up to the last frame appended (``coverage``).
    private var changedPixels = 0, changedBefore = 0
    private var shareSum = 0.0, changingFrames = 0

    /// Counts a recorded pixel's latitude code towards ``texture``, ``held``, ``smooth`` and
    /// ``coverage``.
    @inline(__always)
    func count(code: UInt8) {
        let level = code & 0x7F
        changedPixels += 1
        guard level != Self.recalled else { return }
        textureSum += level <= 6 ? Int(level) : 0
        texturePixels += 1
        if level == Self.noBudget { heldPixels += 1 } else if level == 0 { smoothPixels += 1 }
    }

    /// Adds a frame whose per-pixel bytes are `bytes`.
    func append(rect: PixelRect, delay: Int, screenTime: ScreenTime?, palette: GIFPalette?, whole: Bool, bytes: [UInt8]) throws {
        let touched = changedPixels - changedBefore
        changedBefore = changedPixels
        if !whole, touched > 0, let plan, plan.width > 0, plan.height > 0 {
            shareSum += Double(touched) / Double(plan.width * plan.height)
            changingFrames += 1
        }
        frames.append(
            Frame(rect: rect, delay: delay, screenTime: screenTime, palette: palette, whole: whole, offset: size, length: bytes.count))
        if fd < 0 && memory.count + bytes.count > limit {
            try spill()
        }
        if fd >= 0 {
            try write(bytes)
        } else {
            memory += bytes
        }
        size += bytes.count
    }

    /// The per-pixel bytes of `frame`.
    func bytes(of frame: Frame) throws -> [UInt8] {
        if fd < 0 { return Array(memory[frame.offset..<(frame.offset + frame.length)]) }
        var out = [UInt8](repeating: 0, count: frame.length)
        var done = 0
        while done < frame.length {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, frame.length - done, off_t(frame.offset + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw SweepError(.ioError, "cannot read the GIF's recorded frames back", subject: directory, fix: "check the folder's disk")
            }
            done += n
        }
        return out
    }

    /// Moves what is held in memory to a temporary file, unlinked at once.
    private func spill() throws {
        var template = Array((directory + "/.sweep-quantized.XXXXXX").utf8CString)
        let f = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard f >= 0 else {
            throw SweepError(
                .cannotCreate, "cannot create a temporary file for the GIF's recorded frames", subject: directory,
                fix: "set TMPDIR to a writable folder")
        }
        let name = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        unlink(name)
        fd = f
        try write(memory)
        memory = []
    }

    private func write(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw SweepError(
                    .ioError, "cannot write the GIF's recorded frames", subject: directory, fix: "free disk space or set TMPDIR")
            }
            done += n
        }
    }
}
