/// An output's size in pixels: both sides, or one side with the other from the before
/// image's aspect ratio.
public enum OutputSize: Sendable, Equatable {
    /// Exactly `width`×`height`; an image of another shape is fitted by ``Comparison/fit``.
    case exact(width: Int, height: Int)
    /// `width` pixels wide, as tall as the before image's aspect ratio makes it.
    case width(Int)
    /// `height` pixels tall, as wide as the before image's aspect ratio makes it.
    case height(Int)
}
