/// Coverage of a frame's rounded corners, computed once (4×4 supersampled) and applied
/// to the four corner patches of each frame.
struct CornerMask: Sendable {
    let size: Int
    /// `size × size` coverage of the top-left patch; 255 inside the frame.
    let coverage: [UInt8]

    init(radius: Double, width: Int, height: Int) {
        let r = min(radius, Double(min(width, height)) / 2)
        size = Int(r.rounded(.up))
        var cov = [UInt8](repeating: 255, count: size * size)
        for y in 0..<size {
            for x in 0..<size {
                var inside = 0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let px = Double(x) + (Double(sx) + 0.5) / 4, py = Double(y) + (Double(sy) + 0.5) / 4
                        let dx = r - px, dy = r - py
                        if dx <= 0 || dy <= 0 || dx * dx + dy * dy <= r * r { inside += 1 }
                    }
                }
                cov[y * size + x] = UInt8(inside * 255 / 16)
            }
        }
        coverage = cov
    }

    /// Blends the outside of each corner towards `background`, including its alpha, so a
    /// transparent background gives transparent corners. Only frame rows in `rows`.
    func apply(to p: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int, background: RGBA8, rows: Range<Int>) {
        guard size > 0, size <= w, size <= h else { return }
        let bg = [Int(background.r), Int(background.g), Int(background.b), Int(background.a)]
        for fy in rows {
            let y = fy < size ? fy : (fy >= h - size ? h - 1 - fy : -1)
            if y < 0 { continue }
            for x in 0..<size {
                let c = Int(coverage[y * size + x])
                if c == 255 { continue }
                for fx in [x, w - 1 - x] {
                    let i = (fy * w + fx) * 4
                    for ch in 0..<4 { p[i + ch] = UInt8((Int(p[i + ch]) * c + bg[ch] * (255 - c) + 127) / 255) }
                }
            }
        }
    }
}
