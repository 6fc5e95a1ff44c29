/// GIF frame delays in centiseconds.
package enum GIFTiming {
    /// The fastest frame rate a GIF plays at its true speed: one frame per 2 cs.
    package static let maxFPS = 50.0

    /// The rate a cross-fade's frames change at in a GIF (a reduced-motion dissolve): every
    /// pixel changes in every frame of a fade, the format's worst case, so its frames are
    /// held longer. At 10 fps a 3 s fade takes 30 steps, where 30 fps gave it 90.
    package static let fadeFPS = 10.0

    /// Delays for `count` frames at `fps`, rounded cumulatively so that the total time
    /// stays exact (30 fps → 3, 3, 4, …), and never below 2 cs, which browsers would
    /// stretch to 10 cs.
    package static func delays(count: Int, fps: Double) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(count)
        var shown = 0
        for i in 0..<count {
            // The small epsilon keeps 10.0 from being computed as 9.999…
            let end = Int((Double(i + 1) * 100 / fps + 1e-9).rounded(.down))
            let d = max(2, end - shown)
            out.append(d)
            shown += d
        }
        return out
    }
}
