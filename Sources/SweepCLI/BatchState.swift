import Synchronization

/// Work queue and counters shared by the batch workers.
final class BatchState: Sendable {
    typealias Job = BatchCommand.Planned

    private struct State {
        var jobs: [Job]
        var position = 0
        var done = 0
        var failures = 0
    }

    private let state: Mutex<State>

    init(jobs: [Job]) { state = Mutex(State(jobs: jobs)) }

    /// Jobs that failed so far.
    var failures: Int { state.withLock { $0.failures } }

    /// The next job to run, or nil when the queue is empty.
    func next() -> Job? {
        state.withLock { s in
            guard s.position < s.jobs.count else { return nil }
            s.position += 1
            return s.jobs[s.position - 1]
        }
    }

    func fail() { state.withLock { $0.failures += 1 } }
    /// Counts a finished job and returns how many have finished.
    func finished() -> Int {
        state.withLock { s in
            s.done += 1; return s.done
        }
    }
}
