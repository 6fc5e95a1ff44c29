import Foundation
import SweepSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The bytes the store holds against `--max-store`: uploads counted as they stream (so the
/// quota stops an upload mid-way, not after it is whole), outputs when their render ends, and
/// every removal given back by the sizes of the files removed. Records are not counted.
package final class StoreUsage: Sendable {
    /// The quota, in bytes.
    package let limit: Int
    private let used: Mutex<Int>

    package init(limit: Int, used: Int = 0) {
        self.limit = limit
        self.used = Mutex(used)
    }

    /// Bytes counted now.
    package var bytes: Int { used.withLock { $0 } }

    /// Counts `n` more bytes of an upload; throws (and counts nothing) when they would pass the
    /// quota.
    package func charge(_ n: Int) throws {
        let ok = used.withLock { u -> Bool in
            guard u + n <= limit else { return false }
            u += n
            return true
        }
        guard ok else { throw HTTPFailure(Self.full(limit)) }
    }

    /// True when `n` more bytes fit now (an announced `Content-Length`).
    package func fits(_ n: Int) -> Bool { used.withLock { $0 + n <= limit } }

    /// Counts `n` bytes the store took whatever the quota (a finished render's output).
    package func add(_ n: Int) { used.withLock { $0 += n } }

    /// Gives back `n` bytes removed.
    package func release(_ n: Int) { used.withLock { $0 = max(0, $0 - n) } }

    /// 507 for an upload that would pass the quota.
    package static func full(_ limit: Int) -> HTTPResponse {
        .problem(
            507, "the store is full (--max-store \(limit) bytes); try again when renders have expired", headers: [("Retry-After", "60")])
    }

    /// The default quota: a quarter of the free space of the file system holding `folder` at
    /// start (so renders' outputs, logs and the rest of the machine keep the other three).
    package static func defaultLimit(for folder: String) -> Int {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return 10_000_000_000 }
        return Int(info.f_bavail) * Int(info.f_frsize) / 4
    }

    /// The bytes of the files under `path` (a file or a folder), records left out.
    package static func size(of path: String) -> Int {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.reduce(0) { $0 + size(of: path + "/" + $1) }
        }
        let name = (path as NSString).lastPathComponent
        if name == RenderStore.recordName || name == ".record.json.tmp" || name == RenderStore.specName { return 0 }
        return (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0
    }
}

/// An error that is its own HTTP answer (a status the CLI's exit codes do not map to, such as
/// 507).
package struct HTTPFailure: Error, Sendable {
    package let response: HTTPResponse
    package init(_ response: HTTPResponse) { self.response = response }
}
