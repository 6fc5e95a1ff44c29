import Foundation

/// Mean relative luminance (WCAG: linear sRGB, 0.2126 R + 0.7152 G + 0.0722 B) of nine
/// overlapping regions, each a quarter of the frame, sampled on a sparse grid.
package enum LuminanceProbe {
    static let linear: [Double] = (0..<256).map { i in
        let c = Double(i) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// The same from a Y′CbCr frame's luma (limited range), linearised with the sRGB
    /// curve: close enough to judge flashes.
    package static func regions(_ image: YUVImage) -> [Double] {
        let w = image.width, h = image.height
        let step = max(1, min(w, h) / 64)
        var cells = [Double](repeating: 0, count: 16), counts = [Double](repeating: 0, count: 16)
        for y in stride(from: 0, to: h, by: step) {
            let cy = min(3, y * 4 / h)
            for x in stride(from: 0, to: w, by: step) {
                let v = max(0, min(255, (Int(image.y[y * w + x]) - 16) * 255 / 219))
                let c = cy * 4 + min(3, x * 4 / w)
                cells[c] += linear[v]; counts[c] += 1
            }
        }
        return windows(cells, counts)
    }

    /// Nine values in 0…1: windows of half the width and height at steps of a quarter.
    package static func regions(_ image: RGBAImage) -> [Double] {
        let w = image.width, h = image.height
        let step = max(1, min(w, h) / 64)
        // Luminance per cell of a 4×4 grid, then windows of 2×2 cells.
        var cells = [Double](repeating: 0, count: 16), counts = [Double](repeating: 0, count: 16)
        image.pixels.withUnsafeBufferPointer { p in
            for y in stride(from: 0, to: h, by: step) {
                let cy = min(3, y * 4 / h)
                for x in stride(from: 0, to: w, by: step) {
                    let i = (y * w + x) * 4
                    let l = 0.2126 * linear[Int(p[i])] + 0.7152 * linear[Int(p[i + 1])] + 0.0722 * linear[Int(p[i + 2])]
                    let c = cy * 4 + min(3, x * 4 / w)
                    cells[c] += l; counts[c] += 1
                }
            }
        }
        return windows(cells, counts)
    }

    static func windows(_ cells: [Double], _ counts: [Double]) -> [Double] {
        var out: [Double] = []
        for wy in 0..<3 {
            for wx in 0..<3 {
                var s = 0.0, n = 0.0
                for dy in 0..<2 { for dx in 0..<2 { let c = (wy + dy) * 4 + wx + dx; s += cells[c]; n += counts[c] } }
                out.append(n > 0 ? s / n : 0)
            }
        }
        return out
    }
}
