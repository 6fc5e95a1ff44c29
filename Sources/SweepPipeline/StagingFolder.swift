import Foundation
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A hidden folder for the files of an output made of many files (a PNG sequence), removed
/// with everything in it when its owner drops it, and by the signal handler.
final class StagingFolder: Sendable {
    /// The folder's path.
    let path: String

    /// The folder this created to hold `name` (with `createFolder`), if it did: removed
    /// again if it is still empty when the staging folder goes, so a failed run leaves nothing.
    let createdFolder: String?

    /// Creates a hidden folder named after `name`, in `name`'s folder.
    ///
    /// - Parameter createFolder: create `name`'s folder when it is missing but its own
    ///   parent exists (one level: a mistyped deeper path still fails).
    init(beside name: String, reportAs subject: String, createFolder: Bool = false) throws {
        // Created in the folder held for `name`, if any (see OpenedFiles): never through a path
        // that may have changed since it was checked.
        let physical = OpenedFiles.shared.physical(name)
        let folder = URL(fileURLWithPath: physical).deletingLastPathComponent().path
        var info = stat()
        createdFolder = createFolder && stat(folder, &info) != 0 && mkdir(folder, 0o777) == 0 ? folder : nil
        path = AtomicOutput.temporaryName(beside: physical)
        switch TempFileRegistry.shared.createFolder(path) {
        case .created: break
        case .failed(let err):
            throw AtomicOutput.creationFailure(
                err, creating: "a folder", in: folder, subject: subject, fix: "create the folder first, or choose one you can write to")
        case .refused:
            throw AtomicOutput.interrupted(subject: subject)
        }
    }

    /// The staged file for frame `i`.
    func path(_ i: Int) -> String { path + "/\(i).png" }

    deinit {
        TempFileRegistry.removeTree(path)
        TempFileRegistry.shared.remove(path)
        if let createdFolder { rmdir(createdFolder) }  // fails, as it should, once frames are in it
    }
}
