import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SweepPipeline
@testable import SweepSupport

/// The one hand-off between threads, and the frame pump built on it.
@Suite("Pending hand-offs")
struct PendingTests {
    struct Broken: Error, Equatable { let frame: Int }

    @Test("A pending value runs on its queue, is handed over once, and its error comes back to the waiter")
    func handOff() throws {
        let queue = DispatchQueue(label: "test.pending")
        let onQueue = Pending<Bool, Never>(on: queue) { !Thread.isMainThread || true }
        #expect(onQueue.value())
        let failing = Pending<Int, any Error>(on: queue) { throw Broken(frame: 7) }
        failing.wait()
        failing.wait()  // waiting twice is harmless
        #expect(throws: Broken(frame: 7)) { try failing.value() }
    }

    @Test("both runs its two closures at once when a second thread is free, and returns both results")
    func bothCores() throws {
        let started = Mutex(0)
        // Each closure waits (up to 2 s) until both have started: they only finish quickly together.
        func meet() -> Bool {
            started.withLock { $0 += 1 }
            let deadline = Date().addingTimeInterval(2)
            while started.withLock({ $0 }) < 2 && Date() < deadline { usleep(100) }
            return started.withLock { $0 } == 2
        }
        let (a, b) = try Pending.both({ meet() }, { meet() })
        #expect(a && b)
        #expect(throws: Broken(frame: 1)) { _ = try Pending.both({ throw Broken(frame: 1) }, { throw Broken(frame: 2) }) }
    }

    @Test(
        "The frame pump consumes frames in order, rethrows a render's error after the frames before it, and never leaves the queue running")
    func pump() throws {
        var seen: [Int] = []
        try FramePump.run(count: 50, make: { -1 }, render: { i, frame in frame = i * i }) { i, frame in seen.append(frame) }
        #expect(seen == (0..<50).map { $0 * $0 })

        seen = []
        #expect(throws: Broken(frame: 5)) {
            try FramePump.run(
                count: 9, make: { 0 }, render: { i, frame in if i == 5 { throw Broken(frame: 5) } else { frame = i } },
                consume: { i, _ in seen.append(i) })
        }
        #expect(seen == [0, 1, 2, 3, 4])

        // A consumer that fails: the pump returns only once the render in flight is done.
        let rendering = Mutex(false)
        #expect(throws: Broken(frame: 0)) {
            try FramePump.run(
                count: 3, make: { 0 },
                render: { i, _ in
                    guard i == 1 else { return }
                    rendering.withLock { $0 = true }
                    usleep(200_000)
                    rendering.withLock { $0 = false }
                }, consume: { i, _ in throw Broken(frame: i) })
        }
        #expect(!rendering.withLock { $0 })
    }
}
