#if canImport(Glibc)
    import Glibc
#endif

/// Writing a whole byte buffer to a file with every error checked (short writes, disk
/// full on flush or close).
package enum FileBytes {
    /// Writes `bytes` to `path`; errors name `reportAs`, the path the user gave.
    package static func write(_ bytes: [UInt8], to path: String, reportAs: String) throws {
        guard let f = fopen(OpenedFiles.shared.physical(path), "wb") else {
            throw SweepError(
                .cannotCreate, "cannot create the file (\(String(cString: strerror(errno))))", subject: reportAs,
                fix: "check the folder exists and is writable")
        }
        let n = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, f) }
        var failed = n != bytes.count ? errno : 0
        if fflush(f) != 0 && failed == 0 { failed = errno }
        if fclose(f) != 0 && failed == 0 { failed = errno }
        if failed != 0 { throw SweepError.writeFailed("writing failed", errno: failed, subject: reportAs) }
    }

    /// Reads at most `limit` bytes of the file at `path` (a regular file, a pipe or a
    /// device): a file from a stranger may be huge or endless (`/dev/zero`), and reading it
    /// whole would exhaust memory before any check ran.
    ///
    /// - Parameter regularFileOnly: refuse devices, pipes and sockets before reading (an
    ///   image must be a file; a FIFO is opened without waiting for a writer).
    /// - Throws: `.noInput` naming the cause when it cannot be opened (missing, a file used
    ///   as a folder, a loop of symbolic links, no permission), is a folder, or is not a
    ///   regular file when one is required; `.dataError` when it holds more than `limit`
    ///   bytes; `.ioError` when reading fails part-way. Errors name `reportAs`.
    package static func read(_ path: String, limit: Int, reportAs: String? = nil, regularFileOnly: Bool = false) throws
        -> [UInt8]
    {
        let name = reportAs ?? path
        let fd = open(OpenedFiles.shared.physical(path), O_RDONLY | O_CLOEXEC | (regularFileOnly ? O_NONBLOCK : 0))
        guard fd >= 0 else { throw openFailure(errno, name) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw SweepError(
                .noInput, "cannot read the file (\(String(cString: strerror(errno))))", subject: name,
                fix: "check the path and its permissions")
        }
        let type = info.st_mode & S_IFMT
        try checkType(type, name: name, regularFileOnly: regularFileOnly)
        let tooBig = SweepError(
            .dataError, "the file is larger than \(limit) bytes, the most sweep reads here", subject: name,
            fix: "split it or use a smaller file")
        var bytes: [UInt8] = []
        if type == S_IFREG {
            // A regular file says its size: refuse it unread, and read it into one buffer.
            guard Int(info.st_size) <= limit else { throw tooBig }
            bytes.reserveCapacity(Int(info.st_size))
        }
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
            guard bytes.count + n <= limit else { throw tooBig }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    /// Refuses a folder, and anything but a regular file when `regularFileOnly`.
    static func checkType(_ type: mode_t, name: String, regularFileOnly: Bool) throws {
        if type == S_IFDIR {
            throw SweepError(.noInput, "is a folder, not a file", subject: name, fix: "give a file")
        }
        if regularFileOnly && type != S_IFREG {
            throw SweepError(
                .noInput, "is not a regular file (a device, pipe or socket)", subject: name,
                fix: "save it to a file first")
        }
    }

    /// Checks that `path` is a regular file that can be opened for reading, with the same
    /// errors as ``read(_:limit:reportAs:regularFileOnly:)`` (for readers that open it themselves).
    package static func checkReadable(_ path: String) throws { _ = try prefix(path, count: 0) }

    /// The first `count` bytes of the regular file at `path` (fewer when it is shorter), with
    /// the errors of ``checkReadable(_:)``: enough to tell what kind of file it is.
    package static func prefix(_ path: String, count: Int) throws -> [UInt8] {
        let fd = open(OpenedFiles.shared.physical(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw openFailure(errno, path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw openFailure(errno, path) }
        try checkType(info.st_mode & S_IFMT, name: path, regularFileOnly: true)
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + got, count - got) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw SweepError(.ioError, "reading failed (\(String(cString: strerror(errno))))", subject: path, fix: "check the file")
            }
            got += n
        }
        return Array(bytes[0..<got])
    }

    /// Why `open` failed, in words and with a fix, one case per errno: each cause a user can
    /// act on (a missing file, a loop of symbolic links, a permission) is told apart from the
    /// others, where one catch-all line would send them looking for the wrong thing.
    package static func openFailure(_ e: Int32, _ name: String) -> SweepError {
        let (what, fix): (String, String) =
            switch e {
            case ENOENT: ("no such file", "check the path")
            case ENOTDIR: ("a folder on the path is a file", "check the path")
            case ELOOP: ("the path has a loop of symbolic links", "fix the links or give the file itself")
            case EACCES, EPERM: ("permission denied (the file or a folder on its path)", "check the permissions")
            case ENAMETOOLONG: ("the path is too long", "use a shorter path")
            default: ("cannot open the file (\(String(cString: strerror(e))))", "check the path and permissions")
            }
        return SweepError(.noInput, what, subject: name, fix: fix)
    }

    /// The size of the file at `path` in bytes, 0 when there is none (a device reports 0 too).
    package static func size(_ path: String) -> Int {
        var info = stat()
        guard stat(OpenedFiles.shared.physical(path), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return 0 }
        return Int(info.st_size)
    }
}
