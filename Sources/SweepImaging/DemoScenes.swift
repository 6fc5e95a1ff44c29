import CPangoCairo

/// The seed's built-in demo pictures, drawn with Cairo (docs/REFERENCE.md §look), so `sweep demo` needs
/// no input files.
public enum DemoScenes {
    /// The 900×1200 "Flat landscape": grey sky, white sun, grey hill.
    public static func flatLandscape() -> RGBAImage {
        landscape(sky: [(0, RGBA8(unit: 0.55, 0.55, 0.55)), (1, RGBA8(unit: 0.78, 0.78, 0.78))],
                  hill: RGBA8(unit: 0.34, 0.34, 0.34))
    }

    /// The 900×1200 "Graded landscape": indigo → pink → orange sky, deep blue hill.
    public static func gradedLandscape() -> RGBAImage {
        landscape(sky: [(0, RGBA8(r: 75, g: 0, b: 130)), (0.5, RGBA8(r: 255, g: 105, b: 180)), (1, RGBA8(r: 255, g: 165, b: 0))],
                  hill: RGBA8(unit: 0.13, 0.16, 0.40))
    }

    static func landscape(sky: [(Double, RGBA8)], hill: RGBA8) -> RGBAImage {
        let canvas = CairoCanvas(width: 900, height: 1200)
        let cr = canvas.cr
        let gradient = cairo_pattern_create_linear(0, 0, 0, 1200)!
        defer { cairo_pattern_destroy(gradient) }
        for (offset, c) in sky {
            cairo_pattern_add_color_stop_rgb(gradient, offset, Double(c.r) / 255, Double(c.g) / 255, Double(c.b) / 255)
        }
        cairo_set_source(cr, gradient)
        cairo_paint(cr)
        canvas.setColor(.white, alpha: 0.85)
        canvas.circle(cx: 540, cy: 220, radius: 100)
        canvas.setColor(hill)
        cairo_new_path(cr)
        cairo_move_to(cr, 0, 760)
        cairo_curve_to(cr, 300, 480, 600, 1020, 900, 660)
        cairo_line_to(cr, 900, 1200)
        cairo_line_to(cr, 0, 1200)
        cairo_close_path(cr)
        cairo_fill(cr)
        return canvas.image()
    }
}
