import SweepMedia
import SweepPipeline

/// A render's time estimated before it runs: frames × pixels × the codec's seconds per pixel,
/// so that a request whose render would hold a place for hours is refused at the POST (413)
/// instead of accepted. An estimate, not a bound: ``RenderQueue`` stops a render that runs
/// past `--max-render-seconds` whatever was estimated.
package enum RenderCost {
    /// Seconds per output pixel per frame, by what encodes it: measured on the project's
    /// 2-core machine under the load of its shared builds (load average 5-7), rendering 30 frames
    /// of two 1280x720 noise pictures at 640x360 (the worst case for the encoders), less the
    /// 0.25 s a run takes to start. The command and figures are in docs/decisions/serve.md.
    /// A GIF's cost per pixel grows with the frame (about 5× at 3840x2160, which the
    /// running limit catches); ProRes is the 640x360 figure, its highest.
    static let secondsPerPixel: [String: Double] = [
        "gif": 3.0e-7, "h264": 6.0e-8, "hevc": 2.0e-7, "vp9": 3.5e-7, "webp": 7.0e-8, "apng": 2.5e-7, "prores": 3.3e-6,
        "png": 2.5e-7, "still": 2.5e-7, "html": 2.5e-7,
    ]

    /// The key of ``secondsPerPixel`` for an output kind.
    static func key(_ kind: OutputKind) -> String {
        switch kind {
        case .gif: return "gif"
        case let .video(codec, _): return codec.name
        case .pngSequence: return "png"
        case .still: return "still"
        case .html: return "html"
        }
    }

    /// The estimated seconds of `frames` frames of `width`×`height` pixels encoded as `kind`.
    package static func seconds(kind: OutputKind, frames: Int, width: Int, height: Int) -> Double {
        Double(frames) * Double(width) * Double(height) * (secondsPerPixel[key(kind)] ?? secondsPerPixel["prores"]!)
    }
}
