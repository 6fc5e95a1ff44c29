import Dispatch
import Synchronization

/// A result one thread hands to another: work started on a queue, and taken, once, by the
/// thread that waits for it. The one hand-off between a writer's thread and the second core
/// (the next frame rendered, prepared or LZW-coded while this one is written).
///
/// The work may capture values that are not `Sendable` (frame buffers, coders): the caller
/// gives them up to the queue until ``wait()`` or ``value()`` returns, and must not touch
/// them in between. That rule is the whole of the hand-off's safety, so it lives here once.
/// The result crosses under a lock (the group's wait already orders it; the lock keeps the
/// rule checkable should a reader ever come early).
package final class Pending<Value, Failure: Error>: Sendable {
    private let lock = Mutex(())
    nonisolated(unsafe) private var result: Result<Value, Failure>?
    private let finished = DispatchGroup()

    /// Starts `work` on `queue`.
    package init(on queue: DispatchQueue, _ work: @escaping () throws(Failure) -> Value) {
        nonisolated(unsafe) let work = work
        queue.async(group: finished) { [self] in
            let outcome = Result { () throws(Failure) -> Value in try work() }
            lock.withLock { _ in result = outcome }
        }
    }

    /// Waits until the work is done (what it captured is the caller's again).
    package func wait() { finished.wait() }

    /// Waits for the work, then returns what it made or throws what it threw. Call once.
    package func value() throws(Failure) -> Value {
        finished.wait()
        let outcome = lock.withLock { _ in
            defer { result = nil }
            return result!
        }
        return try outcome.get()
    }
}

extension Pending where Value == Void, Failure == any Error {
    /// Runs `first` on this thread and `second` on another core at once, and returns both
    /// results once both are done (the first error, in that order, if any throws). Built on
    /// `concurrentPerform`, so this thread runs both when the pool has no thread to give
    /// (`sweep batch`, one job per core).
    package static func both<A, B>(_ first: () throws -> A, _ second: () throws -> B) throws -> (A, B) {
        try withoutActuallyEscaping(first) { first in
            try withoutActuallyEscaping(second) { second in
                // Each iteration writes only its own result; both are read after the join.
                nonisolated(unsafe) let (first, second) = (first, second)
                nonisolated(unsafe) var (a, b): (Result<A, any Error>?, Result<B, any Error>?) = (nil, nil)
                DispatchQueue.concurrentPerform(iterations: 2) { i in
                    if i == 0 { a = Result { try first() } } else { b = Result { try second() } }
                }
                return (try a!.get(), try b!.get())
            }
        }
    }
}
