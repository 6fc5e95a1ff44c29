import Dispatch
import SweepImaging

/// Renders frame i+1 on another core while frame i is being encoded, with two buffers.
enum FramePump {
    /// One frame buffer that crosses to the worker queue.
    /// Safe: the worker only writes the slot the consumer is not reading, and the consumer
    /// waits for the worker before it reads that slot.
    final class Slot: @unchecked Sendable {
        var image: RGBAImage
        init(width: Int, height: Int) { image = RGBAImage(width: width, height: height) }
    }

    /// The render closure, carried to the worker queue; it runs on one thread at a time.
    final class Renderer: @unchecked Sendable {
        let render: (Int, inout RGBAImage) -> Void
        init(_ render: @escaping (Int, inout RGBAImage) -> Void) { self.render = render }
    }

    /// Calls `consume(i, frame)` for i in 0..<count, in order.
    static func run(count: Int, width: Int, height: Int,
                    render: @escaping (Int, inout RGBAImage) -> Void,
                    consume: (Int, RGBAImage) throws -> Void) rethrows {
        guard count > 0 else { return }
        let slots = [Slot(width: width, height: height), Slot(width: width, height: height)]
        let renderer = Renderer(render)
        renderer.render(0, &slots[0].image)
        let queue = DispatchQueue(label: "sweep.render")
        for i in 0..<count {
            let group = DispatchGroup()
            if i + 1 < count {
                let next = slots[(i + 1) & 1]
                queue.async(group: group) { renderer.render(i + 1, &next.image) }
            }
            defer { group.wait() }
            try consume(i, slots[i & 1].image)
        }
    }
}
