/// How one pixel format paints the overlay's elements (RGBA frames, Y′CbCr 4:2:0 planes).
/// The order they go on in, and where, is ``SliderOverlay/paint(_:with:rows:)``'s alone, so
/// that a new element is added once and the formats cannot diverge.
protocol OverlayPainter {
    /// The divider of `layout`, for frame rows in `rows`.
    func paintDivider(_ layout: OverlayLayout, rows: Range<Int>)
    /// `sprite` with its top-left corner at (`x`, `y`), at `opacity`, for rows in `rows`.
    func paint(_ sprite: SliderOverlay.Element, x: Int, y: Int, opacity: Double, rows: Range<Int>)
    /// The rounded corners cut to the background, for rows in `rows`.
    func paintCorners(_ mask: CornerMask, rows: Range<Int>)
}

extension SliderOverlay {
    /// One of the overlay's pre-drawn sprites.
    enum Element { case knob(phase: Int), beforeTag, afterTag }

    /// Paints `layout` through `painter` for frame rows in `rows` (one band): the divider,
    /// the knob, the tags, then the corners cut over all of them.
    func paint(_ layout: OverlayLayout, with painter: some OverlayPainter, rows: Range<Int>) {
        if layout.divider != nil { painter.paintDivider(layout, rows: rows) }
        if let knob = layout.knob { painter.paint(.knob(phase: knob.phase), x: knob.x, y: knob.y, opacity: 1, rows: rows) }
        if beforeTag != nil {
            painter.paint(.beforeTag, x: beforeTagOrigin.x, y: beforeTagOrigin.y, opacity: layout.beforeTagOpacity, rows: rows)
        }
        if afterTag != nil {
            painter.paint(.afterTag, x: afterTagOrigin.x, y: afterTagOrigin.y, opacity: layout.afterTagOpacity, rows: rows)
        }
        if let cornerMask { painter.paintCorners(cornerMask, rows: rows) }
    }
}
