import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension TempFileRegistry {
    /// Removes `path`: a file, or a folder with the files in it (one level, as staged
    /// outputs have).
    ///
    /// A folder is first renamed away, so that a writer still running on another thread
    /// (the signal handler's case) cannot add a file to it after it was listed.
    package static func removeTree(_ path: String) {
        if unlink(path) == 0 || errno != EISDIR { return }
        let doomed = path + ".removing"
        let folder = rename(path, doomed) == 0 ? doomed : path
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder) {
            for name in names { unlink(folder + "/" + name) }
        }
        rmdir(folder)
    }
}
