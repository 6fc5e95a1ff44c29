/// Where a picture of one size lands in a frame of another under a ``FitMode``: the part of
/// the source that is shown and the rectangle of the frame it covers.
///
/// Stills (``Resampler``) and video frames (scaled by swscale) use the same placement, so a
/// clip and a photo of one shape are framed alike.
package struct FitPlacement: Sendable, Equatable {
    /// The shown part of the source: x, y, width, height in source pixels (fractional).
    package let source: (x: Double, y: Double, width: Double, height: Double)
    /// The covered part of the frame: x, y, width, height in frame pixels.
    package let destination: (x: Int, y: Int, width: Int, height: Int)

    /// The placement of a `sourceWidth × sourceHeight` picture in a `width × height` frame.
    package init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int, mode: FitMode) {
        let sw = Double(sourceWidth), sh = Double(sourceHeight)
        let ow = Double(width), oh = Double(height)
        switch mode {
        case .stretch:
            source = (0, 0, sw, sh)
            destination = (0, 0, width, height)
        case .fill:
            // Cover the frame; the overflow is cropped evenly from both ends.
            let s = max(ow / sw, oh / sh)
            let cw = ow / s, ch = oh / s
            source = ((sw - cw) / 2, (sh - ch) / 2, cw, ch)
            destination = (0, 0, width, height)
        case .fit:
            let s = min(ow / sw, oh / sh)
            let dw = max(1, min(width, Int((sw * s).rounded())))
            let dh = max(1, min(height, Int((sh * s).rounded())))
            source = (0, 0, sw, sh)
            destination = ((width - dw) / 2, (height - dh) / 2, dw, dh)
        }
    }

    /// The frame is covered whole: no letterbox bars to fill with the background.
    package var coversFrame: Bool { destination.x == 0 && destination.y == 0 }

    package static func == (a: FitPlacement, b: FitPlacement) -> Bool {
        a.source == b.source && a.destination == b.destination
    }
}
