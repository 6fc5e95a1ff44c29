import CGIF
import Foundation
import SweepImaging
import SweepSupport

/// Decodes a whole GIF with giflib into composited RGBA frames, honouring disposal and
/// transparency as a browser does. Used by tests and quality measurements.
public struct GIFReader: Sendable {
    public let width: Int
    public let height: Int
    /// Fully composited frames.
    public let frames: [RGBAImage]
    /// Each frame's delay in centiseconds.
    public let delays: [Int]
    /// NETSCAPE2.0 loop count (0 = forever), or `nil` when absent.
    public let loopCount: Int?
    /// The version signature, e.g. "GIF89a".
    public let version: String

    public init(path: String) throws {
        var err: Int32 = 0
        guard let gif = DGifOpenFileName(path, &err) else {
            throw SweepError(.dataError, "not a readable GIF", subject: path)
        }
        defer { var e: Int32 = 0; DGifCloseFile(gif, &e) }
        guard DGifSlurp(gif) == GIF_OK else { throw SweepError(.dataError, "corrupt GIF", subject: path) }
        width = Int(gif.pointee.SWidth)
        height = Int(gif.pointee.SHeight)
        // giflib's DGifGetGifVersion reflects what it parsed, not the signature; read that.
        let head = FileManager.default.contents(atPath: path)?.prefix(6) ?? Data()
        version = String(decoding: head, as: UTF8.self)
        var loop: Int? = nil
        var canvas = RGBAImage(width: width, height: height, fill: .clear)
        var frames: [RGBAImage] = []
        var delays: [Int] = []
        let count = Int(gif.pointee.ImageCount)
        for i in 0..<count {
            let img = gif.pointee.SavedImages[i]
            for e in 0..<Int(img.ExtensionBlockCount) {
                let ext = img.ExtensionBlocks[e]
                if ext.Function == APPLICATION_EXT_FUNC_CODE, ext.ByteCount == 11, e + 1 < Int(img.ExtensionBlockCount) {
                    let id = String(decoding: UnsafeBufferPointer(start: ext.Bytes, count: 11), as: UTF8.self)
                    let sub = img.ExtensionBlocks[e + 1]
                    if id == "NETSCAPE2.0", sub.ByteCount >= 3 { loop = Int(sub.Bytes[1]) | Int(sub.Bytes[2]) << 8 }
                }
            }
            var gcb = GraphicsControlBlock()
            gcb.TransparentColor = NO_TRANSPARENT_COLOR
            _ = DGifSavedExtensionToGCB(gif, Int32(i), &gcb)
            let map = img.ImageDesc.ColorMap ?? gif.pointee.SColorMap
            let d = img.ImageDesc
            let before = canvas
            for y in 0..<Int(d.Height) {
                for x in 0..<Int(d.Width) {
                    let v = Int(img.RasterBits[y * Int(d.Width) + x])
                    if v == Int(gcb.TransparentColor) { continue }
                    let cx = Int(d.Left) + x, cy = Int(d.Top) + y
                    guard cx < width, cy < height, let map, v < Int(map.pointee.ColorCount) else { continue }
                    let c = map.pointee.Colors[v]
                    let o = (cy * width + cx) * 4
                    canvas.pixels[o] = c.Red; canvas.pixels[o + 1] = c.Green; canvas.pixels[o + 2] = c.Blue; canvas.pixels[o + 3] = 255
                }
            }
            frames.append(canvas)
            delays.append(Int(gcb.DelayTime))
            if gcb.DisposalMode == DISPOSE_BACKGROUND {
                for y in Int(d.Top)..<min(height, Int(d.Top + d.Height)) {
                    for x in Int(d.Left)..<min(width, Int(d.Left + d.Width)) {
                        for c in 0..<4 { canvas.pixels[(y * width + x) * 4 + c] = 0 }
                    }
                }
            } else if gcb.DisposalMode == DISPOSE_PREVIOUS {
                canvas = before
            }
        }
        self.frames = frames
        self.delays = delays
        self.loopCount = loop
    }
}
