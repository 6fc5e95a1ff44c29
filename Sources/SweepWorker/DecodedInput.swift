import SweepImaging
import SweepMedia

/// What a decode worker found in a file: the picture, or a clip for the caller to open.
package enum DecodedInput: Sendable {
    case image(RGBAImage)
    case clip(MediaProbe.Kind)
}
