import Foundation

/// The slider's overlay (divider, knob, tags, corners) prepared once for one output size.
///
/// Everything that does not depend on the split position is drawn here, once: the knob at
/// a few sub-pixel phases so that it glides smoothly, and each tag as a finished sprite.
/// Per frame only compositing remains.
package struct SliderOverlay: Sendable {
    /// Sub-pixel phases of the knob along the direction it travels.
    static let phases = 8

    /// Output width in pixels.
    package let width: Int
    /// Output height in pixels.
    package let height: Int
    /// The look being drawn.
    package let style: SliderStyle
    /// Pixels per point.
    package let scale: Double
    let knobs: [Sprite]
    /// Sprite size is odd-free: the knob centre sits at `knobHalf + phase` inside it.
    let knobHalf: Int
    let beforeTag: Sprite?
    let afterTag: Sprite?
    let beforeTagOrigin: (x: Int, y: Int)
    let afterTagOrigin: (x: Int, y: Int)
    let cornerMask: CornerMask?
    /// What was shrunk or left out so that the overlay fits the frame (for the summary).
    package let notes: [String]

    /// How far the split's end positions (0 and 1) lie inside the frame, in pixels: with a
    /// handle, the knob's radius plus a 4 pt margin, so that an animation resting at either
    /// end shows the whole knob with both arrows (never a half knob cut by the frame edge).
    /// Without a handle the split runs edge to edge. At most a quarter of the frame.
    package let endInset: Double
    /// The margins the tags and knob stay out of, in pixels.
    package let insets: (top: Int, left: Int, bottom: Int, right: Int)
    /// The knob's centre across the travel axis, in pixels (the middle of the safe area).
    let acrossCentre: Double

    /// Draws the overlay parts for a `width`×`height` output.
    ///
    /// - Parameters:
    ///   - insets: margins (shares of the frame) that the tags and the knob keep out of: a
    ///     platform's own interface, or letterbox bars.
    ///   - tagInsets: each tag's own margins, when the two pictures are letterboxed
    ///     differently: a tag sits on its own picture (default: `insets` for both).
    /// - Throws: `.internalError` when Cairo or Pango cannot draw (out of memory).
    package init(
        width: Int, height: Int, style: SliderStyle, insets safe: SafeInsets = .zero,
        tagInsets: (before: SafeInsets, after: SafeInsets)? = nil
    ) throws {
        self.width = width
        self.height = height
        self.style = style
        // A style from code may hold any Double: a scale that is not a positive finite number
        // falls back to the default, so no pixel size below becomes NaN or traps in Int().
        let resolved = style.resolvedScale(width: width, height: height)
        let scale = resolved.isFinite && resolved > 0 ? min(resolved, 1000) : Double(min(width, height)) / 390
        self.scale = scale
        let vertical = style.orientation == .vertical
        func pixels(_ s: SafeInsets) -> (top: Int, left: Int, bottom: Int, right: Int) {
            (
                top: Int((s.top * Double(height)).rounded()), left: Int((s.left * Double(width)).rounded()),
                bottom: Int((s.bottom * Double(height)).rounded()), right: Int((s.right * Double(width)).rounded())
            )
        }
        let px = pixels(safe)
        insets = px
        let extent = Double(vertical ? height : width)
        endInset = style.showHandle ? min((style.knobDiameter / 2 + 4) * scale, extent / 4) : 0
        acrossCentre = vertical ? Double(px.left + width - px.right) / 2 : Double(px.top + height - px.bottom) / 2

        var notes: [String] = []
        // Knob: a white disc with a soft shadow and a double arrow, at each phase. Its sprite
        // (disc and shadow) never exceeds the frame: sizes within their ranges (a knob of
        // 1000 pt at ui-scale 20) would otherwise ask for gigabytes of sprites and minutes of
        // blur, or a surface past Cairo's 32767 px, which traps.
        let padPoints = style.shadowRadius * 2 + style.shadowOffset + 1
        let knobScale = min(scale, Double(max(2, min(width, height))) / max(1, style.knobDiameter + 2 * padPoints))
        if style.showHandle && knobScale < scale {
            notes.append("the knob was shrunk to fit the \(width)x\(height) frame")
        }
        let pad = Int(ceil(padPoints * knobScale))
        let half = Int(ceil(style.knobDiameter * knobScale / 2)) + pad + 1
        knobHalf = half
        if style.showHandle {
            // The fixed axis: the knob is centred across the safe area, maybe at a half pixel.
            let acrossFrac = acrossCentre - floor(acrossCentre)
            knobs = try (0..<Self.phases).map { k in
                let along = Double(k) / Double(Self.phases)
                return try Self.drawKnob(
                    style: style, scale: knobScale, half: half,
                    cx: Double(half) + (vertical ? acrossFrac : along),
                    cy: Double(half) + (vertical ? along : acrossFrac))
            }
        } else {
            knobs = []
        }

        // Tags: before at top-leading, after at top-trailing (bottom-leading when vertical).
        let missing = try style.missingLabelCharacters()
        if style.showLabels, (style.beforeLabel + style.afterLabel).unicodeScalars.contains("\u{FFFD}") {
            // Bytes that are not UTF-8 reach Swift as U+FFFD: say so rather than draw a mystery sign.
            notes.append(
                "a label holds bytes that are not UTF-8 (or U+FFFD itself), drawn as \u{FFFD}; give the label as UTF-8 text")
        }
        if !missing.isEmpty {
            let named = missing.prefix(8).map { c in
                "\(c) (" + c.unicodeScalars.map { String(format: "U+%04X", $0.value) }.joined(separator: " ") + ")"
            }
            notes.append(
                "no installed font draws \(named.joined(separator: ", ")) in the labels, so \(missing.count == 1 ? "it shows" : "they show") as a box; install a font that has \(missing.count == 1 ? "it" : "them") (fonts-noto-core, fonts-noto-cjk, fonts-noto-color-emoji)"
            )
        }
        if style.showLabels {
            // A tag fits inside the safe area (less its inset), or is shrunk until it does.
            let insetPixels = style.labelInset * scale
            let inset = insetPixels.isFinite ? Int(max(0, min(insetPixels, Double(min(width, height) / 8))).rounded()) : 0
            let (bp, ap) = tagInsets.map { (pixels($0.before), pixels($0.after)) } ?? (px, px)
            func room(_ p: (top: Int, left: Int, bottom: Int, right: Int)) -> (width: Int, height: Int) {
                (width: max(1, width - p.left - p.right - 2 * inset), height: max(1, height - p.top - p.bottom - 2 * inset))
            }
            let b = try Self.drawTag(style.beforeLabel, style: style, scale: scale, room: room(bp), notes: &notes)
            let a = try Self.drawTag(style.afterLabel, style: style, scale: scale, room: room(ap), notes: &notes)
            let rtl = style.rightToLeft
            let leading = { (s: Sprite, p: (top: Int, left: Int, bottom: Int, right: Int)) in
                rtl ? width - p.right - inset - s.width : p.left + inset
            }
            let trailing = { (s: Sprite, p: (top: Int, left: Int, bottom: Int, right: Int)) in
                rtl ? p.left + inset : width - p.right - inset - s.width
            }
            beforeTag = b
            afterTag = a
            beforeTagOrigin = (b.map { leading($0, bp) } ?? 0, bp.top + inset)
            if vertical {
                afterTagOrigin = (a.map { leading($0, ap) } ?? 0, height - ap.bottom - inset - (a?.height ?? 0))
            } else {
                afterTagOrigin = (a.map { trailing($0, ap) } ?? 0, ap.top + inset)
            }
        } else {
            beforeTag = nil; afterTag = nil
            beforeTagOrigin = (0, 0); afterTagOrigin = (0, 0)
        }
        cornerMask =
            style.cornerRadius > 0
            ? CornerMask(radius: style.cornerRadius * scale, width: width, height: height) : nil
        self.notes = notes
    }

    static func drawKnob(style: SliderStyle, scale: Double, half: Int, cx: Double, cy: Double) throws -> Sprite {
        let side = half * 2
        let canvas = try CairoCanvas(width: side, height: side)
        let r = style.knobDiameter * scale / 2
        // Shadow: the disc's coverage, blurred (σ = radius / 2), offset down.
        if style.shadowColor.a > 0 {
            let disc = try CairoCanvas(width: side, height: side)
            disc.setColor(.white)
            disc.circle(cx: cx, cy: cy + style.shadowOffset * scale, radius: r)
            var mask = disc.sprite().pixels.enumerated().compactMap { $0.offset % 4 == 3 ? $0.element : nil }
            GaussianBlur.blur(&mask, width: side, height: side, sigma: style.shadowRadius * scale / 2)
            try canvas.paint(style.shadowColor, mask: mask)
        }
        canvas.setColor(style.knobColor)
        canvas.circle(cx: cx, cy: cy, radius: r)
        drawArrow(on: canvas, style: style, scale: scale, cx: cx, cy: cy)
        return canvas.sprite()
    }

    /// A bold double-headed arrow across the travel direction, about 17 pt wide.
    static func drawArrow(on canvas: borrowing CairoCanvas, style: SliderStyle, scale: Double, cx: Double, cy: Double) {
        let s = style.glyphSize / 17 * scale
        let halfLen = 9.5 * s, head = 5.0 * s
        canvas.setColor(style.glyphColor)
        canvas.withSavedState {
            canvas.translate(x: cx, y: cy)
            if style.orientation == .vertical { canvas.rotate(radians: Double.pi / 2) }
            // One path so that the translucent strokes do not double up where they meet.
            canvas.move(toX: -halfLen + head, y: -head); canvas.line(toX: -halfLen, y: 0); canvas.line(toX: -halfLen + head, y: head)
            canvas.move(toX: -halfLen, y: 0); canvas.line(toX: halfLen, y: 0)
            canvas.move(toX: halfLen - head, y: -head); canvas.line(toX: halfLen, y: 0); canvas.line(toX: halfLen - head, y: head)
            canvas.stroke(width: 2.4 * s, cap: .round, join: .round)
        }
    }

    /// The smallest text a shrunk tag keeps, in pixels; below it the tag is left out.
    static let minimumTagPixels = 4.0

    /// A tag's sprite, no larger than `room`: a label too long or too large for the frame is
    /// shrunk to fit (and said so in `notes`), or left out when it would become unreadable.
    static func drawTag(
        _ text: String, style: SliderStyle, scale: Double, room: (width: Int, height: Int),
        notes: inout [String]
    ) throws -> Sprite? {
        if text.isEmpty { return nil }
        let probe = try CairoCanvas(width: 1, height: 1)
        var scale = scale
        var px = style.labelSize * scale
        guard px > 0, px.isFinite else { return nil }
        // A tag too small to read in the first place (a tiny frame at the default scale) is
        // drawn at its own size, only clipped to the room, without a note: shrinking it would
        // not make it readable.
        let tiny = px < minimumTagPixels
        // A first guess from a modest size, scaled: laying out text thousands of pixels tall
        // takes Pango minutes, and only a size that fits the frame is ever drawn.
        let guessPx = min(px, 64)
        let guess = try probe.textSize(text, font: style.labelFont, pixelSize: guessPx, weight: style.labelWeight)
        let k = px / guessPx
        var size = (w: guess.w * k, h: guess.h * k, y: guess.y * k)
        func extent() -> (w: Double, h: Double) {
            (size.w + 2 * style.labelPaddingX * scale, size.h + 2 * style.labelPaddingY * scale)
        }
        var shrunk = false
        if px > guessPx {
            let e = extent()
            let f = min(Double(room.width) / max(1, e.w), Double(room.height) / max(1, e.h))
            if f < 1, f.isFinite {
                shrunk = true
                scale *= f * 0.98
                px = style.labelSize * scale
            }
        }
        if tiny || !shrunk || px >= minimumTagPixels {
            size = try probe.textSize(text, font: style.labelFont, pixelSize: px, weight: style.labelWeight)
        }
        // Text does not scale exactly with its size (hinting), so shrink a few times.
        for _ in 0..<4 where !tiny && (!shrunk || px >= minimumTagPixels) {
            let e = extent()
            let f = min(Double(room.width) / max(1, e.w), Double(room.height) / max(1, e.h))
            guard f < 1, f.isFinite else { break }
            shrunk = true
            scale *= f * 0.98
            px = style.labelSize * scale
            size = try probe.textSize(text, font: style.labelFont, pixelSize: px, weight: style.labelWeight)
        }
        let label = text.count > 24 ? String(text.prefix(24)) + "…" : text
        var e = extent()
        if tiny { e = (min(e.w, Double(room.width)), min(e.h, Double(room.height))) }
        // Only a tag that had to shrink may become unreadable; a tiny frame's own small tag is
        // drawn at its own size.
        guard !shrunk || px >= minimumTagPixels, e.w <= Double(room.width), e.h <= Double(room.height) else {
            notes.append("the label \"\(label)\" does not fit the frame and was left out")
            return nil
        }
        if shrunk { notes.append("the label \"\(label)\" was shrunk to fit the frame") }
        let w = max(1, Int(ceil(e.w)))
        let h = max(1, Int(ceil(e.h)))
        let canvas = try CairoCanvas(width: w, height: h)
        canvas.setColor(style.capsuleColor)
        canvas.roundedRect(x: 0, y: 0, w: Double(w), h: Double(h), r: Double(h) / 2)
        try canvas.drawText(
            text, x: (Double(w) - size.w) / 2, y: (Double(h) - size.h) / 2 - size.y,
            font: style.labelFont, pixelSize: px, weight: style.labelWeight, color: style.labelColor)
        return canvas.sprite()
    }

    /// Where the split falls along the travel axis, in pixels from the top-left, and which
    /// image lies before that edge. Positions 0 and 1 lie ``endInset`` inside the frame.
    package func splitEdge(position p: Double) -> (edge: Double, beforeFirst: Bool) {
        let p = max(0, min(1, p))
        let extent = Double(style.orientation == .vertical ? height : width)
        let along = { (q: Double) in self.endInset + (extent - 2 * self.endInset) * q }
        switch (style.orientation, style.rightToLeft) {
        case (.vertical, _): return (along(p), true)
        case (.horizontal, false): return (along(p), true)
        case (.horizontal, true): return (along(1 - p), false)
        }
    }

    /// Where everything goes at split position `p`; `tagOpacity` scales both tags.
    package func layout(position p: Double, tagOpacity: Double = 1) -> OverlayLayout {
        var (edge, beforeFirst) = splitEdge(position: p)
        if !style.smoothEdge { edge = edge.rounded() }
        let vertical = style.orientation == .vertical
        let extent = vertical ? height : width
        let whole = max(0, min(extent, Int(edge.rounded(.down))))
        let coverage = whole < extent ? Int(((edge - Double(whole)) * 256).rounded()) : 0
        var divider: ClosedRange<Double>?
        var knob: (phase: Int, x: Int, y: Int)?
        if style.showHandle {
            let half = style.dividerWidth * scale / 2
            divider = (edge - half)...(edge + half)
            // The knob is pre-drawn at `phases` sub-pixel offsets: pick the one at or below.
            let scaled = Int((edge * Double(Self.phases)).rounded(.down))
            let pixel = scaled >= 0 ? scaled / Self.phases : (scaled - Self.phases + 1) / Self.phases
            let across = Int(acrossCentre.rounded(.down))
            let (x, y) = vertical ? (across - knobHalf, pixel - knobHalf) : (pixel - knobHalf, across - knobHalf)
            knob = (scaled - pixel * Self.phases, x, y)
        }
        let q = max(0, min(1, p))
        let tags = style.showLabels ? max(0, min(1, tagOpacity)) : 0
        return OverlayLayout(
            edge: edge, beforeFirst: beforeFirst, vertical: vertical, wholeLines: whole,
            edgeCoverage: coverage, divider: divider, knob: knob,
            beforeTagOpacity: min(q / 0.25, 1) * tags, afterTagOpacity: min((1 - q) / 0.25, 1) * tags)
    }

    /// The overlay over a reduced-motion dissolve from split position `a` to `b`: one
    /// handle at full strength, never two half-transparent ones. It rests where the picture
    /// mostly is (at `a` until half-way, then at `b`: an instant change, as reduced motion
    /// asks), while the tags cross-fade with the pictures.
    package func dissolveLayout(from a: Double, to b: Double, fraction f: Double) -> OverlayLayout {
        let f = max(0, min(1, f))
        let start = layout(position: a), end = layout(position: b)
        let handle = f < 0.5 ? start : end
        return OverlayLayout(
            edge: handle.edge, beforeFirst: handle.beforeFirst, vertical: handle.vertical,
            wholeLines: handle.wholeLines, edgeCoverage: handle.edgeCoverage, divider: handle.divider,
            knob: handle.knob,
            beforeTagOpacity: start.beforeTagOpacity * (1 - f) + end.beforeTagOpacity * f,
            afterTagOpacity: start.afterTagOpacity * (1 - f) + end.afterTagOpacity * f)
    }

    /// Draws divider, knob and tags for split position `p` onto an opaque frame,
    /// then cuts the rounded corners.
    package func draw(on frame: inout RGBAImage, position p: Double, tagOpacity: Double = 1) {
        draw(on: &frame, layout: layout(position: p, tagOpacity: tagOpacity))
    }

    /// Draws a computed layout (e.g. ``dissolveLayout(from:to:fraction:)``) onto an opaque
    /// frame, then cuts the rounded corners.
    package func draw(on frame: inout RGBAImage, layout: OverlayLayout) {
        let (w, h) = (frame.width, frame.height)
        frame.pixels.withUnsafeMutableBufferPointer { dp in
            let d = UnsafeSendablePointer(dp.baseAddress!)
            parallelRows(h, minimumRowsPerBand: 32) { rows in
                paint(layout, on: d.base, width: w, height: h, rows: rows)
            }
        }
    }

    /// Paints `layout` on raw RGBA frame pixels, for frame rows in `rows` only (one band).
    func paint(
        _ layout: OverlayLayout, on frame: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int,
        rows: Range<Int>
    ) {
        paint(layout, with: RGBAPainter(overlay: self, frame: frame, width: w, height: h), rows: rows)
    }

    /// The overlay's elements on RGBA pixels.
    struct RGBAPainter: OverlayPainter {
        let overlay: SliderOverlay
        let frame: UnsafeMutablePointer<UInt8>
        let width: Int
        let height: Int

        func paintDivider(_ layout: OverlayLayout, rows: Range<Int>) {
            overlay.paintDivider(layout, on: frame, width: width, height: height, rows: rows)
        }

        func paint(_ sprite: SliderOverlay.Element, x: Int, y: Int, opacity: Double, rows: Range<Int>) {
            let picked: SweepImaging.Sprite? =
                switch sprite {
                case let .knob(phase): overlay.knobs[phase]
                case .beforeTag: overlay.beforeTag
                case .afterTag: overlay.afterTag
                }
            picked?.draw(into: frame, width: width, height: height, x: x, y: y, opacity: opacity, rows: rows)
        }

        func paintCorners(_ mask: CornerMask, rows: Range<Int>) {
            mask.apply(to: frame, width: width, height: height, background: overlay.style.background, rows: rows)
        }
    }

    /// The divider: `dividerWidth` points centred on the edge, anti-aliased by coverage.
    func paintDivider(
        _ layout: OverlayLayout, on base: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int,
        rows: Range<Int>
    ) {
        guard let lines = layout.dividerLines(extent: layout.vertical ? h : w) else { return }
        let c = style.dividerColor
        let cr = Int(c.r), cg = Int(c.g), cb = Int(c.b)
        @inline(__always) func blend(_ q: UnsafeMutablePointer<UInt8>, _ a: Int) {
            let inv = 255 &- a
            q[0] = UInt8(truncatingIfNeeded: ((cr &* a &+ Int(q[0]) &* inv) &* 257 &+ 32896) >> 16)
            q[1] = UInt8(truncatingIfNeeded: ((cg &* a &+ Int(q[1]) &* inv) &* 257 &+ 32896) >> 16)
            q[2] = UInt8(truncatingIfNeeded: ((cb &* a &+ Int(q[2]) &* inv) &* 257 &+ 32896) >> 16)
        }
        for i in lines {
            let a = Int((layout.dividerCoverage(i) * Double(c.a)).rounded())
            if a <= 0 { continue }
            if layout.vertical {
                guard rows.contains(i) else { continue }
                var q = base + i * w * 4
                for _ in 0..<w { blend(q, a); q += 4 }
            } else {
                for j in rows { blend(base + (j * w + i) * 4, a) }
            }
        }
    }
}
