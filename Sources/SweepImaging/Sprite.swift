/// A small premultiplied-RGBA picture drawn once and composited onto many frames.
package struct Sprite: Sendable {
    /// Width in pixels.
    package let width: Int
    /// Height in pixels.
    package let height: Int
    /// Premultiplied R G B A bytes.
    package var pixels: [UInt8]

    /// A sprite from premultiplied RGBA bytes (`width × height × 4`).
    package init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Composites the sprite with its top-left corner at (`x`, `y`) over an opaque frame,
    /// scaled by `opacity`, clipped to the frame.
    package func draw(into frame: inout RGBAImage, x: Int, y: Int, opacity: Double = 1) {
        let (fw, fh) = (frame.width, frame.height)
        frame.pixels.withUnsafeMutableBufferPointer { dp in
            let dst = UnsafeSendablePointer(dp.baseAddress!)
            parallelRows(fh, minimumRowsPerBand: 64) { rows in
                draw(into: dst.base, width: fw, height: fh, x: x, y: y, opacity: opacity, rows: rows)
            }
        }
    }

    /// The same, on raw frame pixels, touching only frame rows in `rows` (one band of a
    /// parallel pass).
    func draw(
        into frame: UnsafeMutablePointer<UInt8>, width fw: Int, height fh: Int, x: Int, y: Int,
        opacity: Double, rows: Range<Int>
    ) {
        let op = Int((max(0, min(1, opacity)) * 256).rounded())
        if op == 0 { return }
        let x0 = max(0, x), y0 = max(rows.lowerBound, y)
        let x1 = min(fw, x + width), y1 = min(rows.upperBound, y + height, fh)
        if x0 >= x1 || y0 >= y1 { return }
        let sw = width
        pixels.withUnsafeBufferPointer { sp in
            for yy in y0..<y1 {
                var s = sp.baseAddress! + ((yy - y) * sw + (x0 - x)) * 4
                var d = frame + (yy * fw + x0) * 4
                for _ in x0..<x1 {
                    let sa = Int(s[3])
                    if sa == 255 && op == 256 {
                        d[0] = s[0]; d[1] = s[1]; d[2] = s[2]
                    } else if sa != 0 {
                        let a = (sa &* op) >> 8
                        let inv = 255 &- a
                        // out = src·op + dst·(1 − a·op); v/255 rounded as (v·257 + 32896) >> 16.
                        let v0 = ((Int(s[0]) &* op) >> 8) &* 255 &+ Int(d[0]) &* inv
                        let v1 = ((Int(s[1]) &* op) >> 8) &* 255 &+ Int(d[1]) &* inv
                        let v2 = ((Int(s[2]) &* op) >> 8) &* 255 &+ Int(d[2]) &* inv
                        d[0] = UInt8(truncatingIfNeeded: (v0 &* 257 &+ 32896) >> 16)
                        d[1] = UInt8(truncatingIfNeeded: (v1 &* 257 &+ 32896) >> 16)
                        d[2] = UInt8(truncatingIfNeeded: (v2 &* 257 &+ 32896) >> 16)
                    }
                    s += 4; d += 4
                }
            }
        }
    }
}
