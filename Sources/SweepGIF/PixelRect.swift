/// A rectangle of pixels.
package struct PixelRect: Sendable, Equatable {
    package var x: Int, y: Int, width: Int, height: Int
    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    package var isEmpty: Bool { width <= 0 || height <= 0 }
}
