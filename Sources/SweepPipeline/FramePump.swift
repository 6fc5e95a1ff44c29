import Dispatch
import SweepImaging
import SweepSupport

/// Renders frame i+1 on another core while frame i is being encoded, with three buffers.
///
/// Three, not two: an encoder may keep a frame until it has taken the next one (the GIF
/// writer compares each frame with the one before), and a buffer still shared when it is
/// rendered into again is copied whole first. The third buffer is free by then.
enum FramePump {
    /// One frame buffer, rendered into in place (a class, so that the render does not copy it).
    final class Slot<Frame> {
        var frame: Frame
        init(_ frame: Frame) { self.frame = frame }
    }

    /// Calls `consume(i, frame)` for i in 0..<count, in order, with frames from `render`.
    /// What rendering a frame threw (a video input damaged part-way) is rethrown in order,
    /// after the frames before it were consumed.
    static func run<Frame>(
        count: Int, make: () -> Frame, render: @escaping (Int, inout Frame) throws -> Void,
        consume: (Int, Frame) throws -> Void
    ) throws {
        guard count > 0 else { return }
        let slots = [Slot(make()), Slot(make()), Slot(make())]
        try render(0, &slots[0].frame)
        let queue = DispatchQueue(label: "sweep.render")
        var next: Pending<Void, any Error>?
        // Never return while the queue still renders into a buffer or reads a decoder.
        defer { next?.wait() }
        for i in 0..<count {
            if i + 1 < count {
                let slot = slots[(i + 1) % 3]
                next = Pending(on: queue) { try render(i + 1, &slot.frame) }
            } else {
                next = nil
            }
            try consume(i, slots[i % 3].frame)
            try next?.value()
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
