#if canImport(Glibc)
    import Glibc
#endif

/// Writing a whole byte buffer to a file with every error checked (short writes, disk
/// full on flush or close).
package enum FileBytes {
    /// Writes `bytes` to `path`; errors name `reportAs`, the path the user gave.
    package static func write(_ bytes: [UInt8], to path: String, reportAs: String) throws {
        guard let f = fopen(path, "wb") else {
            throw SweepError(
                .cannotCreate, "cannot create the file (\(String(cString: strerror(errno))))", subject: reportAs,
                fix: "check the folder exists and is writable")
        }
        let n = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, f) }
        var failed = n != bytes.count ? errno : 0
        if fflush(f) != 0 && failed == 0 { failed = errno }
        if fclose(f) != 0 && failed == 0 { failed = errno }
        if failed != 0 {
            throw SweepError(
                .ioError, "writing failed (\(String(cString: strerror(failed))))", subject: reportAs,
                fix: "check free disk space and permissions")
        }
    }

    /// Reads at most `limit` bytes of the file at `path` (a regular file, a pipe or a
    /// device): a file from a stranger may be huge or endless (`/dev/zero`), and reading it
    /// whole would exhaust memory before any check ran.
    ///
    /// - Throws: `.noInput` when it cannot be opened, `.dataError` when it holds more than
    ///   `limit` bytes, `.ioError` when reading fails part-way; errors name `reportAs`.
    package static func read(_ path: String, limit: Int, reportAs: String? = nil) throws -> [UInt8] {
        let name = reportAs ?? path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SweepError(
                .noInput, "cannot read the file (\(String(cString: strerror(errno))))", subject: name,
                fix: "check the path and its permissions")
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            throw SweepError(.noInput, "is a folder, not a file", subject: name, fix: "give a file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw SweepError(
                    .ioError, "reading failed (\(String(cString: strerror(errno))))", subject: name,
                    fix: "check the file")
            }
            guard bytes.count + n <= limit else {
                throw SweepError(
                    .dataError, "the file is larger than \(limit) bytes, the most sweep reads here", subject: name,
                    fix: "split it or use a smaller file")
            }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    /// The size of the file at `path` in bytes, 0 when there is none (a device reports 0 too).
    package static func size(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return 0 }
        return Int(info.st_size)
    }
}
