import Dispatch
import Foundation
import SweepPipeline
import SweepRequest
import SweepSupport
import Synchronization

/// The renders the service knows: at most `jobs` running, at most `limit` waiting, each run
/// through the batch path (`RenderRun.perform`, lenient) into its own folder.
///
/// Only unfinished renders' records are held in memory. A finished one's lives in its
/// `record.json` alone, with its end time here for expiry, so the service's memory follows
/// the renders running, not the renders kept (`--keep`).
package final class RenderQueue: Sendable {
    private struct State {
        /// Queued and running renders.
        var records: [String: RenderRecord] = [:]
        /// Finished renders (their records are on disk): when each ended.
        var finished: [String: Double] = [:]
        var prepared: [String: ResolvedRender] = [:]
        var waiting: [String] = []
        var running: Set<String> = []
        /// Previews running now: they take a render's place while they run.
        var previews = 0
        /// Deleted while running: their folder goes when the render ends.
        var cancelled: Set<String> = []
        /// Deleted while running and no longer holding a place: each ends at its next frame.
        var stopping: Set<String> = []
        /// The running renders' stops: a render told to stop ends at its next frame.
        var stops: [String: CancellationFlag] = [:]
        /// Stopped by a shutdown: kept on disk as queued, to run again after the restart.
        var interrupted: Set<String> = []
        /// Stopped for running past ``maxSeconds``.
        var overtime: Set<String> = []
        /// Render uploads admitted at their headers and not yet queued: each holds a place.
        var reserved = 0
        /// Preview uploads arriving.
        var previewUploads = 0
        var accepting = true
    }

    /// A place held for an upload while it arrives: given back when it goes, unless its
    /// render was queued in it.
    package final class Reservation: Sendable {
        private let held = Mutex(true)
        private let giveBack: @Sendable () -> Void
        init(giveBack: @escaping @Sendable () -> Void) { self.giveBack = giveBack }
        /// Takes the place over for the render; true the first time only.
        func take() -> Bool {
            held.withLock { h in
                defer { h = false }; return h
            }
        }
        deinit { if take() { giveBack() } }
    }

    /// What became of a submission.
    package enum Admission: Equatable, Sendable {
        case started, queued, full, closed
    }

    private let state = Mutex(State())
    package let store: RenderStore
    package let metrics: ServeMetrics
    package let jobs: Int
    package let limit: Int
    /// The longest a render may run (`--max-render-seconds`): past it, it is stopped at its
    /// next frame and fails.
    package let maxSeconds: Double

    package init(
        store: RenderStore, metrics: ServeMetrics, jobs: Int, limit: Int, maxSeconds: Double = 900, recovered: [RenderRecord] = []
    ) {
        (self.store, self.metrics, self.jobs, self.limit, self.maxSeconds) = (store, metrics, jobs, limit, maxSeconds)
        state.withLock { s in for r in recovered where r.state.isFinal { s.finished[r.id] = r.finished ?? r.created } }
    }

    /// Holds a place for an upload that is about to arrive, or nil when there is none: a
    /// render's place counts against `jobs` + `limit` with the renders running and waiting; a
    /// preview's against `jobs` uploading previews (a preview then needs a free render place).
    package func reserve(preview: Bool) -> Reservation? {
        let ok = state.withLock { s -> Bool in
            guard s.accepting else { return false }
            if preview {
                guard s.previewUploads < jobs else { return false }
                s.previewUploads += 1
                return true
            }
            guard s.running.count + s.previews + s.waiting.count + s.reserved < jobs + limit else { return false }
            s.reserved += 1
            return true
        }
        guard ok else { return nil }
        return Reservation { [weak self] in
            self?.state.withLock { s in
                if preview { s.previewUploads -= 1 } else { s.reserved -= 1 }
            }
        }
    }

    /// Queues (or starts) `record`'s render with `options`, in `reservation`'s place when given;
    /// `.full` and `.closed` leave nothing behind in the queue (the caller removes the folder).
    package func submit(_ record: RenderRecord, options: ResolvedRender, reservation: Reservation? = nil) -> Admission {
        store.save(record)
        let owned = reservation?.take() ?? false
        let admission: Admission = state.withLock { s in
            if owned { s.reserved -= 1 }
            guard s.accepting else { return .closed }
            if s.running.count + s.previews < jobs {
                s.running.insert(record.id)
            } else if s.waiting.count < limit {
                s.waiting.append(record.id)
            } else {
                return .full
            }
            s.records[record.id] = record
            s.prepared[record.id] = options
            return s.running.contains(record.id) ? .started : .queued
        }
        if admission == .started { start(record.id) }
        return admission
    }

    /// Queues a render accepted before a restart (its record says queued), past the limit if
    /// need be: it was answered 202 once.
    package func resume(_ record: RenderRecord, options: ResolvedRender) {
        let started = state.withLock { s -> String? in
            s.records[record.id] = record
            s.prepared[record.id] = options
            s.waiting.append(record.id)
            return Self.takeNext(&s, jobs: jobs)
        }
        if let started { start(started) }
    }

    /// Knows a finished render (its record on disk) until it expires.
    package func remember(_ record: RenderRecord) {
        state.withLock { $0.finished[record.id] = record.finished ?? record.created }
    }

    /// Render `id`'s record, if the service knows it.
    package func record(_ id: String) -> RenderRecord? {
        let (active, finished) = state.withLock { ($0.records[id], $0.finished[id] != nil) }
        if let active { return active }
        guard finished, let record = store.load(id), record.id == id else { return nil }
        return record
    }

    /// True when the service knows render `id` (queued, running or finished).
    package func knows(_ id: String) -> Bool { state.withLock { $0.records[id] != nil || $0.finished[id] != nil } }

    /// Waiting and running renders (previews included in running).
    package var counts: (waiting: Int, running: Int) { state.withLock { ($0.waiting.count, $0.running.count + $0.previews) } }

    /// Forgets render `id` and removes its files; a running one is stopped at its next frame
    /// (its files go when it has stopped). False when there is no such render.
    package func delete(_ id: String) -> Bool {
        let (known, running, waited, next) = state.withLock { s -> (Bool, Bool, Bool, String?) in
            guard s.records.removeValue(forKey: id) != nil || s.finished.removeValue(forKey: id) != nil else {
                return (false, false, false, nil)
            }
            s.prepared[id] = nil
            let before = s.waiting.count
            s.waiting.removeAll { $0 == id }
            if s.running.contains(id) {
                s.cancelled.insert(id)
                s.stops[id]?.cancel()
                // Its place frees now, not when its frame ends (a 4K frame can take half a
                // minute): it finishes that frame on a spare core. At most `jobs` renders stop
                // at once this way, so deleting cannot multiply the work.
                guard s.stopping.count < jobs else { return (true, true, false, nil) }
                s.running.remove(id)
                s.stopping.insert(id)
                return (true, true, false, Self.takeNext(&s, jobs: jobs))
            }
            return (true, false, s.waiting.count < before, nil)
        }
        if let next { start(next) }
        if waited { metrics.cancelledWaiting() }
        if known && !running { store.remove(id) }
        return known
    }

    /// Takes a render's place for a synchronous preview; false when every place is taken.
    package func beginPreview() -> Bool {
        state.withLock { s in
            guard s.accepting, s.running.count + s.previews < jobs else { return false }
            s.previews += 1
            return true
        }
    }

    /// Gives back a preview's place, starting a waiting render in it.
    package func endPreview() {
        let next = state.withLock { s -> String? in
            s.previews -= 1
            return Self.takeNext(&s, jobs: jobs)
        }
        if let next { start(next) }
    }

    /// Moves the first waiting render to running when a place is free.
    private static func takeNext(_ s: inout State, jobs: Int) -> String? {
        guard s.accepting, s.running.count + s.previews < jobs, !s.waiting.isEmpty else { return nil }
        let id = s.waiting.removeFirst()
        s.running.insert(id)
        return id
    }

    private func start(_ id: String) {
        DispatchQueue.global().async { self.run(id) }
    }

    /// Runs render `id` to its end and starts the next.
    private func run(_ id: String) {
        let begun = Date()
        let stop = CancellationFlag()
        guard
            var options = state.withLock({ s -> ResolvedRender? in
                s.records[id]?.state = .running
                s.stops[id] = stop
                return s.prepared.removeValue(forKey: id)
            })
        else {
            finish(id, update: { _ in }, outcome: "cancelled", seconds: 0)
            return
        }
        if let r = record(id) { store.save(r) }
        options.spec.cancellation = stop
        DispatchQueue.global().asyncAfter(deadline: .now() + maxSeconds) { [weak self] in
            self?.state.withLock { s in
                guard s.stops[id] === stop, !s.interrupted.contains(id), !s.cancelled.contains(id) else { return }
                s.overtime.insert(id)
                stop.cancel()
            }
        }
        let progress: Renderer.Progress = { [weak self] p in
            guard p.total > 0, p.attempts > 0 else { return }
            let share = (Double(p.attempt - 1) + Double(p.done) / Double(p.total)) / Double(p.attempts)
            self?.state.withLock { s in
                if let old = s.records[id]?.progress { s.records[id]?.progress = max(old, min(0.999, share)) }
            }
        }
        do {
            var results = try RenderRun.perform(options, progress: progress)
            let path = options.output
            results[0].output = URL(fileURLWithPath: path).lastPathComponent
            results[0].seconds = (results[0].seconds * 1000).rounded() / 1000
            let etag = Self.etag(of: path)
            store.usage.add(StoreUsage.size(of: path))
            store.removeUploads(id)
            let seconds = Date().timeIntervalSince(begun)
            finish(
                id,
                update: { r in
                    r.state = .done
                    r.progress = 1
                    r.summary = results[0]
                    r.notes = results.flatMap(\.notes)
                    r.etag = etag
                }, outcome: "done", seconds: seconds)
        } catch {
            if state.withLock({ $0.interrupted.contains(id) }) {
                interrupt(id)
                return
            }
            var e = error as? SweepError ?? SweepError(.internalError, "internal error: \(error)", fix: "please report it")
            if state.withLock({ $0.overtime.remove(id) != nil }) {
                e = SweepError(
                    .unavailable, "stopped after \(Int(maxSeconds)) s, the longest a render may run here", subject: "render",
                    fix: "render fewer frames or fewer pixels, or raise --max-render-seconds")
            }
            store.clear(id)
            finish(
                id,
                update: { r in
                    r.state = .failed
                    r.error = HTTPResponse.line(e, hiding: store.folder(id))
                    r.exit = Int(e.code.exitCode)
                }, outcome: "failed", seconds: Date().timeIntervalSince(begun))
        }
    }

    /// Records render `id`'s end (unless it was deleted meanwhile: then its files go) and
    /// starts the next waiting render.
    private func finish(_ id: String, update: (inout RenderRecord) -> Void, outcome: String, seconds: Double) {
        let (record, cancelled) = state.withLock { s -> (RenderRecord?, Bool) in
            s.stops[id] = nil
            let cancelled = s.cancelled.remove(id) != nil
            if !cancelled, var r = s.records[id] {
                update(&r)
                r.finished = Date().timeIntervalSince1970
                s.records[id] = r
            }
            return (s.records[id], cancelled)
        }
        var saved = true
        if cancelled {
            store.remove(id)
            metrics.rendered("cancelled", seconds: seconds)
        } else if let record {
            saved = store.save(record)
            metrics.rendered(outcome, seconds: seconds)
        }
        // Only now is the render over: a drain waiting for it must not end the process while
        // its record is still being written. Its record, now on disk, leaves memory.
        let (next, deletedMeanwhile) = state.withLock { s -> (String?, Bool) in
            s.running.remove(id)
            s.stopping.remove(id)
            // A record the disk did not take stays in memory (its file still says running).
            if saved, let record = s.records.removeValue(forKey: id) { s.finished[id] = record.finished ?? Date().timeIntervalSince1970 }
            return (Self.takeNext(&s, jobs: jobs), s.cancelled.remove(id) != nil)
        }
        // Deleted after the check above but before its end: its files go now.
        if deletedMeanwhile { store.remove(id) }
        Allocator.giveBackFreeMemory()
        if let next { start(next) }
    }

    /// A render stopped by a shutdown: its partial output goes, its uploads and spec stay, and
    /// its record says queued again (with a note), so that the restart runs it from the start.
    private func interrupt(_ id: String) {
        let record = state.withLock { s -> RenderRecord? in
            s.stops[id] = nil
            s.running.remove(id)
            s.interrupted.remove(id)
            guard var r = s.records[id] else { return nil }
            r.notes.append("interrupted at \(Int(r.progress * 100)) % by a server stop; it starts again when the server does")
            r.state = .queued
            r.progress = 0
            s.records[id] = r
            return r
        }
        let out = store.folder(id) + "/out"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [] {
            try? FileManager.default.removeItem(atPath: out + "/" + name)
        }
        if let record { store.save(record) }
    }

    /// Writes every render not finished as queued (running ones with a note), so that the next
    /// start runs them; for a stop that cannot wait for the renders still running.
    package func keepUnfinished() {
        let records = state.withLock { s -> [RenderRecord] in
            s.records.values.filter { !$0.state.isFinal }.map { r in
                var r = r
                if r.state == .running {
                    r.notes.append("interrupted at \(Int(r.progress * 100)) % by a server stop; it starts again when the server does")
                }
                r.state = .queued
                r.progress = 0
                return r
            }
        }
        for r in records { store.save(r) }
    }

    /// Removes finished renders older than `keep` seconds.
    package func expire(keep: Double, now: Double = Date().timeIntervalSince1970) {
        let old = state.withLock { s -> [String] in
            var ids = s.finished.filter { $0.value + keep < now }.map(\.key)
            ids += s.records.values.filter { r in r.finished.map { $0 + keep < now } ?? false }.map(\.id)
            for id in ids { (s.finished[id], s.records[id]) = (nil, nil) }
            return ids
        }
        for id in old { store.remove(id) }
    }

    /// Stops taking and starting renders (the waiting ones stay queued on disk); then waits up
    /// to `grace` seconds for the running ones, and stops those still running at their next
    /// frame, keeping them queued for the restart (waiting a few seconds more for them to
    /// stop). Returns any still running (the caller saves them with ``keepUnfinished()`` and
    /// ends the process).
    package func drain(grace: Double) -> [String] {
        state.withLock { $0.accepting = false }
        func settled(within seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if state.withLock({ $0.running.isEmpty && $0.previews == 0 && $0.stopping.isEmpty }) { return true }
                usleep(50_000)
            }
            return false
        }
        if settled(within: grace) { return [] }
        state.withLock { s in
            for (id, stop) in s.stops where !s.cancelled.contains(id) {
                s.interrupted.insert(id)
                stop.cancel()
            }
        }
        if settled(within: 5) { return [] }
        return state.withLock { Array($0.running) }
    }

    /// A strong ETag for the file at `path`: a hash of its bytes.
    static func etag(of path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "\"0\"" }
        defer { try? handle.close() }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash = BatchJob.fnv1a(chunk, continuing: hash) }
        return "\"" + String(hash, radix: 16) + "\""
    }
}
