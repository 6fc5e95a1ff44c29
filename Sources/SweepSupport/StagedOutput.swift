import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A hidden file beside an output where a run that writes several versions of it (a size
/// cap's attempts, each committed whole with ``AtomicOutput``) keeps the best so far, so
/// that nothing appears under the output's name until the run is done.
///
/// Registered for removal on a signal (``TempFileRegistry``); dropping it without
/// ``commit()`` removes it, and the destination is untouched.
package struct StagedOutput: ~Copyable {
    /// The final path.
    package let destination: String
    /// The hidden file the versions are written to (an ``AtomicOutput`` destination).
    package let path: String
    /// What is created, renamed and removed: ``path`` and ``destination`` through their
    /// folder's descriptor when a batch holds it (``OpenedFiles``), as ``AtomicOutput`` does.
    private let stage: String, target: String
    private var done = false

    /// Creates the hidden, empty stage file beside `destination`.
    ///
    /// - Throws: ``SweepError/Code/cannotCreate`` (or `ioError` for a full disk) when the
    ///   folder cannot take it.
    package init(destination: String) throws {
        self.destination = destination
        let name = AtomicOutput.temporaryName(beside: destination)
        let folder = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        stage = OpenedFiles.shared.physical(name)
        target = OpenedFiles.shared.physical(destination)
        switch TempFileRegistry.shared.createFile(stage) {
        case .created(let fd): close(fd)
        case .failed(let err):
            throw AtomicOutput.creationFailure(
                err, creating: "a file", in: folder, subject: destination, fix: "choose a folder you can write to")
        case .refused: throw AtomicOutput.interrupted(subject: destination)
        }
        path = name
    }

    /// Moves the stage, as last written, into place.
    ///
    /// - Throws: ``SweepError/Code/cannotCreate`` when the rename fails; the stage is then
    ///   removed and the destination untouched.
    package consuming func commit() throws {
        done = true
        let failed = rename(stage, target) != 0 ? errno : 0
        if failed != 0 { unlink(stage) }
        TempFileRegistry.shared.remove(stage)
        if failed != 0 {
            throw SweepError(
                .cannotCreate, "cannot move the finished file into place (\(String(cString: strerror(failed))))",
                subject: destination, fix: "check the folder's permissions")
        }
    }

    deinit {
        guard !done else { return }
        unlink(stage)
        TempFileRegistry.shared.remove(stage)
    }
}
