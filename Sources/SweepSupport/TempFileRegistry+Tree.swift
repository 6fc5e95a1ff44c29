#if canImport(Glibc)
import Glibc
#endif
import Foundation

extension TempFileRegistry {
    /// Removes `path`: a file, or a folder with the files in it (one level, as staged
    /// outputs have).
    package static func removeTree(_ path: String) {
        if unlink(path) == 0 || errno != EISDIR { return }
        if let names = try? FileManager.default.contentsOfDirectory(atPath: path) {
            for name in names { unlink(path + "/" + name) }
        }
        rmdir(path)
    }
}
