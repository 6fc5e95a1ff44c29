import Dispatch
import SweepImaging
import SweepMedia

/// The Y′CbCr fast path for video inputs: when nothing but the split moves, the clips need
/// no look and their frames go straight into the encoder's BT.709 4:2:0 (scaled, and remixed
/// from another matrix), each frame is composed there with no RGB round trip. Still sides
/// are converted once.
extension FrameSource {
    /// Each side in 4:2:0: a still's converted picture, or (for a clip) its first frame.
    struct YUVSides {
        let stillBefore: YUVImage
        let stillAfter: YUVImage
    }

    /// The sides for the fast path, or `nil` when a clip needs the RGBA path (a look, a
    /// letterbox, rotation, RGB frames).
    func yuvSides(before b: Adjustments, after a: Adjustments, writer: VideoWriter) -> YUVSides? {
        for (clip, look) in [(beforeClip, b), (afterClip, a)] {
            guard let clip else { continue }
            let place = FitPlacement(
                sourceWidth: clip.decoder.width, sourceHeight: clip.decoder.height, width: width, height: height, mode: clip.fit)
            guard look.isIdentity, place.coversFrame, clip.decoder.convertsToVideoYUVDirectly else { return nil }
        }
        do {
            let (lb, la) = sides(before: b, after: a)
            let blank = YUVImage(width: width, height: height)
            return YUVSides(
                stillBefore: beforeClip == nil ? try writer.convert(lb) : blank,
                stillAfter: afterClip == nil ? try writer.convert(la) : blank)
        } catch {
            return nil
        }
    }

    /// Both sides at clip time `t`: the clips' frames (decoded at once when both play) and
    /// the stills as converted.
    func yuvFrames(at t: Double, stills: YUVSides) throws -> (YUVImage, YUVImage) {
        let frames = try eachClip { try $0.yuvFrame(at: t) }
        let before = frames.before ?? stills.stillBefore
        let after = afterClip === beforeClip && beforeClip != nil ? before : (frames.after ?? stills.stillAfter)
        return (before, after)
    }
}
