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
    /// The final path, as the user gave it (for messages).
    package let destination: String
    /// What is renamed over: ``destination`` through its folder's descriptor when a batch
    /// holds that folder (``OpenedFiles``), so a folder swapped for a link after the checks
    /// changes nothing; otherwise ``destination`` itself.
    private let target: String
    /// The temporary file's name, renamed to ``destination`` on commit.
    package let temporaryPath: String
    /// The path a writer opens to write the output: the temporary file through its open
    /// descriptor (`/proc/self/fd/N`), so a writer that opens it after a signal's handler
    /// removed the name writes to the unlinked file instead of creating the name again (the
    /// temporary path itself where `/proc` is missing); the destination when written directly.
    package let writePath: String
    /// The temporary file, open since ``init(destination:)``; -1 when written directly.
    private let descriptor: Int32
    /// The mode the umask gave the temporary file, set again on commit when it lacked the
    /// owner's read or write permission (-1 otherwise; see ``init(destination:)``).
    private let finalMode: Int32
    /// The destination is a device, a pipe or a name in `/dev` or `/proc` (see
    /// ``writesDirectly(to:)``): written directly, never renamed over or removed.
    package let isDirect: Bool
    private var done = false

    /// Creates an empty temporary file beside `destination`, registered for removal on a
    /// signal (``TempFileRegistry/createFile(_:)``).
    ///
    /// - Throws: ``SweepError/Code/cannotCreate`` when the folder is missing or unwritable.
    package init(destination: String) throws {
        self.destination = destination
        target = OpenedFiles.shared.physical(destination)
        let named = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        let dir = URL(fileURLWithPath: target).deletingLastPathComponent().path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw SweepError(
                .cannotCreate, "the output folder does not exist", subject: destination,
                fix: "create \(named) first or choose another path")
        }
        var isDirDest: ObjCBool = false
        if FileManager.default.fileExists(atPath: target, isDirectory: &isDirDest), isDirDest.boolValue {
            throw SweepError(
                .cannotCreate, "the output path is a folder", subject: destination,
                fix: "give a file name such as \(destination)/out.gif")
        }
        if Self.writesDirectly(to: destination) {
            isDirect = true
            temporaryPath = target
            writePath = target
            descriptor = -1
            finalMode = -1
            return
        }
        guard access(dir, W_OK) == 0 else {
            throw SweepError(
                .cannotCreate, "the output folder is not writable", subject: destination,
                fix: "choose a folder you can write to")
        }
        // Same folder, so the final rename is atomic; hidden, so a crash leaves no look-alike.
        let path = Self.temporaryName(beside: target)
        switch TempFileRegistry.shared.createFile(path) {
        case .created(let fd):
            // Writers reopen the file through its descriptor's path, which checks its mode: a
            // umask such as 0277 made it read-only, and every output failed. It stays the
            // owner's to read and write until the commit gives it the umask's mode.
            isDirect = false
            temporaryPath = path
            descriptor = fd
            finalMode = Self.ownerReadWrite(fd)
            writePath = Self.hasProcFDs ? "/proc/self/fd/\(fd)" : path
        case .failed(let err):
            throw Self.creationFailure(err, creating: "a file", in: named, subject: destination, fix: "choose a folder you can write to")
        case .refused:
            throw Self.interrupted(subject: destination)
        }
    }

    /// Gives the open file `fd` its owner's read and write permission if its mode lacks
    /// them, and returns the mode it had then (-1 when it needed nothing).
    private static func ownerReadWrite(_ fd: Int32) -> Int32 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return -1 }
        let mode = info.st_mode & 0o777
        guard mode & 0o600 != 0o600, fchmod(fd, mode | 0o600) == 0 else { return -1 }
        return Int32(mode)
    }

    /// Why a temporary file or folder (`what`) could not be created in `folder`, in words: a
    /// full disk is an I/O error (exit 74), as when writing; `fix` is for any other cause.
    package static func creationFailure(
        _ err: Int32, creating what: String, in folder: String, subject: String, fix: String
    ) -> SweepError {
        let reason = String(cString: strerror(err))
        switch err {
        case ENOSPC, EDQUOT:
            return SweepError(.ioError, "no space left in \(folder) (\(reason))", subject: subject, fix: "free some disk space")
        case ENAMETOOLONG:
            return SweepError(.cannotCreate, "the path is too long", subject: subject, fix: "use a shorter path")
        default:
            return SweepError(.cannotCreate, "cannot create \(what) in \(folder) (\(reason))", subject: subject, fix: fix)
        }
    }

    /// What a creation the registry refused (``TempFileRegistry/Creation/refused``) throws,
    /// after waiting for the signal being handled to end the process
    /// (``TempFileRegistry/yieldToSignal()``): the error is never reported, and stands only
    /// where the wait returns.
    package static func interrupted(subject: String) -> SweepError {
        TempFileRegistry.shared.yieldToSignal()
        return SweepError(.cannotCreate, "interrupted", subject: subject, fix: "run it again")
    }

    /// Whether this system shows a process's open files as `/proc/self/fd/N` (Linux with
    /// /proc mounted).
    private static let hasProcFDs = access("/proc/self/fd", F_OK) == 0

    /// Whether `path` is a device or a pipe (`/dev/full`), or any name in `/dev`, `/dev/fd`
    /// or `/proc` (`/dev/stdout`): there is nothing to replace atomically, and renaming over
    /// it (as root) would destroy it, so it is written straight to (and a size cap cannot try
    /// and retry). `/dev/stdout` names whatever the shell redirected to, often a regular file;
    /// a temporary file beside it would have been renamed over the link itself. (Folders
    /// such as `/dev/shm` hold ordinary files, written as anywhere else.)
    package static func writesDirectly(to path: String) -> Bool {
        let standard = URL(fileURLWithPath: path).standardized
        let folder = standard.deletingLastPathComponent().path
        if folder == "/dev" || folder == "/dev/fd" || standard.path.hasPrefix("/proc/") { return true }
        var info = stat()
        return stat(OpenedFiles.shared.physical(path), &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG
    }

    /// A fresh hidden name in `path`'s folder, `.NAME.PID.N.tmp`, with NAME cut to its first
    /// 200 bytes (a whole character at a time): a name near the 255-byte limit is legal, and
    /// its temporary name must be too.
    package static func temporaryName(beside path: String) -> String {
        let url = URL(fileURLWithPath: path)
        var name = url.lastPathComponent
        while name.utf8.count > 200 { name.removeLast() }
        return url.deletingLastPathComponent().path + "/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    }

    /// Moves the finished file into place (flushing it to disk first).
    ///
    /// - Throws: ``SweepError/Code/ioError`` when the flush to disk fails (an I/O error, a
    ///   full disk); ``SweepError/Code/cannotCreate`` when the rename fails. Either way the
    ///   temporary file is removed and the destination is untouched.
    package consuming func commit() throws {
        done = true
        if isDirect { return }
        let synced = fsync(descriptor) == 0 ? 0 : errno
        if finalMode >= 0 { fchmod(descriptor, mode_t(finalMode)) }
        close(descriptor)
        var failure: SweepError?
        if synced == EIO || synced == ENOSPC || synced == EDQUOT || synced == EFBIG {
            failure = .writeFailed("writing failed", errno: synced, subject: destination)
        } else if rename(temporaryPath, target) != 0 {
            failure = SweepError(
                .cannotCreate, "cannot move the finished file into place (\(String(cString: strerror(errno))))",
                subject: destination, fix: "check the folder's permissions")
        }
        // Unlinked before it leaves the registry, so a signal in between still removes it.
        if failure != nil { unlink(temporaryPath) }
        TempFileRegistry.shared.remove(temporaryPath)
        if let failure { throw failure }
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
