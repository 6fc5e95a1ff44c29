import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Reads an input file whole, with errors that say what is really wrong (a stale `errno`
/// once called a device "No such file or directory").
enum InputFile {
    /// The largest input file read (a 100-megapixel image is far smaller).
    static let maxBytes = 1 << 30

    /// The bytes of the regular file at `path`.
    ///
    /// - Throws: ``SweepError/Code/noInput`` naming the cause: missing, a folder, a device
    ///   or pipe, a symbolic-link loop, no permission; ``SweepError/Code/dataError`` when
    ///   empty or over ``maxBytes``.
    static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            let (what, fix): (String, String) =
                switch e {
                case ENOENT: ("no such file", "check the path")
                case ENOTDIR: ("a folder on the path is a file", "check the path")
                case ELOOP: ("the path has a loop of symbolic links", "fix the links or give the file itself")
                case EACCES, EPERM: ("permission denied (the file or a folder on its path)", "check the permissions")
                case ENAMETOOLONG: ("the path is too long", "use a shorter path")
                default: ("cannot open the file (\(String(cString: strerror(e))))", "check the path and permissions")
                }
            throw SweepError(.noInput, what, subject: path, fix: fix)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw SweepError(
                .noInput, "cannot read the file (\(String(cString: strerror(errno))))", subject: path,
                fix: "check the path and permissions")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw SweepError(.noInput, "is a folder, not an image", subject: path, fix: "give an image file")
        default:
            throw SweepError(
                .noInput, "is not a regular file (a device, pipe or socket)", subject: path,
                fix: "save the image to a file first")
        }
        let size = Int(info.st_size)
        if size == 0 {
            throw SweepError(.dataError, "the file is empty", subject: path, fix: ImageDecoder.formatsFix)
        }
        guard size <= maxBytes else {
            throw SweepError(
                .dataError, "the file is \(size) bytes, over the limit of \(maxBytes >> 20) MiB", subject: path,
                fix: "give a smaller image file")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, size - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                if n == 0 { bytes.removeLast(size - done); break }  // the file shrank while read
                throw SweepError(
                    .noInput, "reading failed (\(String(cString: strerror(errno))))", subject: path,
                    fix: "check the disk and try again")
            }
            done += n
        }
        return bytes
    }
}
