import SweepMedia

/// How video inputs are played: trimming, length, rate, audio.
///
/// Stills ignore all of it; a still beside a video is held for the whole clip.
public struct ClipOptions: Sendable, Equatable {
    /// Which input's sound the output carries.
    public enum Audio: String, Sendable, CaseIterable {
        /// The before clip's sound, else the after clip's.
        case auto
        case before
        case after
        case none
    }

    /// Seconds into both clips where the comparison begins (`--start`), counted from each
    /// clip's own offset.
    public var start: Double = 0
    /// Where the comparison's time 0 lies in the before clip and in the after clip
    /// (`--before-start`, `--after-start`): lines up a graded excerpt with its original.
    public var beforeOffset: Double = 0
    public var afterOffset: Double = 0
    /// Seconds into both clips where it ends (`--end`); `nil` runs to the shorter clip's end.
    public var end: Double?
    /// The output's length in seconds (`--duration`); `nil` takes the shorter clip's.
    public var length: Double?
    /// The animation repeats at its own length across the clip (`--loop`) instead of being
    /// stretched to the clip's length.
    public var loopAnimation = false
    /// Seconds into the before (`side` 0) or after (1) clip where the comparison begins.
    public func start(side: Int) -> Double { start + (side == 0 ? beforeOffset : afterOffset) }

    /// These options for one side: its own start.
    func forSide(_ side: Int) -> ClipOptions {
        var one = self
        one.start = start(side: side)
        (one.beforeOffset, one.afterOffset) = (0, 0)
        return one
    }

    /// The output takes the before clip's frame rate (the after clip's when the before side
    /// is a still); `false` keeps the render's frame rate (`--fps`).
    public var followClipRate = true
    /// Who chose the render's frame rate over the clip's rate, for the note when the two differ
    /// ("the format x-post"); `nil` says nothing (the user's own `--fps`).
    public var rateChosenBy: String?
    /// Animated GIF, APNG and WebP inputs show their first frame only (`--first-frame`).
    public var firstFrame = false
    /// The output's sound (`--audio`).
    public var audio = Audio.auto
    /// HDR clips (PQ, HLG) are tone-mapped to SDR, or refused (`--hdr`).
    public var hdr = HDRHandling.tonemap
    /// The bytes all clip decoders may take together (`--max-memory`; default: half the
    /// machine's memory). Two clips share it.
    public var maxMemory = DecoderMemory.defaultBudget

    /// Each clip's share of ``maxMemory``: a render may decode two clips at once.
    var decoderMemory: Int { maxMemory / 2 }

    public init() {}
}
