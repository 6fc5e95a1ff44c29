import CGIF
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The byte sink behind giflib's output callback. giflib's extension writers ignore write
/// errors, so the sink remembers the first failure itself and the writer checks it.
final class GIFFileSink {
    let path: String
    private var file: UnsafeMutablePointer<FILE>?
    private(set) var failure: Int32 = 0
    private(set) var bytesWritten = 0

    /// Opens `path` for writing; an error names `reportAs`, the path the user gave.
    init(path: String, reportAs: String) throws {
        self.path = path
        guard let f = fopen(path, "wb") else {
            throw SweepError(
                .cannotCreate, "cannot create the file (\(String(cString: strerror(errno))))", subject: reportAs,
                fix: "check the folder exists and is writable")
        }
        file = f
    }

    func write(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
        guard failure == 0, let file else { return 0 }
        let n = fwrite(bytes, 1, count, file)
        if n != count { failure = errno == 0 ? EIO : errno }
        bytesWritten += n
        return n
    }

    /// Flushes and closes; throws the first write error seen.
    func close(destination: String) throws {
        if let file {
            if fflush(file) != 0 && failure == 0 { failure = errno }
            if fclose(file) != 0 && failure == 0 { failure = errno }
            self.file = nil
        }
        if failure != 0 { throw SweepError.writeFailed("writing failed", errno: failure, subject: destination) }
    }

    deinit { if let file { fclose(file) } }
}

/// giflib output callback: routes bytes to the `GIFFileSink` in `UserData`.
let gifOutput: OutputFunc = { gif, bytes, count in
    guard let gif, let bytes, let user = gif.pointee.UserData else { return 0 }
    let sink = Unmanaged<GIFFileSink>.fromOpaque(user).takeUnretainedValue()
    return Int32(sink.write(bytes, Int(count)))
}
