/// Composes the two sides of a comparison at a split position.
///
/// Per frame this is little more than a copy of the frame's bytes: each row takes a run
/// from one image, one anti-aliased boundary pixel and a run from the other.
public enum SplitCompositor {
    /// Writes into `frame` the `before` image up to the split edge and `after` beyond it.
    ///
    /// All three images must have the same size. The boundary pixel mixes both sides by
    /// coverage, so fractional positions glide smoothly.
    public static func compose(before: RGBAImage, after: RGBAImage, overlay: SliderOverlay,
                               position p: Double, into frame: inout RGBAImage) {
        precondition(before.width == frame.width && before.height == frame.height &&
                     after.width == frame.width && after.height == frame.height)
        let (edge, beforeFirst) = overlay.splitEdge(position: p)
        let first = beforeFirst ? before : after
        let second = beforeFirst ? after : before
        let vertical = overlay.style.orientation == .vertical
        let w = frame.width, h = frame.height
        let extent = vertical ? h : w
        let whole = max(0, min(extent, Int(edge.rounded(.down))))
        let cov = whole < extent ? Int(((edge - Double(whole)) * 256).rounded()) : 0
        first.pixels.withUnsafeBufferPointer { fp in
            second.pixels.withUnsafeBufferPointer { sp in
                frame.pixels.withUnsafeMutableBufferPointer { dp in
                    let f = UnsafeSendableReadPointer(fp.baseAddress!)
                    let s = UnsafeSendableReadPointer(sp.baseAddress!)
                    let d = UnsafeSendablePointer(dp.baseAddress!)
                    if vertical {
                        parallelRows(h) { rows in
                            for y in rows {
                                let o = y * w * 4
                                if y < whole {
                                    (d.base + o).update(from: f.base + o, count: w * 4)
                                } else if y > whole || cov == 0 {
                                    (d.base + o).update(from: s.base + o, count: w * 4)
                                } else {
                                    mix(f.base + o, s.base + o, d.base + o, count: w * 4, cov: cov)
                                }
                            }
                        }
                    } else {
                        parallelRows(h) { rows in
                            for y in rows {
                                let o = y * w * 4
                                if whole > 0 { (d.base + o).update(from: f.base + o, count: whole * 4) }
                                var rest = whole
                                if whole < w && cov > 0 {
                                    mix(f.base + o + whole * 4, s.base + o + whole * 4, d.base + o + whole * 4, count: 4, cov: cov)
                                    rest += 1
                                }
                                if rest < w { (d.base + o + rest * 4).update(from: s.base + o + rest * 4, count: (w - rest) * 4) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// `d = (a·cov + b·(256 − cov)) / 256`, rounded.
    @inline(__always)
    static func mix(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, count: Int, cov: Int) {
        let inv = 256 - cov
        for i in 0..<count {
            d[i] = UInt8(truncatingIfNeeded: (Int(a[i]) &* cov &+ Int(b[i]) &* inv &+ 128) >> 8)
        }
    }

    /// Cross-fades in place towards another finished frame: `frame = frame·(1 − f) + other·f`
    /// (reduce-motion dissolves).
    public static func dissolve(_ frame: inout RGBAImage, towards other: RGBAImage, fraction f: Double) {
        let cov = Int((max(0, min(1, 1 - f)) * 256).rounded())
        let n = frame.pixels.count
        other.pixels.withUnsafeBufferPointer { bp in
            frame.pixels.withUnsafeMutableBufferPointer { dp in
                mix(UnsafePointer(dp.baseAddress!), bp.baseAddress!, dp.baseAddress!, count: n, cov: cov)
            }
        }
    }
}
