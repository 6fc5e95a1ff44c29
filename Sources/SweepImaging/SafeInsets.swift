/// Margins of the frame the slider's tags and knob stay out of, as shares (0…1) of the
/// frame's height (top, bottom) and width (left, right).
///
/// A platform that draws its own interface over a video (a story's header and reply bar)
/// declares them in its format; a letterboxed image adds its bars, so that a tag never sits
/// on a bar where its dark capsule would vanish.
public struct SafeInsets: Sendable, Equatable, Codable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// No margins.
    public static let zero = SafeInsets()

    /// The larger margin of the two on each side.
    public func union(_ other: SafeInsets) -> SafeInsets {
        SafeInsets(
            top: max(top, other.top), left: max(left, other.left),
            bottom: max(bottom, other.bottom), right: max(right, other.right))
    }
}
