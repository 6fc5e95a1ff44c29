import Dispatch
import SweepImaging

/// Renders frame i+1 on another core while frame i is being encoded, with two buffers.
enum FramePump {
    /// One frame buffer that crosses to the worker queue.
    /// Safe: the worker only writes the slot the consumer is not reading, and the consumer
    /// waits for the worker before it reads that slot.
    final class Slot<Frame>: @unchecked Sendable {
        var frame: Frame
        init(_ frame: Frame) { self.frame = frame }
    }

    /// The render closure, carried to the worker queue; it runs on one thread at a time.
    final class Renderer<Frame>: @unchecked Sendable {
        let render: (Int, inout Frame) -> Void
        init(_ render: @escaping (Int, inout Frame) -> Void) { self.render = render }
    }

    /// Calls `consume(i, frame)` for i in 0..<count, in order, with frames from `render`.
    static func run<Frame>(
        count: Int, make: () -> Frame, render: @escaping (Int, inout Frame) -> Void,
        consume: (Int, Frame) throws -> Void
    ) rethrows {
        guard count > 0 else { return }
        let slots = [Slot(make()), Slot(make())]
        let renderer = Renderer(render)
        renderer.render(0, &slots[0].frame)
        let queue = DispatchQueue(label: "sweep.render")
        for i in 0..<count {
            let group = DispatchGroup()
            if i + 1 < count {
                let next = slots[(i + 1) & 1]
                queue.async(group: group) { renderer.render(i + 1, &next.frame) }
            }
            defer { group.wait() }
            try consume(i, slots[i & 1].frame)
        }
    }

    /// RGBA frames of one size.
    static func run(
        count: Int, width: Int, height: Int, render: @escaping (Int, inout RGBAImage) -> Void,
        consume: (Int, RGBAImage) throws -> Void
    ) rethrows {
        try run(count: count, make: { RGBAImage(width: width, height: height) }, render: render, consume: consume)
    }
}
