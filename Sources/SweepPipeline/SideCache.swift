import SweepImaging

/// One side's pixels under a look. A look held for two frames in a row is applied once and
/// kept; a look that changes every frame is applied on the fly while compositing, to the
/// visible pixels only.
struct SideCache {
    let base: RGBAImage
    private var cached: (look: Adjustments, image: RGBAImage)?
    private var previous: Adjustments?

    init(base: RGBAImage) { self.base = base }

    mutating func side(for look: Adjustments) -> (RGBAImage, FixedColorMatrix?) {
        defer { previous = look }
        if look.isIdentity { return (base, nil) }
        if let c = cached, c.look == look { return (c.image, nil) }
        if look == previous {
            let img = look.apply(to: base)
            cached = (look, img)
            return (img, nil)
        }
        return (base, look.matrix.fixed)
    }
}
