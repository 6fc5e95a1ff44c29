/// EXIF orientation (1–8): how the stored pixels must be turned to stand upright.
package enum Orientation {
    /// Returns `image` turned upright for EXIF orientation `tag` (1 or unknown: unchanged).
    ///
    /// 2 mirror, 3 rotate 180°, 4 flip, 5 transpose, 6 rotate 90° clockwise,
    /// 7 transverse, 8 rotate 90° counter-clockwise.
    package static func upright(_ image: RGBAImage, tag: Int) -> RGBAImage {
        guard (2...8).contains(tag) else { return image }
        let w = image.width, h = image.height
        let swaps = tag >= 5
        let ow = swaps ? h : w, oh = swaps ? w : h
        var out = RGBAImage(width: ow, height: oh)
        // Each pixel is moved as one UInt32. The byte arrays are viewed as UInt32 only for
        // the closures' duration (withMemoryRebound), never re-typed behind the array's back.
        image.pixels.withUnsafeBufferPointer { src in
            out.pixels.withUnsafeMutableBufferPointer { dst in
                src.withMemoryRebound(to: UInt32.self) { s in
                    dst.withMemoryRebound(to: UInt32.self) { d in
                        let s32 = s.baseAddress!, d32 = d.baseAddress!
                        for y in 0..<oh {
                            for x in 0..<ow {
                                // (sx, sy): the stored pixel shown at (x, y).
                                let sx: Int, sy: Int
                                switch tag {
                                case 2: (sx, sy) = (w - 1 - x, y)
                                case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                                case 4: (sx, sy) = (x, h - 1 - y)
                                case 5: (sx, sy) = (y, x)
                                case 6: (sx, sy) = (y, h - 1 - x)
                                case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                                default: (sx, sy) = (w - 1 - y, x)  // 8
                                }
                                d32[y * ow + x] = s32[sy * w + sx]
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
