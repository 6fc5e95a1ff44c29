#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SweepSupport

/// A hidden folder for the files of an output made of many files (a PNG sequence), removed
/// with everything in it when its owner drops it, and by the signal handler.
final class StagingFolder: Sendable {
    /// The folder's path.
    let path: String

    /// Creates a hidden folder named after `name`, in `name`'s folder.
    init(beside name: String, reportAs subject: String) throws {
        path = AtomicOutput.temporaryName(beside: name)
        guard mkdir(path, 0o700) == 0 else {
            let folder = URL(fileURLWithPath: name).deletingLastPathComponent().path
            throw SweepError(.cannotCreate, "cannot create a folder in \(folder) (\(String(cString: strerror(errno))))",
                             subject: subject, fix: "create the folder first, or choose one you can write to")
        }
        TempFileRegistry.shared.add(path)
    }

    /// The staged file for frame `i`.
    func path(_ i: Int) -> String { path + "/\(i).png" }

    deinit {
        TempFileRegistry.removeTree(path)
        TempFileRegistry.shared.remove(path)
    }
}
