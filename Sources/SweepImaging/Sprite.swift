/// A small premultiplied-RGBA picture drawn once and composited onto many frames.
public struct Sprite: Sendable {
    public let width: Int
    public let height: Int
    /// Premultiplied R G B A bytes.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Composites the sprite with its top-left corner at (`x`, `y`) over an opaque frame,
    /// scaled by `opacity`, clipped to the frame.
    public func draw(into frame: inout RGBAImage, x: Int, y: Int, opacity: Double = 1) {
        let op = Int((max(0, min(1, opacity)) * 256).rounded())
        if op == 0 { return }
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(frame.width, x + width), y1 = min(frame.height, y + height)
        if x0 >= x1 || y0 >= y1 { return }
        let fw = frame.width, sw = width
        pixels.withUnsafeBufferPointer { sp in
            frame.pixels.withUnsafeMutableBufferPointer { dp in
                for yy in y0..<y1 {
                    var s = sp.baseAddress! + ((yy - y) * sw + (x0 - x)) * 4
                    var d = dp.baseAddress! + (yy * fw + x0) * 4
                    for _ in x0..<x1 {
                        let a = (Int(s[3]) &* op) >> 8
                        if a != 0 {
                            let inv = 255 &- a
                            // out = src·op + dst·(1 − a·op), rounded: (v + 127) / 255 ≈ (v·257 + 32896) >> 16.
                            for c in 0..<3 {
                                let v = ((Int(s[c]) &* op) >> 8) &* 255 &+ Int(d[c]) &* inv
                                d[c] = UInt8(truncatingIfNeeded: (v &* 257 &+ 32896) >> 16)
                            }
                        }
                        s += 4; d += 4
                    }
                }
            }
        }
    }
}
