#if canImport(Glibc)
import Glibc
#endif

/// Writing a whole byte buffer to a file with every error checked (short writes, disk
/// full on flush or close).
package enum FileBytes {
    /// Writes `bytes` to `path`; errors name `reportAs`, the path the user gave.
    package static func write(_ bytes: [UInt8], to path: String, reportAs: String) throws {
        guard let f = fopen(path, "wb") else {
            throw SweepError(.cannotCreate, "cannot create the file (\(String(cString: strerror(errno))))", subject: reportAs,
                             fix: "check the folder exists and is writable")
        }
        let n = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, f) }
        var failed = n != bytes.count ? errno : 0
        if fflush(f) != 0 && failed == 0 { failed = errno }
        if fclose(f) != 0 && failed == 0 { failed = errno }
        if failed != 0 {
            throw SweepError(.ioError, "writing failed (\(String(cString: strerror(failed))))", subject: reportAs,
                             fix: "check free disk space and permissions")
        }
    }

    /// The size of the file at `path` in bytes, 0 when there is none (a device reports 0 too).
    package static func size(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return 0 }
        return Int(info.st_size)
    }
}
