#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SweepSupport

/// The results JSONL, one line per finished job, written to the batch's hidden temporary
/// file (an ``AtomicOutput`` the batch commits at the end).
final class ResultsFile: @unchecked Sendable {
    private let lock = NSLock()
    private let handle: UnsafeMutablePointer<FILE>
    let path: String

    /// Opens `path` (the temporary file) for writing; errors name `reportAs`.
    init(path: String, reportAs: String) throws {
        self.path = reportAs
        guard let f = fopen(path, "w") else {
            throw SweepError(.cannotCreate, "cannot write the results file", subject: path, fix: "choose a writable --results path")
        }
        handle = f
    }

    func append(_ record: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        lock.lock(); defer { lock.unlock() }
        _ = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, handle) }
        fputs("\n", handle)
        fflush(handle)
    }

    func close() throws {
        let failed = ferror(handle) != 0
        if fclose(handle) != 0 || failed {
            throw SweepError(.ioError, "cannot finish the results file", subject: path, fix: "check free disk space")
        }
    }
}
