import SweepImaging

/// Which palette colours the frames after the first use together, and from that the order of
/// the file's global table that keeps as many of those frames' indices small as it can.
///
/// A frame coded with the global table needs codes as wide as its largest index: a strip of
/// a wipe that uses 16 colours codes with 4-bit symbols if those 16 come first in the table,
/// with 8-bit ones if one of them comes last, and then may rather carry a table of its own.
/// A colour order serves a frame only if all of that frame's colours come early, so colours
/// are placed from the end of the table: each time, the one the fewest frames still served
/// need goes last, and every frame that needs it stops counting, since its largest index is
/// now that late anyway (the order gifsicle's optimizer gives its global colormap). What the
/// frames use is read off the samples before any frame is coded: the pixels that change from
/// one sample to the next, cut into bands as wide as a frame's share of that change.
package struct ColorUsage: Sendable, Equatable {
    /// Per band (a frame, as the samples show it), the palette indices it needs. Empty:
    /// nothing is known.
    package let bands: [[UInt8]]

    /// No usage known: the table is ordered by lightness alone.
    package static let unknown = ColorUsage(bands: [])

    /// From a change covering this share of the picture or more, every frame rewrites nearly
    /// every colour (a look easing over the whole picture), and no order serves it.
    static let wholeShare = 0.5

    /// The most colours a band may need for an order to give it codes narrower than 8 bits
    /// (index 0 being the transparent one).
    static let narrowest = 127

    init(bands: [[UInt8]]) { self.bands = bands }

    /// The usage of `palette`'s colours by the frames between `samples` (frames `step`
    /// apart): each change from one sample to the next is cut across its longer side into
    /// bands as wide as one frame's share of it (a wipe's strips), and each band is taken as
    /// a frame that needs the nearest entries of its changed pixels.
    package init(samples: [RGBAImage], step: Int, palette: GIFPalette) {
        let mapper = PaletteMapper(palette: palette)
        var bands: [[UInt8]] = []
        for (a, b) in zip(samples, samples.dropFirst()) {
            bands += Self.bands(from: a, to: b, step: max(1, step), mapper: mapper)
            // Most bands needing over 127 colours (a photo's strips) need 8-bit codes in any
            // order, and mapping every changed pixel would cost such a render 2 %.
            if bands.count >= 8 && bands.map(\.count).sorted()[bands.count / 2] > Self.narrowest {
                bands = []
                break
            }
        }
        self.init(bands: bands)
    }

    /// The colours (palette indices) each band of the change from `a` to `b` needs.
    private static func bands(from a: RGBAImage, to b: RGBAImage, step: Int, mapper: PaletteMapper) -> [[UInt8]] {
        guard a.width == b.width, a.height == b.height else { return [] }
        let w = a.width, h = a.height
        var changed = [Bool](repeating: false, count: w * h)
        let (rect, count) = FrameChanges.diff(a.pixels, b.pixels, width: w, height: h, marks: &changed)
        guard count > 0, Double(count) < wholeShare * Double(w * h) else { return [] }
        // A change taller than wide is written in columns (a wipe across), one wider than
        // tall in rows.
        let across = rect.height >= rect.width
        let extent = across ? rect.width : rect.height
        let width = max(1, (extent + step - 1) / step)
        var used = [[Bool]](repeating: [Bool](repeating: false, count: 256), count: (extent + width - 1) / width)
        b.pixels.withUnsafeBufferPointer { pb in
            for y in rect.y..<(rect.y + rect.height) {
                for x in rect.x..<(rect.x + rect.width) where changed[y * w + x] {
                    let o = (y * w + x) * 4
                    let k = mapper.index(Int(pb[o]), Int(pb[o + 1]), Int(pb[o + 2]))
                    used[(across ? x - rect.x : y - rect.y) / width][k] = true
                }
            }
        }
        return used.compactMap { u in
            let colors = u.indices.filter { u[$0] }.map(UInt8.init)
            return colors.isEmpty ? nil : colors
        }
    }

    /// Each of `n` colours' place among those the bands need (0 first; nil for a colour no
    /// band needs): the colour the fewest bands still counted need goes last, and the bands
    /// that need it stop counting. Of equally needed colours the one `before` puts later goes
    /// later (`before`: each colour's place in a fallback order, such as lightness).
    func ranks(colors n: Int, before: [Int]) -> [Int?] {
        var need = [Int](repeating: 0, count: n)
        var bandsOf = [[Int]](repeating: [], count: n)
        for (i, band) in bands.enumerated() {
            for c in band where Int(c) < n {
                need[Int(c)] += 1
                bandsOf[Int(c)].append(i)
            }
        }
        var counted = [Bool](repeating: true, count: bands.count)
        var left = (0..<n).filter { need[$0] > 0 }
        var ranks = [Int?](repeating: nil, count: n)
        while !left.isEmpty {
            var pick = 0
            for i in left.indices.dropFirst() {
                let (c, p) = (left[i], left[pick])
                if need[c] < need[p] || (need[c] == need[p] && before[c] > before[p]) { pick = i }
            }
            let c = left.remove(at: pick)
            ranks[c] = left.count
            for band in bandsOf[c] where counted[band] {
                counted[band] = false
                for other in bands[band] where Int(other) < n { need[Int(other)] -= 1 }
            }
        }
        return ranks
    }
}
