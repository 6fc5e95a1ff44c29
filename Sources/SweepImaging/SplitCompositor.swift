/// Composes the two sides of a comparison at a split position.
///
/// Per frame this is little more than a copy of the frame's bytes: each row takes a run
/// from one image, one anti-aliased boundary pixel and a run from the other.
package enum SplitCompositor {
    /// Writes into `frame` the `before` image up to the split edge and `after` beyond it.
    ///
    /// All three images must have the same size. The boundary pixel mixes both sides by
    /// coverage, so fractional positions glide smoothly.
    package static func compose(
        before: RGBAImage, after: RGBAImage, overlay: SliderOverlay,
        position p: Double, into frame: inout RGBAImage
    ) {
        compose(before: before, beforeMatrix: nil, after: after, afterMatrix: nil, overlay: overlay, position: p, into: &frame)
    }

    /// Like ``compose(before:after:overlay:position:into:)``, applying a colour map to a
    /// side while copying it: only the visible part of each side is ever adjusted, so a
    /// frame whose looks change costs one pass over its pixels.
    package static func compose(
        before: RGBAImage, beforeMatrix: FixedColorMatrix?, after: RGBAImage,
        afterMatrix: FixedColorMatrix?, overlay: SliderOverlay,
        position p: Double, into frame: inout RGBAImage
    ) {
        pass(
            before: before, beforeMatrix: beforeMatrix, after: after, afterMatrix: afterMatrix, overlay: overlay,
            position: p, drawOverlay: false, into: &frame)
    }

    /// A whole frame in one parallel pass: each band of rows is composed and gets its part
    /// of the overlay while it is still in cache.
    package static func render(
        before: RGBAImage, beforeMatrix: FixedColorMatrix?, after: RGBAImage,
        afterMatrix: FixedColorMatrix?, overlay: SliderOverlay,
        position p: Double, into frame: inout RGBAImage
    ) {
        pass(
            before: before, beforeMatrix: beforeMatrix, after: after, afterMatrix: afterMatrix, overlay: overlay,
            position: p, drawOverlay: true, into: &frame)
    }

    static func pass(
        before: RGBAImage, beforeMatrix: FixedColorMatrix?, after: RGBAImage,
        afterMatrix: FixedColorMatrix?, overlay: SliderOverlay,
        position p: Double, drawOverlay: Bool, into frame: inout RGBAImage
    ) {
        precondition(
            before.width == frame.width && before.height == frame.height && after.width == frame.width && after.height == frame.height)
        let layout = overlay.layout(position: p)
        let beforeFirst = layout.beforeFirst
        let first = beforeFirst ? before : after
        let second = beforeFirst ? after : before
        let fm = beforeFirst ? beforeMatrix : afterMatrix
        let sm = beforeFirst ? afterMatrix : beforeMatrix
        let vertical = layout.vertical
        let w = frame.width, h = frame.height
        let whole = layout.wholeLines
        let cov = layout.edgeCoverage
        first.pixels.withUnsafeBufferPointer { fp in
            second.pixels.withUnsafeBufferPointer { sp in
                frame.pixels.withUnsafeMutableBufferPointer { dp in
                    let f = UnsafeSendableReadPointer(fp.baseAddress!)
                    let s = UnsafeSendableReadPointer(sp.baseAddress!)
                    let d = UnsafeSendablePointer(dp.baseAddress!)
                    parallelRows(h) { rows in
                        for y in rows {
                            let o = y * w * 4
                            if vertical {
                                if y < whole {
                                    run(f.base + o, d.base + o, w, fm)
                                } else if y > whole || cov == 0 {
                                    run(s.base + o, d.base + o, w, sm)
                                } else {
                                    edge(f.base + o, fm, s.base + o, sm, d.base + o, count: w, cov: cov)
                                }
                            } else {
                                if whole > 0 { run(f.base + o, d.base + o, whole, fm) }
                                var rest = whole
                                if whole < w && cov > 0 {
                                    let at = o + whole * 4
                                    edge(f.base + at, fm, s.base + at, sm, d.base + at, count: 1, cov: cov)
                                    rest += 1
                                }
                                if rest < w { run(s.base + o + rest * 4, d.base + o + rest * 4, w - rest, sm) }
                            }
                        }
                        if drawOverlay {
                            overlay.paint(layout, on: d.base, width: w, height: h, rows: rows)
                        }
                    }
                }
            }
        }
    }

    /// Copies `count` pixels, through the colour map when there is one.
    @inline(__always)
    static func run(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ count: Int, _ m: FixedColorMatrix?) {
        if let m { m.apply(src, dst, count: count) } else { dst.update(from: src, count: count * 4) }
    }

    /// The boundary pixels: each side mapped, then mixed by coverage.
    static func edge(
        _ a: UnsafePointer<UInt8>, _ am: FixedColorMatrix?, _ b: UnsafePointer<UInt8>, _ bm: FixedColorMatrix?,
        _ d: UnsafeMutablePointer<UInt8>, count: Int, cov: Int
    ) {
        if am == nil && bm == nil { mix(a, b, d, count: count * 4, cov: cov); return }
        var pa = [UInt8](repeating: 0, count: 4), pb = pa
        for i in 0..<count {
            pa.withUnsafeMutableBufferPointer { run(a + i * 4, $0.baseAddress!, 1, am) }
            pb.withUnsafeMutableBufferPointer { run(b + i * 4, $0.baseAddress!, 1, bm) }
            mix(pa, pb, d + i * 4, count: 4, cov: cov)
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
    package static func dissolve(_ frame: inout RGBAImage, towards other: RGBAImage, fraction f: Double) {
        let cov = Int((max(0, min(1, 1 - f)) * 256).rounded())
        let n = frame.pixels.count
        other.pixels.withUnsafeBufferPointer { bp in
            frame.pixels.withUnsafeMutableBufferPointer { dp in
                mix(UnsafePointer(dp.baseAddress!), bp.baseAddress!, dp.baseAddress!, count: n, cov: cov)
            }
        }
    }
}
