import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What one batch job reads and the folder it writes in, opened beneath the batch's folders
/// when the job starts and held (``OpenedFiles``) until it ends: the decoders, the sinks, the
/// decode worker and the completion record then use exactly these, so a path swapped for a
/// link after the batch checked it changes nothing.
///
/// With `--allow-absolute` nothing is opened ahead: every path is the user's to give.
final class JobFiles {
    /// The paths held, each released once when the job ends.
    private var held: [String] = []

    /// Opens `reads` beneath `inputs` and creates and opens `output`'s folder beneath `outputs`.
    ///
    /// - Throws: `.dataError` naming `at` for a path that leaves its folder now; the errors of
    ///   opening a file or creating a folder otherwise. Nothing stays held when it throws.
    init(reads: [String], output: String, inputs: JobFolder, outputs: JobFolder, at: String) throws {
        do {
            for path in reads {
                guard let fd = try inputs.open(path, at: at) else { continue }
                OpenedFiles.shared.hold(fd, for: path, isFolder: false)
                held.append(path)
            }
            if let fd = try outputs.openFolder(of: output, at: at) {
                let folder = output.lastIndex(of: "/").map { $0 == output.startIndex ? "/" : String(output[..<$0]) } ?? "."
                OpenedFiles.shared.hold(fd, for: folder, isFolder: true)
                held.append(folder)
            }
        } catch {
            release()
            throw error
        }
    }

    private func release() {
        held.forEach { OpenedFiles.shared.release($0) }
        held = []
    }

    deinit { release() }
}
