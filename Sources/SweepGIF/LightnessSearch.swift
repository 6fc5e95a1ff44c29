/// Nearest-colour search among OkLab colours sorted by lightness.
///
/// Building a palette assigns every histogram point to its nearest centroid in each k-means
/// pass, and a brute-force search over 256 centroids would be most of a GIF's palette time. Sorted
/// by lightness, the search starts at the point's own lightness and walks outwards, stopping
/// on each side once the lightness difference alone is farther than the best match. It finds
/// the same entry as a full scan, ties included (the lowest index wins).
struct LightnessSearch {
    /// The colours' indices, by lightness.
    private let order: [Int]
    /// The colours in that order.
    private let sorted: [OkLab]

    init(_ colors: [OkLab]) {
        order = colors.indices.sorted { (colors[$0].l, $0) < (colors[$1].l, $1) }
        sorted = order.map { colors[$0] }
    }

    /// The index (into the colours given) of the colour nearest to `p`, or 0 when there are none.
    func nearest(_ p: OkLab) -> Int {
        let n = sorted.count
        guard n > 0 else { return 0 }
        var lo = 0, hi = n
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid].l < p.l { lo = mid + 1 } else { hi = mid }
        }
        var best = Int.max, bestD = Float.infinity
        var down = lo - 1, up = lo
        let w = OkLab.lightnessWeight
        // Equal distances must still be visited (a lower index wins a tie), hence `<=`.
        while true {
            var moved = false
            if down >= 0 {
                let c = sorted[down], dl = p.l - c.l
                if w * dl * dl <= bestD {
                    let d = p.distance2(c)
                    if d < bestD || (d == bestD && order[down] < best) { (best, bestD) = (order[down], d) }
                    down -= 1
                    moved = true
                } else {
                    down = -1
                }
            }
            if up < n {
                let c = sorted[up], dl = c.l - p.l
                if w * dl * dl <= bestD {
                    let d = p.distance2(c)
                    if d < bestD || (d == bestD && order[up] < best) { (best, bestD) = (order[up], d) }
                    up += 1
                    moved = true
                } else {
                    up = n
                }
            }
            if !moved { break }
        }
        return best == Int.max ? 0 : best
    }
}
