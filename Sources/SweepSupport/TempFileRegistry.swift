import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The temporary files in flight, so that SIGINT and SIGTERM can remove them before the
/// process dies.
///
/// All mutable state sits in one `Mutex`, so the compiler checks the sharing between the
/// render threads and the signal handler's queue (no `@unchecked Sendable`).
package final class TempFileRegistry: Sendable {
    /// The process-wide registry that ``AtomicOutput`` reports to.
    package static let shared = TempFileRegistry()

    private struct State {
        var paths: Set<String> = []
        /// Kept alive for the life of the process: a released source stops delivering.
        var sources: [any DispatchSourceSignal] = []
        /// How many times handlers were actually installed (0 or 1).
        var installations = 0
        /// The terminating signal being handled, once one has arrived.
        var caught: Int32?
    }

    private let state = Mutex(State())

    package func add(_ path: String) { state.withLock { _ = $0.paths.insert(path) } }
    package func remove(_ path: String) { state.withLock { _ = $0.paths.remove(path) } }
    /// The terminating signal being handled, once one has arrived. Its handler removes the
    /// temporary files and exits, so a render that fails meanwhile (its folder just vanished)
    /// failed because of it, and must not report that failure or exit with its own code.
    package var caughtSignal: Int32? { state.withLock { $0.caught } }

    /// Waits for the process to end when a terminating signal is being handled (see
    /// ``caughtSignal``); returns at once otherwise. For a failure's handler, before it reports.
    package func yieldToSignal() {
        guard caughtSignal != nil else { return }
        while true { pause() }
    }
    /// Whether `path` would be removed by a signal now.
    package func isRegistered(_ path: String) -> Bool { state.withLock { $0.paths.contains(path) } }

    /// Removes every registered temporary file (called from the signal handler's thread, and
    /// again as the process ends). The paths stay registered: the render thread runs on until
    /// the process ends, and a file it creates after the first pass goes in the second.
    package func removeAll() {
        for p in state.withLock({ $0.paths }) { Self.removeTree(p) }
    }

    /// The signals whose default action ends the process and that can be caught: each
    /// removes the temporary files first. (SIGKILL cannot be caught; its leftovers are
    /// hidden `.NAME.PID.N.tmp` files and folders, safe to delete. SIGPIPE is ignored
    /// instead, so that writing to a closed pipe fails where the CLI can act on it.)
    static let terminatingSignals: [Int32] = [
        SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU,
        SIGXFSZ, SIGVTALRM, SIGPROF,
    ]

    /// Microseconds between a signal's two passes over the temporary files.
    static let secondPassDelay: UInt32 = 150_000

    /// Installs handlers for every catchable terminating signal that remove the temporary
    /// files and exit with 128 + signal, as a shell expects.
    ///
    /// Idempotent: a second call (a batch runs many renders in one process) does nothing,
    /// so each signal is handled by exactly one dispatch source.
    package func installSignalHandlers() {
        state.withLock { s in
            guard s.installations == 0 else { return }
            s.installations += 1
            // Whatever is still registered when the process ends is removed once more: a file
            // the render thread created after the signal's pass would be left behind (once in
            // about 130 interrupted size-capped renders, which open many files). Committed
            // outputs are not registered.
            atexit { TempFileRegistry.shared.removeAll() }
            for sig in Self.terminatingSignals {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                source.setEventHandler { [weak self] in
                    // Recorded before anything is removed: see ``caughtSignal``.
                    self?.state.withLock { $0.caught = sig }
                    self?.removeAll()
                    // A writer between reserving its temporary name and creating the file
                    // (an encoder opening it) would create it after this pass, and after the
                    // exit's own pass too if it ran at once: a job starting as a batch is
                    // cancelled left one (Tests/slurm). Writers that fail meanwhile wait
                    // (``yieldToSignal``); a second pass a moment later catches the late ones.
                    usleep(Self.secondPassDelay)
                    self?.removeAll()
                    exit(128 + sig)
                }
                source.resume()
                s.sources.append(source)
            }
        }
    }

    /// How many times ``installSignalHandlers()`` really installed handlers; for tests.
    package var signalHandlerInstallations: Int { state.withLock { $0.installations } }
}
