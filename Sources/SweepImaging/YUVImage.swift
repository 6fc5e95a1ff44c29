/// A planar Y′CbCr 4:2:0 picture (BT.709, limited range), the layout H.264 encodes, so a
/// video frame can be composed without converting from RGB every frame.
package struct YUVImage: Sendable, Equatable {
    /// Width in pixels (even).
    package let width: Int
    /// Height in pixels (even).
    package let height: Int
    /// Luma, `width × height`.
    package var y: [UInt8]
    /// Chroma, `(width / 2) × (height / 2)` each.
    package var u: [UInt8]
    package var v: [UInt8]

    /// A black frame; both sides must be even.
    package init(width: Int, height: Int) {
        precondition(width > 0 && height > 0 && width % 2 == 0 && height % 2 == 0, "4:2:0 needs even sides")
        self.width = width
        self.height = height
        y = [UInt8](repeating: 16, count: width * height)
        u = [UInt8](repeating: 128, count: width * height / 4)
        v = u
    }

    /// Wraps planes of the right sizes.
    package init(width: Int, height: Int, y: [UInt8], u: [UInt8], v: [UInt8]) {
        precondition(y.count == width * height && u.count == width * height / 4 && v.count == u.count)
        self.width = width
        self.height = height
        self.y = y
        self.u = u
        self.v = v
    }

    /// BT.709 limited-range coefficients for one premultiplied RGB colour (0…255) with
    /// alpha `a` (0…255): the values to add before blending `dst · (1 − a)`.
    @inlinable
    static func premultiplied(r: Double, g: Double, b: Double, a: Double) -> (Double, Double, Double) {
        let yy = 219.0 / 255 * (0.2126 * r + 0.7152 * g + 0.0722 * b) + 16 * a / 255
        let cb = 224.0 / 255 * (-0.114572 * r - 0.385428 * g + 0.5 * b) + 128 * a / 255
        let cr = 224.0 / 255 * (0.5 * r - 0.454153 * g - 0.045847 * b) + 128 * a / 255
        return (yy, cb, cr)
    }

    /// One opaque colour in BT.709 limited range.
    package static func color(_ c: RGBA8) -> (y: UInt8, u: UInt8, v: UInt8) {
        let (y, u, v) = premultiplied(r: Double(c.r), g: Double(c.g), b: Double(c.b), a: 255)
        func q(_ x: Double) -> UInt8 { UInt8(max(0, min(255, x.rounded()))) }
        return (q(y), q(u), q(v))
    }
}
