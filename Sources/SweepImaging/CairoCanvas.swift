import CPangoCairo

/// Owner of one Cairo ARGB32 image surface and its context: the only place the imaging
/// core touches Cairo handles. Freed in `deinit`.
final class CairoCanvas {
    let width: Int
    let height: Int
    let surface: OpaquePointer
    let cr: OpaquePointer

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        cr = cairo_create(surface)
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    func setColor(_ c: RGBA8, alpha: Double = 1) {
        cairo_set_source_rgba(cr, Double(c.r) / 255, Double(c.g) / 255, Double(c.b) / 255, Double(c.a) / 255 * alpha)
    }

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
    func paint(_ color: RGBA8, mask: [UInt8]) {
        let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_A8, Int32(width)))
        let maskSurface = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(width), Int32(height))!
        defer { cairo_surface_destroy(maskSurface) }
        cairo_surface_flush(maskSurface)
        let data = cairo_image_surface_get_data(maskSurface)!
        for y in 0..<height {
            for x in 0..<width { data[y * stride + x] = mask[y * width + x] }
        }
        cairo_surface_mark_dirty(maskSurface)
        setColor(color)
        cairo_mask_surface(cr, maskSurface, 0, 0)
    }

    /// Lays out `text` with Pango and returns its logical size in pixels.
    func textSize(_ text: String, font: String, pixelSize: Double, weight: Int) -> (w: Double, h: Double, y: Double) {
        let layout = makeLayout(text, font: font, pixelSize: pixelSize, weight: weight)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_extents(layout, &ink, &logical)
        let s = Double(sweep_pango_scale)
        return (Double(logical.width) / s, Double(logical.height) / s, Double(logical.y) / s)
    }

    /// Characters of `text` that no installed font can draw (they would show as boxes).
    func unknownGlyphs(_ text: String, font: String, weight: Int) -> Int {
        let layout = makeLayout(text, font: font, pixelSize: 24, weight: weight)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        return Int(pango_layout_get_unknown_glyphs_count(layout))
    }

    /// Draws `text` with its logical top-left at (`x`, `y`).
    func drawText(_ text: String, x: Double, y: Double, font: String, pixelSize: Double, weight: Int, color: RGBA8) {
        let layout = makeLayout(text, font: font, pixelSize: pixelSize, weight: weight)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        setColor(color)
        cairo_move_to(cr, x, y)
        pango_cairo_show_layout(cr, layout)
    }

    private func makeLayout(_ text: String, font: String, pixelSize: Double, weight: Int) -> OpaquePointer {
        let layout = pango_cairo_create_layout(cr)!
        let desc = pango_font_description_from_string(font)!
        defer { pango_font_description_free(desc) }
        pango_font_description_set_weight(desc, PangoWeight(rawValue: UInt32(clamping: max(100, min(1000, weight)))))
        pango_font_description_set_absolute_size(desc, pixelSize * Double(sweep_pango_scale))
        pango_layout_set_font_description(layout, desc)
        pango_layout_set_text(layout, text, -1)
        return layout
    }

    /// The canvas as a premultiplied RGBA sprite.
    func sprite() -> Sprite {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
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
        let data = cairo_image_surface_get_data(surface)!
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let word = UInt32(image.pixels[i + 3]) << 24 | UInt32(image.pixels[i]) << 16 | UInt32(image.pixels[i + 1]) << 8
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
}
