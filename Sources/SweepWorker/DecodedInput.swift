import SweepImaging
import SweepMedia

/// What a decode worker found in a file: the picture, or a clip for the caller to open.
package enum DecodedInput: Sendable {
    /// A still, resized when the request gave a ``StillTarget``; `source` is its size as decoded.
    case image(RGBAImage, source: (width: Int, height: Int))
    case clip(MediaProbe.Kind)
}
