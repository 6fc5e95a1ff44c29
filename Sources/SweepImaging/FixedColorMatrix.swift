/// A ``ColorMatrix`` in 16-bit fixed point (64-bit sums, so no value can overflow), with
/// round-to-nearest folded into the offsets.
package struct FixedColorMatrix: Sendable {
    let k0, k1, k2, k3, k4, k5, k6, k7, k8, o0, o1, o2: Int
    static let shift = 16

    /// The fixed-point form of `m`.
    package init(_ m: ColorMatrix) {
        let one = Double(1 << Self.shift)
        let k = m.m.map { Int(($0 * one).rounded()) }
        let o = m.offset.map { Int(($0 * 255 * one).rounded()) + (1 << (Self.shift - 1)) }
        (k0, k1, k2, k3, k4, k5, k6, k7, k8) = (k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8])
        (o0, o1, o2) = (o[0], o[1], o[2])
    }

    /// Maps `count` RGBA pixels from `src` to `dst` (which may be the same); alpha is copied.
    @inline(__always)
    package func apply(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, count: Int) {
        var s = src, d = dst
        for _ in 0..<count {
            let r = Int(s[0]), g = Int(s[1]), b = Int(s[2])
            let nr = (k0 &* r &+ k1 &* g &+ k2 &* b &+ o0) >> 16
            let ng = (k3 &* r &+ k4 &* g &+ k5 &* b &+ o1) >> 16
            let nb = (k6 &* r &+ k7 &* g &+ k8 &* b &+ o2) >> 16
            d[0] = UInt8(clamping: nr); d[1] = UInt8(clamping: ng); d[2] = UInt8(clamping: nb); d[3] = s[3]
            s += 4; d += 4
        }
    }
}
