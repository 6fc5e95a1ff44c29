import Foundation

/// High-quality resizing with a Lanczos-3 filter, widened when shrinking so that it
/// averages the whole source area (no aliasing when 2560 px become 720 px).
package enum Resampler {
    /// Brings `image` to `width`×`height` with the given fit mode.
    ///
    /// An image with see-through pixels (over a transparent background) is resampled with
    /// its colours weighted by alpha, so that a see-through pixel's colour does not bleed
    /// into its neighbours. When it already has the output size and the mode needs no
    /// letterbox, it is returned unchanged, bit for bit.
    package static func resize(
        _ image: RGBAImage, width: Int, height: Int,
        mode: FitMode = .fill, background: RGBA8 = .black
    ) -> RGBAImage {
        if image.width == width && image.height == height { return image }
        let place = FitPlacement(sourceWidth: image.width, sourceHeight: image.height, width: width, height: height, mode: mode)
        guard !image.isOpaque else {
            return resample(
                image, srcRect: place.source, into: RGBAImage(width: width, height: height, fill: background),
                dstRect: place.destination)
        }
        // The filter runs on three channels: colours weighted by alpha, then alpha as grey.
        var out = resample(
            premultiplied(image, by: 1), srcRect: place.source,
            into: premultiplied(RGBAImage(width: width, height: height, fill: background), by: 1), dstRect: place.destination)
        var alpha = image
        alpha.pixels.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 4) { (p[i], p[i + 1], p[i + 2], p[i + 3]) = (p[i + 3], p[i + 3], p[i + 3], 255) }
        }
        let a = background.a
        let alphas = resample(
            alpha, srcRect: place.source, into: RGBAImage(width: width, height: height, fill: RGBA8(r: a, g: a, b: a, a: 255)),
            dstRect: place.destination)
        for i in stride(from: 3, to: out.pixels.count, by: 4) { out.pixels[i] = alphas.pixels[i - 3] }
        return premultiplied(out, by: -1)
    }

    /// `image` with its colours multiplied by alpha (`direction` 1) or divided by it (−1).
    static func premultiplied(_ image: RGBAImage, by direction: Int) -> RGBAImage {
        var out = image
        out.pixels.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                let a = Int(p[i + 3])
                if a == 255 { continue }
                for c in i..<(i + 3) {
                    p[c] =
                        direction > 0
                        ? UInt8((Int(p[c]) * a + 127) / 255) : a == 0 ? 0 : UInt8(min(255, (Int(p[c]) * 255 + a / 2) / a))
                }
            }
        }
        return out
    }

    /// Filter taps for one axis: for each output index, a first source index and weights.
    struct Taps {
        var first: [Int32]
        var count: Int
        var weights: [Float]  // outputCount * count, zero-padded
    }

    static func lanczos3(_ x: Double) -> Double {
        let ax = abs(x)
        if ax < 1e-9 { return 1 }
        if ax >= 3 { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }

    static func taps(srcStart: Double, srcLength: Double, srcCount: Int, outCount: Int) -> Taps {
        let ratio = srcLength / Double(outCount)
        let scale = max(1, ratio)
        let support = 3 * scale
        let window = Int(ceil(support * 2)) + 1
        // Never more taps than source pixels: every tap reads inside the image.
        let n = min(window, srcCount)
        var first = [Int32](repeating: 0, count: outCount)
        var weights = [Float](repeating: 0, count: outCount * n)
        var ws = [Double](repeating: 0, count: window)
        for o in 0..<outCount {
            let centre = srcStart + (Double(o) + 0.5) * ratio - 0.5
            let lo = Int(floor(centre - support)) + 1
            var sum = 0.0
            for k in 0..<window {
                let w = lanczos3((Double(lo + k) - centre) / scale)
                ws[k] = w; sum += w
            }
            // Clamp to the image by folding out-of-range taps onto the edge pixels.
            let clampedLo = min(max(lo, 0), srcCount - n)
            for k in 0..<window {
                let src = min(max(lo + k, 0), srcCount - 1)
                let slot = min(max(src - clampedLo, 0), n - 1)
                weights[o * n + slot] += Float(ws[k] / sum)
            }
            first[o] = Int32(clampedLo)
        }
        return Taps(first: first, count: n, weights: weights)
    }

    static func resample(
        _ src: RGBAImage, srcRect: (Double, Double, Double, Double),
        into canvas: RGBAImage, dstRect: (Int, Int, Int, Int)
    ) -> RGBAImage {
        var out = canvas
        let (dx, dy, dw, dh) = dstRect
        let hx = taps(srcStart: srcRect.0, srcLength: srcRect.2, srcCount: src.width, outCount: dw)
        let vy = taps(srcStart: srcRect.1, srcLength: srcRect.3, srcCount: src.height, outCount: dh)
        // Source rows the vertical pass reads.
        let rowLo = Int(vy.first.min() ?? 0)
        let rowHi = min(src.height, Int(vy.first.max() ?? 0) + vy.count)
        let rows = rowHi - rowLo
        var tmp = [Float](repeating: 0, count: rows * dw * 3)
        let sw = src.width
        src.pixels.withUnsafeBufferPointer { sp in
            tmp.withUnsafeMutableBufferPointer { tp in
                hx.weights.withUnsafeBufferPointer { wp in
                    hx.first.withUnsafeBufferPointer { fp in
                        let s = UnsafeSendableReadPointer(sp.baseAddress!)
                        let t = UnsafeSendablePointer(tp.baseAddress!)
                        let w = UnsafeSendableReadPointer(wp.baseAddress!)
                        let f = UnsafeSendableReadPointer(fp.baseAddress!)
                        let n = hx.count
                        parallelRows(rows) { band in
                            for r in band {
                                let srow = s.base + (rowLo + r) * sw * 4
                                let trow = t.base + r * dw * 3
                                for o in 0..<dw {
                                    var acc0: Float = 0, acc1: Float = 0, acc2: Float = 0
                                    var p = srow + Int(f.base[o]) * 4
                                    let wo = w.base + o * n
                                    for k in 0..<n {
                                        let wk = wo[k]
                                        acc0 += wk * Float(p[0]); acc1 += wk * Float(p[1]); acc2 += wk * Float(p[2])
                                        p += 4
                                    }
                                    trow[o * 3] = acc0; trow[o * 3 + 1] = acc1; trow[o * 3 + 2] = acc2
                                }
                            }
                        }
                    }
                }
            }
        }
        let ow = out.width
        tmp.withUnsafeBufferPointer { tp in
            out.pixels.withUnsafeMutableBufferPointer { op in
                vy.weights.withUnsafeBufferPointer { wp in
                    vy.first.withUnsafeBufferPointer { fp in
                        let t = UnsafeSendableReadPointer(tp.baseAddress!)
                        let o = UnsafeSendablePointer(op.baseAddress!)
                        let w = UnsafeSendableReadPointer(wp.baseAddress!)
                        let f = UnsafeSendableReadPointer(fp.baseAddress!)
                        let n = vy.count
                        parallelRows(dh) { band in
                            var acc = [Float](repeating: 0, count: dw * 3)
                            for y in band {
                                for i in 0..<acc.count { acc[i] = 0 }
                                let r0 = Int(f.base[y]) - rowLo
                                for k in 0..<n {
                                    let wk = w.base[y * n + k]
                                    if wk == 0 { continue }
                                    let trow = t.base + (r0 + k) * dw * 3
                                    for i in 0..<(dw * 3) { acc[i] += wk * trow[i] }
                                }
                                let orow = o.base + ((dy + y) * ow + dx) * 4
                                for x in 0..<dw {
                                    for c in 0..<3 {
                                        let v = acc[x * 3 + c]
                                        orow[x * 4 + c] = UInt8(max(0, min(255, v + 0.5)))
                                    }
                                    orow[x * 4 + 3] = 255
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
