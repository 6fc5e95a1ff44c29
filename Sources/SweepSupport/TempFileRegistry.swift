#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The temporary files in flight, so that SIGINT and SIGTERM can remove them before the
/// process dies.
package final class TempFileRegistry: @unchecked Sendable {
    package static let shared = TempFileRegistry()
    private let lock = NSLock()
    private var paths: Set<String> = []

    package func add(_ path: String) { lock.lock(); paths.insert(path); lock.unlock() }
    package func remove(_ path: String) { lock.lock(); paths.remove(path); lock.unlock() }
    /// Whether `path` would be removed by a signal now.
    package func isRegistered(_ path: String) -> Bool { lock.lock(); defer { lock.unlock() }; return paths.contains(path) }

    /// Removes every registered temporary file (called from the signal handler's thread).
    package func removeAll() {
        lock.lock()
        let all = paths
        paths.removeAll()
        lock.unlock()
        for p in all { Self.removeTree(p) }
    }

    private var sources: [any DispatchSourceSignal] = []

    /// Installs SIGINT/SIGTERM handlers that remove the temporary files and exit with
    /// 128 + signal, as a shell expects.
    package func installSignalHandlers() {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in
                self?.removeAll()
                exit(128 + sig)
            }
            source.resume()
            sources.append(source)
        }
    }
}
