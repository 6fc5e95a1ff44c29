#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SweepSupport

/// The results JSONL, one line per finished job, flushed as it goes so that an
/// interrupted batch keeps what it finished.
final class ResultsFile: @unchecked Sendable {
    private let lock = NSLock()
    private let handle: UnsafeMutablePointer<FILE>
    let path: String

    init(path: String, append: Bool) throws {
        self.path = path
        guard let f = fopen(path, append ? "a" : "w") else {
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
        if fclose(handle) != 0 { throw SweepError(.ioError, "cannot finish the results file", subject: path) }
    }
}
