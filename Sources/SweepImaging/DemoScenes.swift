/// The seed's built-in demo pictures, drawn with Cairo (docs/REFERENCE.md §look), so `sweep demo` needs
/// no input files.
package enum DemoScenes {
    /// The 900×1200 "Flat landscape": grey sky, white sun, grey hill.
    package static func flatLandscape() throws -> RGBAImage {
        try landscape(
            sky: [(0, RGBA8(unit: 0.55, 0.55, 0.55)), (1, RGBA8(unit: 0.78, 0.78, 0.78))],
            hill: RGBA8(unit: 0.34, 0.34, 0.34))
    }

    /// The 900×1200 "Graded landscape": indigo → pink → orange sky, deep blue hill.
    package static func gradedLandscape() throws -> RGBAImage {
        try landscape(
            sky: [(0, RGBA8(r: 75, g: 0, b: 130)), (0.5, RGBA8(r: 255, g: 105, b: 180)), (1, RGBA8(r: 255, g: 165, b: 0))],
            hill: RGBA8(unit: 0.13, 0.16, 0.40))
    }

    static func landscape(sky: [(Double, RGBA8)], hill: RGBA8) throws -> RGBAImage {
        let canvas = try CairoCanvas(width: 900, height: 1200)
        canvas.paintLinearGradient(x0: 0, y0: 0, x1: 0, y1: 1200, stops: sky)
        canvas.setColor(.white, alpha: 0.85)
        canvas.circle(cx: 540, cy: 220, radius: 100)
        canvas.setColor(hill)
        canvas.newPath()
        canvas.move(toX: 0, y: 760)
        canvas.curve(c1x: 300, c1y: 480, c2x: 600, c2y: 1020, toX: 900, y: 660)
        canvas.line(toX: 900, y: 1200)
        canvas.line(toX: 0, y: 1200)
        canvas.closePath()
        canvas.fill()
        return canvas.image()
    }
}
