/// A Y′CbCr matrix (the luma weights of R′ and B′), and the change from one to another done
/// in Y′CbCr itself.
///
/// A BT.601 clip bound for a BT.709 video would otherwise need a round trip through RGB for
/// every frame. Both matrices are affine maps of the same R′G′B′, so one 3×3 map takes a
/// limited-range sample from one to the other: luma keeps its value on greys and moves by a
/// share of the pixel's chroma; chroma is remixed. (In 4:2:0 each luma sample takes the
/// chroma of its 2×2 block, as a player's nearest upsampling would.)
package struct YUVMatrix: Sendable, Equatable {
    /// Luma weights of red and blue.
    package let kr: Double
    package let kb: Double

    package static let bt601 = YUVMatrix(kr: 0.299, kb: 0.114)
    package static let bt709 = YUVMatrix(kr: 0.2126, kb: 0.0722)
    package static let bt2020 = YUVMatrix(kr: 0.2627, kb: 0.0593)
    package static let smpte240m = YUVMatrix(kr: 0.212, kb: 0.087)

    /// R′G′B′ (0…1) → (Y′, Pb, Pr).
    var forward: [[Double]] {
        let kg = 1 - kr - kb
        return [
            [kr, kg, kb],
            [-kr / (2 * (1 - kb)), -kg / (2 * (1 - kb)), 0.5],
            [0.5, -kg / (2 * (1 - kr)), -kb / (2 * (1 - kr))],
        ]
    }

    /// (Y′, Pb, Pr) → R′G′B′.
    var inverse: [[Double]] {
        let kg = 1 - kr - kb
        return [
            [1, 0, 2 * (1 - kr)],
            [1, -2 * (1 - kb) * kb / kg, -2 * (1 - kr) * kr / kg],
            [1, 2 * (1 - kb), 0],
        ]
    }

    /// The map from this matrix's (Y′, Pb, Pr) to `target`'s.
    func map(to target: YUVMatrix) -> [[Double]] {
        let a = target.forward, b = inverse
        return (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
    }

    /// Converts a limited-range 4:2:0 picture coded with this matrix to `target`'s, in place.
    package func convert(_ image: inout YUVImage, to target: YUVMatrix) {
        guard target != self else { return }
        let m = map(to: target)
        // Fixed point, 14 fractional bits. Code values: Y′ = 16 + 219·E′Y, Cb = 128 + 224·E′Pb.
        func q(_ v: Double) -> Int32 { Int32((v * 16384).rounded()) }
        // Each term depends on one chroma value: tables of 256 replace the multiplies.
        let yCb = q(m[0][1] * 219 / 224), yCr = q(m[0][2] * 219 / 224)
        let bb = q(m[1][1]), br = q(m[1][2]), rb = q(m[2][1]), rr = q(m[2][2])
        let lut = (0..<256).map { v -> (Int32, Int32, Int32, Int32, Int32, Int32) in
            let c = Int32(v) - 128
            return (yCb * c, yCr * c, bb * c, br * c, rb * c, rr * c)
        }
        let w = image.width, cw = w / 2, ch = image.height / 2
        image.y.withUnsafeMutableBufferPointer { yp in
            image.u.withUnsafeMutableBufferPointer { up in
                image.v.withUnsafeMutableBufferPointer { vp in
                    let Y = UnsafeSendablePointer(yp.baseAddress!), U = UnsafeSendablePointer(up.baseAddress!)
                    let V = UnsafeSendablePointer(vp.baseAddress!)
                    parallelRows(ch) { rows in
                        var dy = [Int32](repeating: 0, count: cw)
                        lut.withUnsafeBufferPointer { t in
                            dy.withUnsafeMutableBufferPointer { d in
                                for cy in rows {
                                    let u = U.base + cy * cw, v = V.base + cy * cw
                                    // Wrapping arithmetic and a branch-free clamp: this runs for every
                                    // pixel of every frame.
                                    @inline(__always) func byte(_ v: Int32) -> UInt8 { UInt8(truncatingIfNeeded: min(max(v, 0), 255)) }
                                    for cx in 0..<cw {
                                        let a = t[Int(u[cx])], b = t[Int(v[cx])]
                                        d[cx] = (a.0 &+ b.1 &+ 8192) &>> 14
                                        u[cx] = byte(128 &+ ((a.2 &+ b.3 &+ 8192) &>> 14))
                                        v[cx] = byte(128 &+ ((a.4 &+ b.5 &+ 8192) &>> 14))
                                    }
                                    for row in (cy * 2)..<(cy * 2 + 2) {
                                        let y = Y.base + row * w
                                        for cx in 0..<cw {
                                            let dd = d[cx], x = cx &<< 1
                                            y[x] = byte(Int32(y[x]) &+ dd)
                                            y[x &+ 1] = byte(Int32(y[x &+ 1]) &+ dd)
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
