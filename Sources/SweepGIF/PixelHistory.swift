/// What each pixel showed for the last few source colours it had, so that a pixel whose
/// source comes back to one of them shows exactly what it showed then.
///
/// A split that moves back over the "before" picture gives its pixels their first-frame
/// colours again. Quantized afresh, in a band of their own, they would be dithered from
/// other starting errors, coded with other lossy choices, or mapped to a band's own table,
/// and the picture would come back as a patchwork of slightly different blocks (the demo's
/// grey sky). Recalled, it comes back as it was. Memory: `1 + 2 × depth` words a pixel.
struct PixelHistory {
    /// Remembered source colours per pixel besides the current one (the line passing
    /// between two pictures is one more colour, a knob's rim another).
    static let depth = 4
    /// The source colour (`0xFF000000 | RGB`) whose quantized colour each pixel shows now;
    /// 0 where it shows nothing or a transparent source.
    private var current: [UInt32]
    /// `depth` earlier source colours per pixel, most recent first (0 = none) ...
    private var sources: [UInt32]
    /// ... and what the pixel showed for each (`0xFF000000 | RGB`).
    private var shown: [UInt32]

    init(count: Int) {
        current = [UInt32](repeating: 0, count: count)
        sources = [UInt32](repeating: 0, count: count * Self.depth)
        shown = sources
    }

    /// The key of an RGBA source pixel: `0xFF000000 | RGB`, or 0 for a transparent one
    /// (alpha below 128), which is never recalled.
    @inline(__always)
    static func key(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8) -> UInt32 {
        a < 128 ? 0 : 0xFF00_0000 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
    }

    /// What pixel `p` showed when its source was `key` (`0xFF000000 | RGB`), or 0.
    @inline(__always)
    func recall(_ p: Int, _ key: UInt32) -> UInt32 {
        guard key != 0 else { return 0 }
        let base = p * Self.depth
        for j in base..<(base + Self.depth) where sources[j] == key { return shown[j] }
        return 0
    }

    /// Pixel `p` takes the source colour `key`, leaving what it shows now, `leaving`
    /// (`0xFF000000 | RGB`, 0 for nothing), for its current source to be recalled later.
    @inline(__always)
    mutating func move(_ p: Int, to key: UInt32, leaving: UInt32) {
        let old = current[p]
        current[p] = key
        guard old != 0, old != key, leaving != 0 else { return }
        let base = p * Self.depth
        // Most recent first: the old colour moves to the front, dropping its older entry
        // or, failing one, the oldest.
        var end = base + Self.depth - 1
        for j in base..<(base + Self.depth) where sources[j] == old {
            end = j
            break
        }
        var j = end
        while j > base {
            sources[j] = sources[j - 1]
            shown[j] = shown[j - 1]
            j -= 1
        }
        sources[base] = old
        shown[base] = leaving
    }
}
