import Foundation

/// Work queue and counters shared by the batch workers (under a lock).
final class BatchState: @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [BatchCommand.Planned]
    private var position = 0
    private var done = 0
    private(set) var failures = 0

    init(jobs: [BatchCommand.Planned]) { self.jobs = jobs }

    func next() -> BatchCommand.Planned? {
        lock.lock(); defer { lock.unlock() }
        guard position < jobs.count else { return nil }
        position += 1
        return jobs[position - 1]
    }

    func fail() { lock.lock(); failures += 1; lock.unlock() }
    func finished() -> Int { lock.lock(); defer { lock.unlock() }; done += 1; return done }
}
