import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A file's identity, its device and inode: two spellings of one path, or two hard links,
/// have the same one.
struct FileID: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The identity of the file at `path` (following symlinks), if it exists.
    init?(path: String) {
        var info = stat()
        guard stat(OpenedFiles.shared.physical(path), &info) == 0 else { return nil }
        self.init(info)
    }
}
