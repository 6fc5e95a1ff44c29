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

    var count: Int { states.count }
    var width: Int { source.width }
    var height: Int { source.height }

    /// Renders frame `i` into `frame`.
    func render(_ i: Int, into frame: inout RGBAImage) { source.render(states[i], into: &frame) }

    /// Nothing but the split moves: the sides keep one look each and no frame dissolves.
    var onlySplitMoves: Bool {
        animation.before.isConstant && animation.after.isConstant && reduceMotion != .dissolve
    }
}
