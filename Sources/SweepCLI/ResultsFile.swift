#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import SweepSupport

/// The results JSONL, one line per finished job, flushed as it goes so that an
/// interrupted batch keeps what it finished.
final class ResultsFile: Sendable {
    /// The open stream; nil once closed. Only touched under the mutex, so workers'
    /// lines never interleave.
    private let handle: Mutex<UnsafeMutablePointer<FILE>?>
    let path: String

    init(path: String, append: Bool) throws {
        self.path = path
        guard let f = fopen(path, append ? "a" : "w") else {
            throw SweepError(.cannotCreate, "cannot write the results file", subject: path, fix: "choose a writable --results path")
        }
        handle = Mutex(f)
    }

    func append(_ record: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
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
            return fclose(f) != 0
        }
        if failed { throw SweepError(.ioError, "cannot finish the results file", subject: path) }
    }
}
