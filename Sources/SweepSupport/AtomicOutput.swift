import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An output file written under a temporary name in the same folder and renamed into
/// place only when complete, so a failed run never leaves a partial file and never
/// damages a file already at the destination.
///
/// It has one owner (it is not copyable): ``commit()`` consumes it, and dropping it
/// without a commit removes the temporary file. The SIGINT/SIGTERM handler removes it too
/// (see ``TempFileRegistry``).
package struct AtomicOutput: ~Copyable {
    /// The final path.
    package let destination: String
    /// The temporary file's name, renamed to ``destination`` on commit.
    package let temporaryPath: String
    /// The path a writer opens to write the output: the temporary file through its open
    /// descriptor (`/proc/self/fd/N`), so a writer that opens it after a signal's handler
    /// removed the name writes to the unlinked file instead of creating the name again (the
    /// temporary path itself where `/proc` is missing); the destination when written directly.
    package let writePath: String
    /// The temporary file, open since ``init(destination:)``; -1 when written directly.
    private let descriptor: Int32
    /// The destination is a device or pipe (`/dev/stdout`, `/dev/full`): written directly,
    /// never renamed over or removed.
    package let isDirect: Bool
    private var done = false

    /// Creates an empty temporary file beside `destination`, registered for removal on a
    /// signal (``TempFileRegistry/createFile(_:)``).
    ///
    /// - Throws: ``SweepError/Code/cannotCreate`` when the folder is missing or unwritable.
    package init(destination: String) throws {
        self.destination = destination
        let url = URL(fileURLWithPath: destination)
        let dir = url.deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw SweepError(
                .cannotCreate, "the output folder does not exist", subject: destination,
                fix: "create \(dir) first or choose another path")
        }
        var isDirDest: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirDest), isDirDest.boolValue {
            throw SweepError(
                .cannotCreate, "the output path is a folder", subject: destination,
                fix: "give a file name such as \(destination)/out.gif")
        }
        if Self.writesDirectly(to: destination) {
            (isDirect, temporaryPath, writePath, descriptor) = (true, destination, destination, -1)
            return
        }
        guard access(dir, W_OK) == 0 else {
            throw SweepError(
                .cannotCreate, "the output folder is not writable", subject: destination,
                fix: "choose a folder you can write to")
        }
        // Same folder, so the final rename is atomic; hidden, so a crash leaves no look-alike.
        let path = Self.temporaryName(beside: destination)
        switch TempFileRegistry.shared.createFile(path) {
        case .created(let fd):
            (isDirect, temporaryPath, descriptor) = (false, path, fd)
            writePath = Self.hasProcFDs ? "/proc/self/fd/\(fd)" : path
        case .failed(let err):
            throw SweepError(
                .cannotCreate, "cannot create a file in \(dir) (\(String(cString: strerror(err))))", subject: destination,
                fix: "choose a folder you can write to")
        case .refused:
            TempFileRegistry.shared.yieldToSignal()
            throw SweepError(.cannotCreate, "interrupted", subject: destination, fix: "run it again")
        }
    }

    /// Whether this system shows a process's open files as `/proc/self/fd/N` (Linux with
    /// /proc mounted).
    private static let hasProcFDs = access("/proc/self/fd", F_OK) == 0

    /// Whether `path` is a device or a pipe (`/dev/stdout`, `/dev/full`): there is nothing
    /// to replace atomically, and renaming over it (as root) would destroy it, so it is
    /// written straight to (and a size cap cannot try and retry).
    package static func writesDirectly(to path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG
    }

    /// A fresh hidden name in `path`'s folder, `.NAME.PID.N.tmp`.
    package static func temporaryName(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().path + "/.\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    }

    /// Moves the finished file into place (flushing it to disk first).
    ///
    /// - Throws: ``SweepError/Code/cannotCreate`` when the rename fails; the temporary
    ///   file is removed and the destination is untouched.
    package consuming func commit() throws {
        done = true
        if isDirect { return }
        _ = fsync(descriptor)
        close(descriptor)
        if rename(temporaryPath, destination) != 0 {
            let err = String(cString: strerror(errno))
            unlink(temporaryPath)
            TempFileRegistry.shared.remove(temporaryPath)
            throw SweepError(
                .cannotCreate, "cannot move the finished file into place (\(err))", subject: destination,
                fix: "check the folder's permissions")
        }
        TempFileRegistry.shared.remove(temporaryPath)
    }

    /// Removes the temporary file; the destination is untouched.
    package consuming func discard() {}

    deinit {
        guard !done, !isDirect else { return }
        close(descriptor)
        unlink(temporaryPath)
        TempFileRegistry.shared.remove(temporaryPath)
    }
}
