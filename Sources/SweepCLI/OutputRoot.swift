import Foundation
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The folder a batch's outputs must stay in: the current folder, or `--out-dir`.
///
/// Job lines come from strangers, so an output such as `../../home/me/.bashrc`, an absolute
/// path, or a path through a symlinked folder that leads elsewhere is refused unless
/// `--allow-absolute` lifts the restriction. Paths are compared after resolving every
/// folder that exists (symlinks included); the rest is taken lexically, as it will be created.
struct OutputRoot {
    /// The root as given (outputs are joined to it).
    let path: String
    /// The root's real path.
    let canonical: String
    /// `--allow-absolute`: any output path is accepted.
    let allowAbsolute: Bool

    /// The root `folder` (default: the current folder), created when missing.
    ///
    /// - Throws: `.cannotCreate` when the folder cannot be created.
    init(folder: String?, allowAbsolute: Bool) throws {
        path = folder ?? "."
        self.allowAbsolute = allowAbsolute
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw SweepError(.cannotCreate, "cannot create the output folder", subject: path, fix: "choose a folder you can write to")
        }
        canonical = Self.canonical(path)
    }

    /// Where the job's `output` is written: under the root, checked.
    ///
    /// - Throws: `.dataError` naming `at` (file:line) for an absolute path or one that leaves
    ///   the root, unless absolute paths are allowed.
    func resolve(_ output: String, at: String) throws -> String {
        if output.hasPrefix("/") {
            guard allowAbsolute else {
                throw SweepError(
                    .dataError, "the output \(output) is an absolute path", subject: at,
                    fix: "write it relative to the output folder (\(path)), or pass --allow-absolute")
            }
            return output
        }
        let joined = path == "." ? output : path + "/" + output
        if !allowAbsolute && !Self.contains(canonical, Self.canonical(joined)) {
            throw SweepError(
                .dataError, "the output \(output) leaves the output folder (\(path))", subject: at,
                fix: "keep outputs inside it (no .. or symlinks out), or pass --allow-absolute")
        }
        return joined
    }

    /// True when `inner` is `outer` or inside it (both canonical).
    static func contains(_ outer: String, _ inner: String) -> Bool {
        outer == "/" || inner == outer || inner.hasPrefix(outer + "/")
    }

    /// `path` made absolute, with `.` and `..` applied and every existing folder on the way
    /// resolved to its real path (symlinks followed); the missing rest is taken as written.
    static func canonical(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var current = ""  // "" stands for the root folder
        var existing = true
        for part in absolute.split(separator: "/") where part != "." {
            if part == ".." {
                // `current` has no symlinks left in it, so its parent is the real parent.
                current = String(current[..<(current.lastIndex(of: "/") ?? current.startIndex)])
                continue
            }
            let next = current + "/" + part
            if existing, let real = realpath(next, nil) {
                current = String(cString: real)
                free(real)
                if current == "/" { current = "" }
            } else {
                existing = false
                current = next
            }
        }
        return current.isEmpty ? "/" : current
    }
}
