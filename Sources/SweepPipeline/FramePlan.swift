import SweepImaging
import SweepTimeline

/// The frames of one render: the prepared sides and the state of every frame.
struct FramePlan {
    /// The decoded, resized sides and the overlay.
    let source: FrameSource
    /// What each frame shows, in order.
    let states: [FrameState<Adjustments>]
    /// The animation the states were sampled from.
    let animation: Animation<Adjustments>
    let fps: Double
    let reduceMotion: ReduceMotion
    /// For video inputs, the clip time each frame shows (seconds after the start); `nil` for stills.
    var clipTimes: [Double]? = nil

    var count: Int { states.count }
    var width: Int { source.width }
    var height: Int { source.height }

    /// Renders frame `i` into `frame` (frames of video inputs in order: clips play forward).
    func render(_ i: Int, into frame: inout RGBAImage) throws {
        try source.render(states[i], clipTime: clipTimes?[i], into: &frame)
    }

    /// Frame `i` as a new image, for sampling ahead (a GIF's palette); call
    /// ``rewind()`` before rendering in order again.
    func sample(_ i: Int) throws -> RGBAImage {
        var frame = RGBAImage(width: width, height: height)
        try render(i, into: &frame)
        return frame
    }

    /// Plays video inputs from the start again after ``sample(_:)``.
    func rewind() throws {
        if clipTimes != nil { try source.rewindClips() }
    }

    /// Nothing but the split moves: the sides keep one look each and no frame dissolves.
    var onlySplitMoves: Bool {
        animation.before.isConstant && animation.after.isConstant && reduceMotion != .dissolve
    }
}
