import Foundation

/// A separable Gaussian blur of an 8-bit coverage map (used for the knob's soft shadow).
enum GaussianBlur {
    static func blur(_ plane: inout [UInt8], width: Int, height: Int, sigma: Double) {
        guard sigma > 0.1 else { return }
        let r = Int(ceil(sigma * 3))
        var kernel = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let sum = kernel.reduce(0, +)
        kernel = kernel.map { $0 / sum }
        var tmp = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var acc = 0.0
                for k in -r...r {
                    let xx = min(max(x + k, 0), width - 1)
                    acc += kernel[k + r] * Double(plane[y * width + xx])
                }
                tmp[y * width + x] = acc
            }
        }
        for y in 0..<height {
            for x in 0..<width {
                var acc = 0.0
                for k in -r...r {
                    let yy = min(max(y + k, 0), height - 1)
                    acc += kernel[k + r] * tmp[yy * width + x]
                }
                plane[y * width + x] = UInt8(max(0, min(255, acc.rounded())))
            }
        }
    }
}
