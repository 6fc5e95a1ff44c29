import Foundation

/// Draws an animation plan: one lane per animated value, its eased curve over time with
/// the keyframes marked, above a storyboard strip of evenly spaced frames.
package enum PlanChart {
    /// One animated value.
    package struct Series: Sendable {
        /// The lane label.
        package var name: String
        /// (time, value) samples, dense enough to show the easing.
        package var samples: [(Double, Double)]
        /// Keyframe times and values.
        package var keyframes: [(Double, Double)]
        /// A lane from its samples and keyframes.
        package init(name: String, samples: [(Double, Double)], keyframes: [(Double, Double)]) {
            self.name = name
            self.samples = samples
            self.keyframes = keyframes
        }
    }

    static let palette: [RGBA8] = [
        RGBA8(r: 0, g: 122, b: 255), RGBA8(r: 255, g: 59, b: 48), RGBA8(r: 52, g: 199, b: 89),
        RGBA8(r: 255, g: 149, b: 0), RGBA8(r: 175, g: 82, b: 222), RGBA8(r: 90, g: 200, b: 250),
    ]

    /// The plan picture, `width` pixels wide.
    package static func draw(
        title: String, duration: Double, series: [Series],
        storyboard: [(time: Double, image: RGBAImage)], width: Int = 1200
    ) throws -> RGBAImage {
        let margin = 24.0, labelW = 150.0, laneH = 90.0, gap = 14.0
        let thumbs = storyboard.count
        let thumbW = thumbs > 0 ? (Double(width) - 2 * margin - Double(thumbs - 1) * 8) / Double(thumbs) : 0
        let thumbH = thumbs > 0 ? thumbW * Double(storyboard[0].image.height) / Double(storyboard[0].image.width) : 0
        let chartTop = 64.0
        let lanesH = Double(series.count) * (laneH + gap)
        let height = Int(chartTop + lanesH + 30 + (thumbs > 0 ? thumbH + 40 : 0) + margin)
        let canvas = try CairoCanvas(width: width, height: height)
        canvas.setColor(.white)
        canvas.paint()
        let font = "Sans"
        try canvas.drawText(title, x: margin, y: 18, font: font, pixelSize: 22, weight: 700, color: RGBA8(r: 20, g: 20, b: 20))
        let x0 = margin + labelW, x1 = Double(width) - margin
        func tx(_ t: Double) -> Double { x0 + (x1 - x0) * t / max(duration, 1e-9) }
        for (k, s) in series.enumerated() {
            let top = chartTop + Double(k) * (laneH + gap)
            let values = s.samples.map(\.1) + s.keyframes.map(\.1)
            var lo = values.min() ?? 0, hi = values.max() ?? 1
            if hi - lo < 1e-9 { lo -= 0.5; hi += 0.5 }
            let pad = (hi - lo) * 0.08
            lo -= pad; hi += pad
            func vy(_ v: Double) -> Double { top + laneH - (v - lo) / (hi - lo) * laneH }
            canvas.setColor(RGBA8(r: 246, g: 246, b: 248))
            canvas.rectangle(x: x0, y: top, w: x1 - x0, h: laneH); canvas.fill()
            try canvas.drawText(
                s.name, x: margin, y: top + laneH / 2 - 10, font: font, pixelSize: 15, weight: 600,
                color: RGBA8(r: 40, g: 40, b: 40))
            let fmt = { (v: Double) in String(format: abs(v) >= 10 ? "%.0f" : "%.2f", v) }
            try canvas.drawText(
                fmt(hi - pad), x: margin, y: top - 2, font: font, pixelSize: 11, weight: 400, color: RGBA8(r: 120, g: 120, b: 120))
            try canvas.drawText(
                fmt(lo + pad), x: margin, y: top + laneH - 14, font: font, pixelSize: 11, weight: 400, color: RGBA8(r: 120, g: 120, b: 120))
            let color = palette[k % palette.count]
            canvas.setColor(color)
            canvas.newPath()
            for (i, (t, v)) in s.samples.enumerated() {
                if i == 0 { canvas.move(toX: tx(t), y: vy(v)) } else { canvas.line(toX: tx(t), y: vy(v)) }
            }
            canvas.stroke(width: 2.5)
            for (t, v) in s.keyframes {
                canvas.setColor(.white)
                canvas.circle(cx: tx(t), cy: vy(v), radius: 5.5)
                canvas.setColor(color)
                canvas.circle(cx: tx(t), cy: vy(v), radius: 3.5)
            }
        }
        // Time axis.
        let axisY = chartTop + lanesH
        canvas.setColor(RGBA8(r: 120, g: 120, b: 120))
        let step = duration > 8 ? 2.0 : (duration > 3 ? 1.0 : 0.5)
        var t = 0.0
        while t <= duration + 1e-9 {
            canvas.rectangle(x: tx(t) - 0.5, y: axisY - 6, w: 1, h: 6); canvas.fill()
            try canvas.drawText(
                String(format: "%.1f s", t), x: tx(t) - 14, y: axisY, font: font, pixelSize: 12, weight: 400,
                color: RGBA8(r: 100, g: 100, b: 100))
            t += step
        }
        // Storyboard.
        let stripTop = axisY + 30
        for (i, shot) in storyboard.enumerated() {
            let x = margin + Double(i) * (thumbW + 8)
            let small = Resampler.resize(shot.image, width: max(1, Int(thumbW)), height: max(1, Int(thumbH)), mode: .stretch)
            let sprite = Sprite(width: small.width, height: small.height, pixels: small.pixels)
            var img = canvas.image(over: .white)
            sprite.draw(into: &img, x: Int(x), y: Int(stripTop))
            canvas.load(img)
            try canvas.drawText(
                String(format: "%.2f s", shot.time), x: x, y: stripTop + thumbH + 6, font: font, pixelSize: 12,
                weight: 400, color: RGBA8(r: 80, g: 80, b: 80))
        }
        return canvas.image(over: .white)
    }
}
