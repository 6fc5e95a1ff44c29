import CPangoCairo
import SweepSupport

/// Owner of one Cairo ARGB32 image surface and its context: the only place the imaging
/// core touches Cairo. A `~Copyable` struct (swift-system's `FileDescriptor` discipline):
/// one owner, freed in `deinit`, and no Cairo type leaks out of its methods.
struct CairoCanvas: ~Copyable {
    /// How a stroke's open ends are drawn (`cairo_line_cap_t`).
    enum LineCap { case butt, round, square }
    /// How a stroke's corners are drawn (`cairo_line_join_t`).
    enum LineJoin { case miter, round, bevel }

    let width: Int
    let height: Int
    private let surface: OpaquePointer
    private let cr: OpaquePointer
    /// The surface's pixels: never nil on a surface that was made.
    private let data: UnsafeMutablePointer<UInt8>

    /// - Throws: `.internalError` when Cairo cannot make the surface (out of memory, or a side
    ///   over its 32 767-pixel limit).
    init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(clamping: width), Int32(clamping: height))
        cr = cairo_create(surface)
        // Cairo never returns nil: a failure is an inert "error" object that draws nothing and
        // has no pixels, so it is refused here, with a reason, rather than drawn into.
        guard width > 0, height > 0, cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, cairo_status(cr) == CAIRO_STATUS_SUCCESS,
            let data = cairo_image_surface_get_data(surface)
        else {
            let status = String(cString: cairo_status_to_string(cairo_surface_status(surface)))
            cairo_destroy(cr)
            cairo_surface_destroy(surface)
            throw SweepError(
                .internalError, "cannot make a \(width)x\(height) drawing surface (\(status))",
                fix: "free some memory, or ask for a smaller size")
        }
        self.data = data
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    /// Sets the colour for the next fill, stroke or paint; `alpha` multiplies the colour's own.
    func setColor(_ c: RGBA8, alpha: Double = 1) {
        cairo_set_source_rgba(cr, Double(c.r) / 255, Double(c.g) / 255, Double(c.b) / 255, Double(c.a) / 255 * alpha)
    }

    /// Fills a disc in the current colour.
    func circle(cx: Double, cy: Double, radius: Double) {
        cairo_new_path(cr)
        cairo_arc(cr, cx, cy, radius, 0, 2 * Double.pi)
        cairo_fill(cr)
    }

    /// A rectangle with corner radius `r` (a capsule when `r` is half the height).
    func roundedRect(x: Double, y: Double, w: Double, h: Double, r: Double) {
        let r = min(r, w / 2, h / 2)
        cairo_new_path(cr)
        cairo_arc(cr, x + w - r, y + r, r, -Double.pi / 2, 0)
        cairo_arc(cr, x + w - r, y + h - r, r, 0, Double.pi / 2)
        cairo_arc(cr, x + r, y + h - r, r, Double.pi / 2, Double.pi)
        cairo_arc(cr, x + r, y + r, r, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(cr)
        cairo_fill(cr)
    }

    /// Paints `color` through an 8-bit coverage mask of the canvas's size.
    ///
    /// - Throws: `.internalError` when Cairo cannot make the mask's surface.
    func paint(_ color: RGBA8, mask: [UInt8]) throws {
        let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_A8, Int32(width)))
        let maskSurface = SurfaceOwner(cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(width), Int32(height)))
        cairo_surface_flush(maskSurface.ptr)
        guard cairo_surface_status(maskSurface.ptr) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(maskSurface.ptr)
        else {
            throw SweepError(
                .internalError, "cannot make a \(width)x\(height) mask surface", fix: "free some memory, or ask for a smaller size")
        }
        for y in 0..<height {
            for x in 0..<width { data[y * stride + x] = mask[y * width + x] }
        }
        cairo_surface_mark_dirty(maskSurface.ptr)
        setColor(color)
        cairo_mask_surface(cr, maskSurface.ptr, 0, 0)
    }

    /// Lays out `text` with Pango and returns its logical size in pixels.
    func textSize(_ text: String, font: String, pixelSize: Double, weight: Int) throws -> (w: Double, h: Double, y: Double) {
        let layout = try makeLayout(text, font: font, pixelSize: pixelSize, weight: weight)
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_extents(layout.ptr, &ink, &logical)
        let s = Double(sweep_pango_scale)
        return (Double(logical.width) / s, Double(logical.height) / s, Double(logical.y) / s)
    }

    /// Characters of `text` that no installed font can draw (they would show as boxes).
    func unknownGlyphs(_ text: String, font: String, weight: Int) throws -> Int {
        let layout = try makeLayout(text, font: font, pixelSize: 24, weight: weight)
        return Int(pango_layout_get_unknown_glyphs_count(layout.ptr))
    }

    /// Draws `text` with its logical top-left at (`x`, `y`).
    func drawText(_ text: String, x: Double, y: Double, font: String, pixelSize: Double, weight: Int, color: RGBA8) throws {
        let layout = try makeLayout(text, font: font, pixelSize: pixelSize, weight: weight)
        setColor(color)
        cairo_move_to(cr, x, y)
        pango_cairo_show_layout(cr, layout.ptr)
    }

    private func makeLayout(_ text: String, font: String, pixelSize: Double, weight: Int) throws -> LayoutOwner {
        guard let made = pango_cairo_create_layout(cr), let described = pango_font_description_from_string(font) else {
            throw SweepError(.internalError, "Pango cannot lay out text in \(font)", fix: "check the font, or leave the labels out")
        }
        let layout = LayoutOwner(made)
        let desc = FontDescriptionOwner(described)
        pango_font_description_set_weight(desc.ptr, PangoWeight(rawValue: UInt32(clamping: max(100, min(1000, weight)))))
        pango_font_description_set_absolute_size(desc.ptr, pixelSize * Double(sweep_pango_scale))
        // The layout copies the description, so `desc` may go when this returns.
        pango_layout_set_font_description(layout.ptr, desc.ptr)
        pango_layout_set_text(layout.ptr, text, -1)
        return layout
    }

    /// The canvas as a premultiplied RGBA sprite.
    func sprite() -> Sprite {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        var px = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                // ARGB32 is a native-endian 32-bit word: bytes B G R A on little-endian.
                let s = data + y * stride + x * 4
                let word = UnsafeRawPointer(s).loadUnaligned(as: UInt32.self)
                let i = (y * width + x) * 4
                px[i] = UInt8(truncatingIfNeeded: word >> 16)
                px[i + 1] = UInt8(truncatingIfNeeded: word >> 8)
                px[i + 2] = UInt8(truncatingIfNeeded: word)
                px[i + 3] = UInt8(truncatingIfNeeded: word >> 24)
            }
        }
        return Sprite(width: width, height: height, pixels: px)
    }

    /// Replaces the canvas's pixels with an opaque image of the same size.
    func load(_ image: RGBAImage) {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let word =
                    UInt32(image.pixels[i + 3]) << 24 | UInt32(image.pixels[i]) << 16 | UInt32(image.pixels[i + 1]) << 8
                    | UInt32(image.pixels[i + 2])
                UnsafeMutableRawPointer(data + y * stride + x * 4).storeBytes(of: word, as: UInt32.self)
            }
        }
        cairo_surface_mark_dirty(surface)
    }

    /// The canvas flattened to an opaque straight-alpha image over `background`.
    func image(over background: RGBA8 = .black) -> RGBAImage {
        let s = sprite()
        var img = RGBAImage(width: width, height: height, fill: background)
        s.draw(into: &img, x: 0, y: 0)
        return img
    }

    // MARK: Paths and painting
    //
    // A small Swift-typed slice of Cairo's drawing model for the scenes, the plan chart and
    // the slider glyph: build a path, then fill or stroke it (either clears the path).

    /// Starts a fresh path, discarding any unfinished one.
    func newPath() { cairo_new_path(cr) }

    /// Starts a new sub-path at (`x`, `y`).
    func move(toX x: Double, y: Double) { cairo_move_to(cr, x, y) }

    /// Adds a straight segment to (`x`, `y`).
    func line(toX x: Double, y: Double) { cairo_line_to(cr, x, y) }

    /// Adds a cubic Bézier segment to (`x`, `y`) with control points (`c1x`, `c1y`) and (`c2x`, `c2y`).
    func curve(c1x: Double, c1y: Double, c2x: Double, c2y: Double, toX x: Double, y: Double) {
        cairo_curve_to(cr, c1x, c1y, c2x, c2y, x, y)
    }

    /// Closes the current sub-path with a segment back to its start.
    func closePath() { cairo_close_path(cr) }

    /// Adds an axis-aligned rectangle sub-path.
    func rectangle(x: Double, y: Double, w: Double, h: Double) { cairo_rectangle(cr, x, y, w, h) }

    /// Fills the path in the current colour (non-zero winding) and clears it.
    func fill() { cairo_fill(cr) }

    /// Strokes the path in the current colour and clears it.
    ///
    /// - Parameters:
    ///   - width: line width in user-space units (scaled by the current transform).
    ///   - cap: how open ends look; Cairo's default is `.butt`.
    ///   - join: how corners look; Cairo's default is `.miter`.
    func stroke(width: Double, cap: LineCap = .butt, join: LineJoin = .miter) {
        let cairoCap: cairo_line_cap_t =
            switch cap {
            case .butt: CAIRO_LINE_CAP_BUTT
            case .round: CAIRO_LINE_CAP_ROUND
            case .square: CAIRO_LINE_CAP_SQUARE
            }
        let cairoJoin: cairo_line_join_t =
            switch join {
            case .miter: CAIRO_LINE_JOIN_MITER
            case .round: CAIRO_LINE_JOIN_ROUND
            case .bevel: CAIRO_LINE_JOIN_BEVEL
            }
        cairo_set_line_width(cr, width)
        cairo_set_line_cap(cr, cairoCap)
        cairo_set_line_join(cr, cairoJoin)
        cairo_stroke(cr)
    }

    /// Paints the current colour over the whole canvas.
    func paint() { cairo_paint(cr) }

    /// Paints the whole canvas with a linear gradient from (`x0`, `y0`) to (`x1`, `y1`).
    ///
    /// - Parameter stops: (offset 0…1 along the line, colour) pairs in increasing offset.
    func paintLinearGradient(x0: Double, y0: Double, x1: Double, y1: Double, stops: [(Double, RGBA8)]) {
        let gradient = PatternOwner(cairo_pattern_create_linear(x0, y0, x1, y1))
        for (offset, c) in stops {
            cairo_pattern_add_color_stop_rgba(
                gradient.ptr, offset, Double(c.r) / 255, Double(c.g) / 255, Double(c.b) / 255,
                Double(c.a) / 255)
        }
        cairo_set_source(cr, gradient.ptr)
        cairo_paint(cr)
    }

    /// Runs `body` and then restores the transform, colour and line settings it changed.
    func withSavedState<R>(_ body: () throws -> R) rethrows -> R {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        return try body()
    }

    /// Moves the origin to (`x`, `y`) for what is drawn next.
    func translate(x: Double, y: Double) { cairo_translate(cr, x, y) }

    /// Rotates the axes by `radians` (clockwise on screen, y pointing down).
    func rotate(radians: Double) { cairo_rotate(cr, radians) }
}

/// Owns one Cairo surface made for a single drawing step (e.g. a mask).
private struct SurfaceOwner: ~Copyable {
    let ptr: OpaquePointer
    init(_ ptr: OpaquePointer) {
        // Cairo returns an inert error surface rather than nil; catch it where it is made.
        precondition(cairo_surface_status(ptr) == CAIRO_STATUS_SUCCESS, "cannot make a Cairo surface")
        self.ptr = ptr
    }
    deinit { cairo_surface_destroy(ptr) }
}

/// Owns one Cairo pattern (a gradient).
private struct PatternOwner: ~Copyable {
    let ptr: OpaquePointer
    init(_ ptr: OpaquePointer) {
        precondition(cairo_pattern_status(ptr) == CAIRO_STATUS_SUCCESS, "cannot make a Cairo pattern")
        self.ptr = ptr
    }
    deinit { cairo_pattern_destroy(ptr) }
}

/// Owns one PangoLayout (a GObject: one reference, dropped in deinit).
private struct LayoutOwner: ~Copyable {
    let ptr: OpaquePointer
    init(_ ptr: OpaquePointer) { self.ptr = ptr }
    deinit { g_object_unref(UnsafeMutableRawPointer(ptr)) }
}

/// Owns one PangoFontDescription.
private struct FontDescriptionOwner: ~Copyable {
    let ptr: OpaquePointer
    init(_ ptr: OpaquePointer) { self.ptr = ptr }
    deinit { pango_font_description_free(ptr) }
}
