/// A premultiplied sprite in Y′CbCr 4:2:0, for blending onto a ``YUVImage`` without going
/// through RGB. Blending is linear, so `out = src′ + dst · (1 − α)` holds in Y′CbCr as it
/// does in R′G′B′ (the matrix is affine; its offsets are scaled by α in `src′`).
///
/// Chroma is averaged over each 2×2 block, so there is one variant per parity of the
/// position it is drawn at.
struct YUVSprite: Sendable {
    let width: Int, height: Int
    /// Luma: premultiplied value ×16 and alpha (0…256) per pixel.
    let luma: [Int32]
    let lumaAlpha: [Int32]
    /// Chroma variants for (x & 1, y & 1): planes of `cw × ch` (premultiplied ×16) and alpha.
    let chroma: [(cw: Int, ch: Int, u: [Int32], v: [Int32], alpha: [Int32])]

    init(_ s: Sprite) {
        width = s.width
        height = s.height
        var luma = [Int32](repeating: 0, count: width * height), la = luma
        var pu = [Double](repeating: 0, count: width * height), pv = pu, pa = pu
        for i in 0..<(width * height) {
            let a = Double(s.pixels[i * 4 + 3])
            let (y, u, v) = YUVImage.premultiplied(
                r: Double(s.pixels[i * 4]), g: Double(s.pixels[i * 4 + 1]),
                b: Double(s.pixels[i * 4 + 2]), a: a)
            luma[i] = Int32((y * 16).rounded())
            la[i] = Int32((a * 256 / 255).rounded())
            pu[i] = u; pv[i] = v; pa[i] = a
        }
        self.luma = luma
        lumaAlpha = la
        var variants: [(Int, Int, [Int32], [Int32], [Int32])] = []
        for parity in 0..<4 {
            let ox = parity & 1, oy = parity >> 1
            // The sprite placed at an odd x starts in the second column of a chroma block.
            let cw = (width + ox + 1) / 2, ch = (height + oy + 1) / 2
            var u = [Int32](repeating: 0, count: cw * ch), v = u, alpha = u
            for cy in 0..<ch {
                for cx in 0..<cw {
                    var su = 0.0, sv = 0.0, sa = 0.0
                    for dy in 0..<2 {
                        for dx in 0..<2 {
                            let x = cx * 2 + dx - ox, y = cy * 2 + dy - oy
                            guard x >= 0, x < width, y >= 0, y < height else { continue }
                            let i = y * width + x
                            su += pu[i]; sv += pv[i]; sa += pa[i]
                        }
                    }
                    u[cy * cw + cx] = Int32((su / 4 * 16).rounded())
                    v[cy * cw + cx] = Int32((sv / 4 * 16).rounded())
                    alpha[cy * cw + cx] = Int32((sa / 4 * 256 / 255).rounded())
                }
            }
            variants.append((cw, ch, u, v, alpha))
        }
        chroma = variants.map { (cw: $0.0, ch: $0.1, u: $0.2, v: $0.3, alpha: $0.4) }
    }

    /// Blends the sprite at (`x`, `y`) with `opacity` onto planes, for luma rows in `rows`
    /// (even-aligned band) only.
    func draw(
        y yPlane: UnsafeMutablePointer<UInt8>, u uPlane: UnsafeMutablePointer<UInt8>, v vPlane: UnsafeMutablePointer<UInt8>,
        width fw: Int, height fh: Int, x: Int, y: Int, opacity: Double, rows: Range<Int>
    ) {
        let op = Int32((max(0, min(1, opacity)) * 256).rounded())
        if op == 0 { return }
        // Luma.
        let x0 = max(0, x), x1 = min(fw, x + width)
        let y0 = max(rows.lowerBound, y), y1 = min(rows.upperBound, fh, y + height)
        if x0 < x1 && y0 < y1 {
            for yy in y0..<y1 {
                let srow = (yy - y) * width - x
                let drow = yPlane + yy * fw
                for xx in x0..<x1 {
                    let a = (lumaAlpha[srow + xx] * op) >> 8
                    if a == 0 { continue }
                    let src = (luma[srow + xx] * op) >> 8  // ×16
                    let d = Int32(drow[xx])
                    drow[xx] = UInt8(clamping: (src + d * (256 - a) / 16 + 8) >> 4)
                }
            }
        }
        // Chroma: the variant for this parity, positioned at the enclosing chroma block.
        let ox = x & 1, oy = y & 1
        let c = chroma[oy * 2 + ox]
        let cx = (x - ox) / 2, cyTop = (y - oy) / 2
        let cfw = fw / 2, cfh = fh / 2
        let cx0 = max(0, cx), cx1 = min(cfw, cx + c.cw)
        let cy0 = max(rows.lowerBound / 2, cyTop), cy1 = min((rows.upperBound + 1) / 2, cfh, cyTop + c.ch)
        guard cx0 < cx1 && cy0 < cy1 else { return }
        for cy in cy0..<cy1 {
            let srow = (cy - cyTop) * c.cw - cx
            let du = uPlane + cy * cfw, dv = vPlane + cy * cfw
            for xx in cx0..<cx1 {
                let a = (c.alpha[srow + xx] * op) >> 8
                if a == 0 { continue }
                let su = (c.u[srow + xx] * op) >> 8, sv = (c.v[srow + xx] * op) >> 8
                du[xx] = UInt8(clamping: (su + Int32(du[xx]) * (256 - a) / 16 + 8) >> 4)
                dv[xx] = UInt8(clamping: (sv + Int32(dv[xx]) * (256 - a) / 16 + 8) >> 4)
            }
        }
    }
}
