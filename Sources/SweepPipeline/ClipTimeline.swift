import Foundation
import SweepGIF
import SweepImaging
import SweepSupport
import SweepTimeline

/// The frames of a render with video inputs: how long it runs, at what rate, and what each
/// frame shows of the animation and of the clips.
///
/// The output lasts as long as the shorter clip (from `--start`, up to `--end`, or
/// `--duration` when shorter). The animation's pass is stretched over that length, so a
/// reveal runs across the whole clip, or repeats at its own length with `--loop`.
package struct ClipTimeline {
    package let fps: Double
    /// Seconds of output.
    package let length: Double
    package let states: [FrameState<Adjustments>]
    /// The clip time each frame shows.
    package let clipTimes: [Double]
    package var notes: [String] = []

    /// The highest rate an output of `kind` shows.
    package static func maxFPS(_ kind: OutputKind) -> Double { kind == .gif ? GIFTiming.maxFPS : FrameRateRange.highest }

    /// The lowest rate an output takes from its clips.
    static let minimumClipRate = 10.0

    /// - Parameters:
    ///   - available: seconds the shorter clip lasts from the start.
    ///   - clipRate: the before clip's frame rate (the after clip's when the before side is a still).
    ///   - maxFPS: the output's highest rate (50 for GIF, ``maxFPS(_:)``).
    package init(
        animation anim: Animation<Adjustments>, clip: ClipOptions, available: Double, clipRate: Double,
        fps asked: Double, maxFPS: Double, reduceMotion: ReduceMotion
    ) throws {
        var length = available
        if let end = clip.end { length = min(length, end - clip.start) }
        if let wanted = clip.length {
            if wanted > length + 1e-6 {
                notes.append(String(format: "the clips last %.2f s from the start, so the output does too (not %g s)", length, wanted))
            } else {
                length = wanted
            }
        }
        guard length > 0 else {
            throw SweepError(
                .usage, String(format: "nothing is left to show: the clips last %.2f s from the start", available),
                fix: "choose an earlier start", field: .start)
        }
        var fps = clip.followClipRate ? clipRate : asked
        if let by = clip.rateChosenBy, !clip.followClipRate, abs(fps - clipRate) > 0.01 * clipRate {
            notes.append(String(format: "the clip runs at %g fps; the output runs at %g fps, as %@ asks", clipRate, fps, by))
        }
        // A slideshow or time-lapse clip at a few frames a second would make the sweep itself
        // jerk: its frames are held instead, at a rate the motion needs.
        if clip.followClipRate && fps < Self.minimumClipRate {
            notes.append(
                String(
                    format: "the clip runs at %g fps; the output runs at %g fps, its frames held (set a rate to change it)", fps,
                    Self.minimumClipRate))
            fps = Self.minimumClipRate
        }
        if fps > maxFPS {
            notes.append(String(format: "frame rate %g → %g fps (the most this output shows)", fps, maxFPS))
            fps = maxFPS
        }
        // One frame for each frame time that starts within the length: a clip whose edit list
        // ends it 0.2 frames into its last frame still shows that frame.
        let frames = max(1, (length * fps - 1e-6).rounded(.up))
        guard frames <= Double(RenderLimits.maxFrames) else {
            throw SweepError(
                .usage, "the render would take \(Int(frames)) frames, over the limit of \(RenderLimits.maxFrames)",
                fix: "lower the frame rate, or trim the clips with a start and an end")
        }
        let n = Int(frames)
        self.fps = fps
        self.length = length
        clipTimes = (0..<n).map { Double($0) / fps }
        let pass = anim.passDuration
        let times: [Double] =
            clip.loopAnimation
            ? (0..<n).map { anim.time(ofFrame: $0, fps: fps) }
            : clipTimes.map { length > 0 && pass > 0 ? $0 * pass / length : 0 }
        states = anim.states(at: times, reduceMotion: reduceMotion)
    }
}
