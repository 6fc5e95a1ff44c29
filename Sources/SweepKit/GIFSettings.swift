/// How a GIF is encoded: one quality number, as in gifski, and a palette limit.
public struct GIFSettings: Sendable, Equatable {
    /// Size against fidelity, 1…100 (default 90): it sets the lossy compression, the
    /// dithering, the palette's effort and size together. 100 codes the palette image
    /// losslessly.
    public var quality: Int
    /// The most colours a palette may hold, 2…256 (default 256).
    public var colors: Int

    /// Settings with the given quality and palette limit.
    public init(quality: Int = 90, colors: Int = 256) {
        self.quality = quality
        self.colors = colors
    }
}
