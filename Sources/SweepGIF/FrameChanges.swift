import SweepImaging

/// What changed between two frames, and samples of it: the measures the GIF writer, the frame
/// preparer, the palette planner and the colour-usage count share.
enum FrameChanges {
    /// About 20 000 of the pixels of `frame` inside `rect` (those marked in `changed`, when
    /// given), as RGBA bytes, and the share of them that are textured: whose activity (as
    /// ``FrameQuantizer`` measures it) is above ``FrameQuantizer/flatActivity``.
    static func sample(
        _ frame: RGBAImage, rect: PixelRect, changed: [Bool]?, width: Int, count: Int? = nil
    ) -> (pixels: [UInt8], texturedShare: Double) {
        let step = max(1, (count ?? rect.width * rect.height) / 20_000)
        var sample: [UInt8] = []
        var seen = 0, textured = 0
        frame.pixels.withUnsafeBufferPointer { px in
            for y in rect.y..<(rect.y + rect.height) {
                for x in rect.x..<(rect.x + rect.width) where changed?[y * width + x] ?? true {
                    seen += 1
                    guard seen % step == 0 else { continue }
                    let o = (y * width + x) * 4
                    sample += px[o..<(o + 4)]
                    if FrameQuantizer.activity(px, x: x, y: y, width: width) > FrameQuantizer.flatActivity { textured += 1 }
                }
            }
        }
        return (sample, Double(textured) / Double(max(1, sample.count / 4)))
    }

    /// The mean squared RGB error of mapping the sampled pixels to `mapper`'s nearest entries.
    static func meanError(_ m: PaletteMapper, _ sample: [UInt8]) -> Double {
        var total = 0.0
        for i in stride(from: 0, to: sample.count, by: 4) {
            let c = m.rgb[m.index(Int(sample[i]), Int(sample[i + 1]), Int(sample[i + 2]))]
            let dr = Double(c.0) - Double(sample[i]), dg = Double(c.1) - Double(sample[i + 1]), db = Double(c.2) - Double(sample[i + 2])
            total += dr * dr + dg * dg + db * db
        }
        return total / Double(max(1, sample.count / 4))
    }

    /// Marks changed pixels in `changed` (all false on entry) and returns their bounding
    /// rectangle and how many there are.
    static func diff(
        _ a: [UInt8], _ b: [UInt8], width: Int, height: Int, marks changed: inout [Bool]
    ) -> (rect: PixelRect, count: Int) {
        var minX = width, minY = height, maxX = -1, maxY = -1, count = 0
        // Pixels compare as one UInt32 each, eight at a time while trimming; the byte arrays
        // are viewed as UInt32 only inside withMemoryRebound, never re-typed behind the
        // arrays' back. Each row is first trimmed from both ends (a wipe changes a narrow
        // band), then marked within.
        a.withUnsafeBufferPointer { ap in
            b.withUnsafeBufferPointer { bp in
                ap.withMemoryRebound(to: UInt32.self) { a32b in
                    bp.withMemoryRebound(to: UInt32.self) { b32b in
                        changed.withUnsafeMutableBufferPointer { marks in
                            let a32 = a32b.baseAddress!, b32 = b32b.baseAddress!, m = marks.baseAddress!
                            // As four 64-bit words: SIMD8's `==` compiles to a lane-by-lane loop
                            // through the stack, which made this the frame preparer's whole cost.
                            @inline(__always) func same8(_ i: Int) -> Bool {
                                let p = UnsafeRawPointer(a32 + i), q = UnsafeRawPointer(b32 + i)
                                var x: UInt64 = 0
                                for k in stride(from: 0, to: 32, by: 8) {
                                    x |=
                                        p.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                                        ^ q.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                                }
                                return x == 0
                            }
                            for y in 0..<height {
                                let row = y * width
                                var lo = 0, hi = width - 1
                                while lo + 8 <= width && same8(row + lo) { lo += 8 }
                                while lo < width && a32[row + lo] == b32[row + lo] { lo += 1 }
                                guard lo < width else { continue }
                                while hi - 7 > lo && same8(row + hi - 7) { hi -= 8 }
                                while a32[row + hi] == b32[row + hi] { hi -= 1 }
                                for x in lo...hi {
                                    let c = a32[row + x] != b32[row + x]
                                    m[row + x] = c
                                    count += c ? 1 : 0
                                }
                                minX = min(minX, lo)
                                maxX = max(maxX, hi)
                                if minY > y { minY = y }
                                maxY = y
                            }
                        }
                    }
                }
            }
        }
        if maxX < 0 { return (PixelRect(x: 0, y: 0, width: 0, height: 0), 0) }
        return (PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1), count)
    }
}
