import Foundation
import SweepSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The results JSONL, one line per finished job, written to the batch's hidden temporary
/// file (an ``AtomicOutput`` the batch commits at the end).
final class ResultsFile: Sendable {
    /// The open stream; nil once closed. Only touched under the mutex, so workers'
    /// lines never interleave.
    private let handle: Mutex<UnsafeMutablePointer<FILE>?>
    let path: String

    /// Opens `path` (the temporary file) for writing; errors name `reportAs`.
    init(path: String, reportAs: String) throws {
        self.path = reportAs
        guard let f = fopen(path, "w") else {
            throw SweepError(.cannotCreate, "cannot write the results file", subject: reportAs, fix: "choose a writable --results path")
        }
        handle = Mutex(f)
    }

    func append(_ record: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return
        }
        handle.withLock { h in
            guard let h else { return }
            _ = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, h) }
            fputs("\n", h)
            fflush(h)
        }
    }

    func close() throws {
        let failed = handle.withLock { h -> Bool in
            guard let f = h else { return false }
            h = nil
            let damaged = ferror(f) != 0
            return fclose(f) != 0 || damaged
        }
        if failed { throw SweepError(.ioError, "cannot finish the results file", subject: path, fix: "check free disk space") }
    }
}
