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

    /// An empty registry; the process uses ``shared`` (tests make their own).
    package init() {}

    /// What ``createFile(_:)`` and ``createFolder(_:)`` did.
    package enum Creation: Equatable, Sendable {
        /// Created and registered; a file comes with its open descriptor (write-only), a folder with -1.
        case created(Int32)
        /// Nothing created: the system call failed with this `errno`.
        case failed(Int32)
        /// Nothing created: a terminating signal is being handled (``caughtSignal``), and the
        /// caller should wait for the process to end (``yieldToSignal()``).
        case refused
    }

    /// Creates `path` as a new, empty file (never one that exists) and registers it, in one
    /// step under the lock that a signal's handler takes to record the signal before it
    /// removes the registered files. So a temporary file is either created before the signal,
    /// and removed with the rest, or not at all: registering a name and creating the file
    /// apart left a window in which a file appeared after every pass (a batch job starting
    /// as it was cancelled).
    package func createFile(_ path: String) -> Creation {
        create(path) {
            let fd = open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            return fd >= 0 ? fd : nil
        }
    }

    /// Creates the folder `path` (private to its owner) and registers it, as ``createFile(_:)`` does.
    package func createFolder(_ path: String) -> Creation {
        create(path) { mkdir($0, 0o700) == 0 ? -1 : nil }
    }

    /// Runs `make` (the descriptor made, -1 for none, nil for a failure with `errno` set)
    /// under the lock unless a signal has been caught, and registers what it made.
    private func create(_ path: String, _ make: (String) -> Int32?) -> Creation {
        state.withLock { s in
            guard s.caught == nil else { return .refused }
            guard let fd = make(path) else { return .failed(errno) }
            s.paths.insert(path)
            return .created(fd)
        }
    }

    /// Records `signal` as being handled, before its handler removes anything: from now on
    /// nothing more is created (``createFile(_:)``) and failures wait (``yieldToSignal()``).
    package func recordSignal(_ signal: Int32) { state.withLock { $0.caught = signal } }

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

    /// Removes every registered temporary file and folder (called from the signal handler's
    /// thread, and again as the process ends). The paths stay registered, since the render
    /// threads run on until the process ends.
    package func removeAll() {
        for p in state.withLock({ $0.paths }) { Self.removeTree(p) }
    }

    /// The signals whose default action ends the process and that can be caught: each
    /// removes the temporary files first. (SIGKILL cannot be caught; its leftovers are
    /// hidden `.NAME.PID.N.tmp` files and folders, safe to delete. SIGPIPE is ignored
    /// instead, so that writing to a closed pipe fails where the CLI can act on it; so is
    /// SIGXFSZ, so that a write past the file-size limit fails with EFBIG and is reported
    /// as exit 74 naming the limit, instead of killing the process with a half-made file.)
    static let terminatingSignals: [Int32] = [
        SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF,
    ]

    /// Installs handlers for every catchable terminating signal that remove the temporary
    /// files and exit with 128 + signal, as a shell expects.
    ///
    /// Idempotent: a second call (a batch runs many renders in one process) does nothing,
    /// so each signal is handled by exactly one dispatch source.
    package func installSignalHandlers() {
        state.withLock { s in
            guard s.installations == 0 else { return }
            s.installations += 1
            // Whatever is still registered when the process ends (by `exit`, which runs no
            // `deinit`) is removed too. Committed outputs are not registered.
            atexit { TempFileRegistry.shared.removeAll() }
            // A queue of their own: on the shared global queue, a batch's workers (as many as
            // the cores, each blocked in a render) can hold every thread, and a SIGINT would
            // wait until most jobs had finished and written their outputs (13–31 s measured).
            let queue = DispatchQueue(label: "sweep.signals")
            signal(SIGXFSZ, SIG_IGN)
            for sig in Self.terminatingSignals {
                // A signal ignored when sweep starts stays ignored: a shell ignores SIGINT and
                // SIGQUIT for its background jobs, and `nohup` SIGHUP.
                var inherited = sigaction()
                if sigaction(sig, nil, &inherited) == 0, let handler = inherited.__sigaction_handler.sa_handler,
                    unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
                {
                    continue
                }
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                source.setEventHandler { [weak self] in
                    // Recorded before anything is removed: from now on nothing is created
                    // (``createFile(_:)``) and failures wait (``yieldToSignal()``). Writers open
                    // their files through the descriptor (``AtomicOutput/writePath``), and a
                    // staging folder is renamed away before it is emptied (``removeTree(_:)``),
                    // so nothing appears after this one pass.
                    self?.recordSignal(sig)
                    self?.removeAll()
                    // `_exit`, once stdio is flushed: the files are gone, and `exit` would run
                    // exit-time work (a sanitizer's leak check among it) while other threads are
                    // mid-render, holding what they were given.
                    fflush(nil)
                    _exit(128 + sig)
                }
                source.resume()
                s.sources.append(source)
            }
        }
    }

    /// How many times ``installSignalHandlers()`` really installed handlers; for tests.
    package var signalHandlerInstallations: Int { state.withLock { $0.installations } }
}
