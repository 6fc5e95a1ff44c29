/// Composes video frames directly in Y′CbCr 4:2:0 when nothing but the split moves: the
/// two sides are converted once, and each frame is row copies plus the overlay's
/// premultiplied Y′CbCr sprites. No per-frame RGB → YUV conversion remains.
package final class YUVCompositor: Sendable {
    /// The overlay drawn on every frame (also fixes the frame size).
    package let overlay: SliderOverlay
    let before: YUVImage
    let after: YUVImage
    let knobs: [YUVSprite]
    let beforeTag: YUVSprite?
    let afterTag: YUVSprite?
    let divider: (y: Int32, u: Int32, v: Int32, a: Int32)
    let background: (y: UInt8, u: UInt8, v: UInt8)

    /// - Parameters: `before` and `after` already at the overlay's size and in their looks.
    package init(before: YUVImage, after: YUVImage, overlay: SliderOverlay) {
        precondition(
            before.width == overlay.width && before.height == overlay.height && after.width == before.width
                && after.height == before.height)
        self.before = before
        self.after = after
        self.overlay = overlay
        knobs = overlay.knobs.map(YUVSprite.init)
        beforeTag = overlay.beforeTag.map(YUVSprite.init)
        afterTag = overlay.afterTag.map(YUVSprite.init)
        let c = overlay.style.dividerColor
        let (y, u, v) = YUVImage.premultiplied(r: Double(c.r), g: Double(c.g), b: Double(c.b), a: 255)
        divider = (Int32((y * 16).rounded()), Int32((u * 16).rounded()), Int32((v * 16).rounded()), Int32(c.a))
        background = YUVImage.color(overlay.style.background)
    }

    /// Renders the frame at split position `p` into `frame`.
    package func render(position p: Double, into frame: inout YUVImage) {
        render(position: p, before: before, after: after, into: &frame)
    }

    /// Renders the frame at split position `p` from sides given for this frame alone (video
    /// inputs), at the overlay's size.
    package func render(position p: Double, before: YUVImage, after: YUVImage, into frame: inout YUVImage) {
        let w = frame.width, h = frame.height
        let layout = overlay.layout(position: p)
        let first = layout.beforeFirst ? before : after, second = layout.beforeFirst ? after : before
        let vertical = layout.vertical
        let whole = layout.wholeLines
        let cov = Int32(layout.edgeCoverage)
        // Coverage of `first` per luma line across the travel axis (256 = all first).
        @Sendable @inline(__always) func lumaCover(_ i: Int) -> Int32 { Int32(layout.splitCoverage(i)) }
        first.y.withUnsafeBufferPointer { fy in
            first.u.withUnsafeBufferPointer { fu in
                first.v.withUnsafeBufferPointer { fv in
                    second.y.withUnsafeBufferPointer { sy in
                        second.u.withUnsafeBufferPointer { su in
                            second.v.withUnsafeBufferPointer { sv in
                                frame.y.withUnsafeMutableBufferPointer { dy in
                                    frame.u.withUnsafeMutableBufferPointer { du in
                                        frame.v.withUnsafeMutableBufferPointer { dv in
                                            let F = (
                                                UnsafeSendableReadPointer(fy.baseAddress!), UnsafeSendableReadPointer(fu.baseAddress!),
                                                UnsafeSendableReadPointer(fv.baseAddress!)
                                            )
                                            let S = (
                                                UnsafeSendableReadPointer(sy.baseAddress!), UnsafeSendableReadPointer(su.baseAddress!),
                                                UnsafeSendableReadPointer(sv.baseAddress!)
                                            )
                                            let D = (
                                                UnsafeSendablePointer(dy.baseAddress!), UnsafeSendablePointer(du.baseAddress!),
                                                UnsafeSendablePointer(dv.baseAddress!)
                                            )
                                            let cw = w / 2
                                            // Bands of chroma rows, so that each band owns whole 2×2 blocks.
                                            parallelRows(h / 2, minimumRowsPerBand: 8) { crows in
                                                let rows = (crows.lowerBound * 2)..<(crows.upperBound * 2)
                                                for y in rows {
                                                    let o = y * w
                                                    if vertical {
                                                        let c = lumaCover(y)
                                                        Self.line(F.0.base + o, S.0.base + o, D.0.base + o, 0, w, c)
                                                    } else {
                                                        let n = min(whole, w)
                                                        if n > 0 { (D.0.base + o).update(from: F.0.base + o, count: n) }
                                                        var rest = n
                                                        if whole < w && cov > 0 {
                                                            Self.line(F.0.base + o, S.0.base + o, D.0.base + o, whole, whole + 1, cov);
                                                            rest += 1
                                                        }
                                                        if rest < w {
                                                            (D.0.base + o + rest).update(from: S.0.base + o + rest, count: w - rest)
                                                        }
                                                    }
                                                }
                                                for cy in crows {
                                                    let o = cy * cw
                                                    if vertical {
                                                        let c = (lumaCover(cy * 2) + lumaCover(cy * 2 + 1)) / 2
                                                        Self.line(F.1.base + o, S.1.base + o, D.1.base + o, 0, cw, c)
                                                        Self.line(F.2.base + o, S.2.base + o, D.2.base + o, 0, cw, c)
                                                    } else {
                                                        // Chroma columns fully on one side are copies; the one or two
                                                        // around the edge mix by their two luma columns' coverage.
                                                        let full = whole / 2
                                                        if full > 0 {
                                                            (D.1.base + o).update(from: F.1.base + o, count: full)
                                                            (D.2.base + o).update(from: F.2.base + o, count: full)
                                                        }
                                                        var cx = full
                                                        while cx < cw {
                                                            let c = (lumaCover(cx * 2) + lumaCover(cx * 2 + 1)) / 2
                                                            if c == 0 { break }
                                                            Self.line(F.1.base + o, S.1.base + o, D.1.base + o, cx, cx + 1, c)
                                                            Self.line(F.2.base + o, S.2.base + o, D.2.base + o, cx, cx + 1, c)
                                                            cx += 1
                                                        }
                                                        if cx < cw {
                                                            (D.1.base + o + cx).update(from: S.1.base + o + cx, count: cw - cx)
                                                            (D.2.base + o + cx).update(from: S.2.base + o + cx, count: cw - cx)
                                                        }
                                                    }
                                                }
                                                paint(layout, D.0.base, D.1.base, D.2.base, w, h, rows: rows)
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// `d = (a·c + b·(256 − c)) / 256` over `lo..<hi`.
    @inline(__always)
    static func line(
        _ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ lo: Int, _ hi: Int, _ c: Int32
    ) {
        if c >= 256 { (d + lo).update(from: a + lo, count: hi - lo); return }
        if c <= 0 { (d + lo).update(from: b + lo, count: hi - lo); return }
        for i in lo..<hi { d[i] = UInt8(truncatingIfNeeded: (Int32(a[i]) * c + Int32(b[i]) * (256 - c) + 128) >> 8) }
    }

    /// Paints `layout` on the planes, for luma rows in `rows` (an even-aligned band) only.
    func paint(
        _ layout: OverlayLayout, _ y: UnsafeMutablePointer<UInt8>, _ u: UnsafeMutablePointer<UInt8>,
        _ v: UnsafeMutablePointer<UInt8>, _ w: Int, _ h: Int, rows: Range<Int>
    ) {
        overlay.paint(layout, with: Painter(compositor: self, y: y, u: u, v: v, width: w, height: h), rows: rows)
    }

    /// The overlay's elements on Y′CbCr 4:2:0 planes.
    struct Painter: OverlayPainter {
        let compositor: YUVCompositor
        let y: UnsafeMutablePointer<UInt8>, u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>
        let width: Int, height: Int

        func paintDivider(_ layout: OverlayLayout, rows: Range<Int>) {
            compositor.paintDivider(layout, y, u, v, width, height, rows: rows)
        }

        func paint(_ sprite: SliderOverlay.Element, x: Int, y top: Int, opacity: Double, rows: Range<Int>) {
            let picked: YUVSprite? =
                switch sprite {
                case let .knob(phase): compositor.knobs[phase]
                case .beforeTag: compositor.beforeTag
                case .afterTag: compositor.afterTag
                }
            picked?.draw(y: y, u: u, v: v, width: width, height: height, x: x, y: top, opacity: opacity, rows: rows)
        }

        func paintCorners(_ mask: CornerMask, rows: Range<Int>) {
            compositor.applyCorners(mask, y, u, v, width, height, rows: rows)
        }
    }

    /// The divider with sub-pixel edges in luma, as on RGBA frames; each chroma sample takes
    /// the mean coverage of the two luma lines it spans (4:2:0 is handled here only).
    func paintDivider(
        _ layout: OverlayLayout, _ y: UnsafeMutablePointer<UInt8>, _ u: UnsafeMutablePointer<UInt8>,
        _ v: UnsafeMutablePointer<UInt8>, _ w: Int, _ h: Int, rows: Range<Int>
    ) {
        let vertical = layout.vertical
        guard let lines = layout.dividerLines(extent: vertical ? h : w) else { return }
        // Alpha in 1/256, rounded as the RGBA painter rounds its 1/255 alpha.
        func alpha(_ i: Int) -> Int32 {
            let a = (layout.dividerCoverage(i) * Double(divider.a)).rounded()
            return Int32((a * 256 / 255).rounded())
        }
        @inline(__always) func blend(_ d: UnsafeMutablePointer<UInt8>, _ src: Int32, _ a: Int32) {
            d.pointee = UInt8(clamping: (src * a / 256 + Int32(d.pointee) * (256 - a) / 16 + 8) >> 4)
        }
        let cw = w / 2
        let chromaLines = (lines.lowerBound / 2)...(lines.upperBound / 2)
        if vertical {
            for i in lines where rows.contains(i) {
                let a = alpha(i)
                if a > 0 { for x in 0..<w { blend(y + i * w + x, divider.y, a) } }
            }
            for ci in chromaLines where rows.contains(ci * 2) {
                let a = (alpha(ci * 2) + alpha(ci * 2 + 1) + 1) / 2
                if a > 0 { for x in 0..<cw { blend(u + ci * cw + x, divider.u, a); blend(v + ci * cw + x, divider.v, a) } }
            }
        } else {
            let alphas = lines.map(alpha)
            for row in rows {
                for (k, i) in lines.enumerated() where alphas[k] > 0 { blend(y + row * w + i, divider.y, alphas[k]) }
            }
            let chromaAlphas = chromaLines.map { ci in (alpha(ci * 2) + alpha(ci * 2 + 1) + 1) / 2 }
            for crow in (rows.lowerBound / 2)..<((rows.upperBound + 1) / 2) {
                for (k, ci) in chromaLines.enumerated() where chromaAlphas[k] > 0 && ci < cw {
                    blend(u + crow * cw + ci, divider.u, chromaAlphas[k]); blend(v + crow * cw + ci, divider.v, chromaAlphas[k])
                }
            }
        }
    }

    func applyCorners(
        _ mask: CornerMask, _ y: UnsafeMutablePointer<UInt8>, _ u: UnsafeMutablePointer<UInt8>,
        _ v: UnsafeMutablePointer<UInt8>, _ w: Int, _ h: Int, rows: Range<Int>
    ) {
        let s = mask.size
        guard s > 0, s <= w, s <= h else { return }
        func cover(_ x: Int, _ yy: Int) -> Int32 {
            let mx = x < s ? x : (x >= w - s ? w - 1 - x : -1)
            let my = yy < s ? yy : (yy >= h - s ? h - 1 - yy : -1)
            guard mx >= 0 && my >= 0 else { return 255 }
            return Int32(mask.coverage[my * s + mx])
        }
        let bg = (Int32(background.y), Int32(background.u), Int32(background.v))
        for row in rows where row < s || row >= h - s {
            for x in Array(0..<s) + Array((w - s)..<w) {
                let c = cover(x, row)
                if c < 255 { y[row * w + x] = UInt8((Int32(y[row * w + x]) * c + bg.0 * (255 - c) + 127) / 255) }
            }
        }
        let cw = w / 2
        for crow in (rows.lowerBound / 2)..<((rows.upperBound + 1) / 2) where crow * 2 < s || crow * 2 + 1 >= h - s {
            for cx in Array(0..<((s + 1) / 2)) + Array(((w - s) / 2)..<cw) {
                let c =
                    (cover(cx * 2, crow * 2) + cover(cx * 2 + 1, crow * 2) + cover(cx * 2, crow * 2 + 1) + cover(cx * 2 + 1, crow * 2 + 1))
                    / 4
                if c < 255 {
                    u[crow * cw + cx] = UInt8((Int32(u[crow * cw + cx]) * c + bg.1 * (255 - c) + 127) / 255)
                    v[crow * cw + cx] = UInt8((Int32(v[crow * cw + cx]) * c + bg.2 * (255 - c) + 127) / 255)
                }
            }
        }
    }
}
