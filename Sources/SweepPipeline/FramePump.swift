import Dispatch
import SweepImaging

/// Renders frame i+1 on another core while frame i is being encoded, with three buffers.
///
/// Three, not two: an encoder may keep a frame until it has taken the next one (the GIF
/// writer compares each frame with the one before), and a buffer still shared when it is
/// rendered into again is copied whole first. The third buffer is free by then.
enum FramePump {
    /// One frame buffer that crosses to the worker queue.
    /// Safe: the worker only writes the slot the consumer is not reading, and the consumer
    /// waits for the worker before it reads that slot.
    final class Slot<Frame>: @unchecked Sendable {
        var frame: Frame
        /// What rendering this frame threw (a video input damaged part-way), rethrown in order.
        var failure: (any Error)?
        init(_ frame: Frame) { self.frame = frame }
    }

    /// The render closure, carried to the worker queue; it runs on one thread at a time.
    final class Renderer<Frame>: @unchecked Sendable {
        let render: (Int, inout Frame) throws -> Void
        init(_ render: @escaping (Int, inout Frame) throws -> Void) { self.render = render }
        func run(_ i: Int, into slot: Slot<Frame>) {
            do { try render(i, &slot.frame) } catch { slot.failure = error }
        }
    }

    /// Calls `consume(i, frame)` for i in 0..<count, in order, with frames from `render`.
    static func run<Frame>(
        count: Int, make: () -> Frame, render: @escaping (Int, inout Frame) throws -> Void,
        consume: (Int, Frame) throws -> Void
    ) throws {
        guard count > 0 else { return }
        let slots = [Slot(make()), Slot(make()), Slot(make())]
        let renderer = Renderer(render)
        renderer.run(0, into: slots[0])
        let queue = DispatchQueue(label: "sweep.render")
        for i in 0..<count {
            let group = DispatchGroup()
            if i + 1 < count {
                let next = slots[(i + 1) % 3]
                queue.async(group: group) { renderer.run(i + 1, into: next) }
            }
            defer { group.wait() }
            if let failure = slots[i % 3].failure { throw failure }
            try consume(i, slots[i % 3].frame)
        }
    }

    /// RGBA frames of one size.
    static func run(
        count: Int, width: Int, height: Int, render: @escaping (Int, inout RGBAImage) throws -> Void,
        consume: (Int, RGBAImage) throws -> Void
    ) throws {
        try run(count: count, make: { RGBAImage(width: width, height: height) }, render: render, consume: consume)
    }
}
