import Foundation
import SweepPipeline
import SweepRequest
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A folder a batch's jobs must stay in: `--out-dir` (default: the current folder) for
/// outputs, `--in-dir` (default: the jobs file's folder) for the files a job reads.
///
/// Job lines come from strangers, so a path such as `../../home/me/.bashrc`, an absolute
/// path elsewhere, or a path through a symlink that leads out is refused unless
/// `--allow-absolute` lifts the restriction: a job can neither write over nor read (nor
/// learn whether there is) a file outside its folders. Paths are compared after resolving
/// everything that exists (symlinks included); the rest is taken lexically, as it will be
/// created. The check is made again when a job runs, by opening its files beneath the folder
/// (``open(_:at:)``, ``openFolder(of:at:)``), so a folder swapped for a link in between
/// changes nothing.
struct JobFolder {
    /// What the folder holds, for messages and the rule on absolute paths.
    enum Role: String { case input, output }

    let role: Role
    /// The folder as given (relative paths are joined to it).
    let path: String
    /// The folder's real path.
    let canonical: String
    /// `--allow-absolute`: any path is accepted.
    let allowAbsolute: Bool
    /// The folder, open: what a job's paths are opened beneath (nil with `--allow-absolute`).
    let confined: ConfinedFolder?

    /// The output folder `folder` (default: the current folder), created when missing.
    ///
    /// - Throws: `.cannotCreate` when the folder cannot be created.
    init(outputs folder: String?, allowAbsolute: Bool) throws {
        path = folder ?? "."
        role = .output
        self.allowAbsolute = allowAbsolute
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw SweepError(.cannotCreate, "cannot create the output folder", subject: path, fix: "choose a folder you can write to")
        }
        canonical = Self.canonical(path)
        confined = allowAbsolute ? nil : try Self.open(path, option: "--out-dir")
    }

    /// The input folder `folder`, which must exist.
    ///
    /// - Throws: `.noInput` naming `--in-dir` when it is not a folder.
    init(inputs folder: String, allowAbsolute: Bool) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw SweepError(.noInput, "the input folder \(folder) does not exist", subject: "--in-dir", fix: "give an existing folder")
        }
        path = folder
        role = .input
        self.allowAbsolute = allowAbsolute
        canonical = Self.canonical(path)
        confined = allowAbsolute ? nil : try Self.open(path, option: "--in-dir")
    }

    private static func open(_ path: String, option: String) throws -> ConfinedFolder {
        guard let folder = ConfinedFolder(path: path) else {
            throw SweepError(
                .noInput, "cannot open the folder \(path) (\(String(cString: strerror(errno))))", subject: option,
                fix: "give a folder you can read")
        }
        return folder
    }

    /// Opens the file `joined` (a path ``resolve(_:at:)`` returned) beneath the folder, as a
    /// path-only descriptor, or nil with `--allow-absolute`.
    ///
    /// - Throws: `.dataError` naming `at` when it leaves the folder now (through a link made
    ///   since the check); the errors of opening a file (`.noInput`) otherwise.
    func open(_ joined: String, at: String) throws -> Int32? {
        guard let confined else { return nil }
        let fd = confined.openPathOnly(try relative(joined, at: at))
        guard fd >= 0 else { throw failure(errno, joined, at: at) }
        return fd
    }

    /// Creates the folder of the output `joined` beneath this folder (as a batch lays out
    /// many outputs, `out/2026/a.gif`) and opens it, or nil with `--allow-absolute`.
    ///
    /// - Throws: `.dataError` naming `at` when the way leaves the folder now; `.cannotCreate`
    ///   when a folder cannot be made.
    func openFolder(of joined: String, at: String) throws -> Int32? {
        guard let confined else { return nil }
        let name = try relative(joined, at: at)
        let folder = name.lastIndex(of: "/").map { String(name[..<$0]) } ?? "."
        let fd = confined.makeFolders(folder)
        guard fd >= 0 else {
            if errno == EXDEV { throw failure(errno, joined, at: at) }
            throw AtomicOutput.creationFailure(
                errno, creating: "a folder", in: path, subject: URL(fileURLWithPath: joined).deletingLastPathComponent().path,
                fix: "check that its parent is writable")
        }
        return fd
    }

    /// `joined` relative to the folder, as it was joined (an absolute input named inside the
    /// folder, as given or by its real path).
    private func relative(_ joined: String, at: String) throws -> String {
        if !joined.hasPrefix("/") {
            if path == "." { return joined }
            let base = path.hasSuffix("/") ? path : path + "/"
            if joined.hasPrefix(base) { return String(joined.dropFirst(base.count)) }
        }
        let key = OpenedFiles.key(joined)
        for base in [OpenedFiles.key(path), canonical] {
            if key == base { return "." }
            if Self.contains(base, key) { return String(key.dropFirst(base == "/" ? 1 : base.count + 1)) }
        }
        throw failure(EXDEV, joined, at: at)
    }

    /// Why opening `joined` beneath the folder failed: leaving it (EXDEV), or an ordinary
    /// failure to open.
    private func failure(_ err: Int32, _ joined: String, at: String) -> SweepError {
        guard err == EXDEV else { return FileBytes.openFailure(err, joined) }
        return SweepError(
            .dataError,
            "the \(role.rawValue) \(joined) leaves the \(role.rawValue) folder (\(path)), or reaches into it by an absolute symbolic link",
            subject: at, fix: "keep \(role.rawValue)s inside it (no .. or symlinks out; links inside relative), or pass --allow-absolute")
    }

    /// Where the job's path `name` is: joined to the folder when relative, checked.
    ///
    /// An output must be relative; an input may also be absolute inside the folder.
    ///
    /// - Throws: `.dataError` naming `at` (file:line) for a path that leaves the folder (or
    ///   an absolute output), unless absolute paths are allowed.
    func resolve(_ name: String, at: String) throws -> String {
        if allowAbsolute { return join(name) }
        let option = role == .input ? "--in-dir" : "--out-dir"
        if name.hasPrefix("/") && role == .output {
            throw SweepError(
                .dataError, "the output \(name) is an absolute path", subject: at,
                fix: "write it relative to the output folder (\(path)), or pass --allow-absolute")
        }
        let joined = join(name)
        guard Self.contains(canonical, Self.canonical(joined)) else {
            throw SweepError(
                .dataError, "the \(role.rawValue) \(name) leaves the \(role.rawValue) folder (\(path))", subject: at,
                fix: "keep \(role.rawValue)s inside it (no .. or symlinks out), or pass \(option) or --allow-absolute")
        }
        return joined
    }

    /// `name` joined to the folder (an absolute name as it is).
    private func join(_ name: String) -> String {
        name.hasPrefix("/") || path == "." ? name : path.hasSuffix("/") ? path + name : path + "/" + name
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

extension BatchJob {
    /// The job with every file it reads (its inputs, and preset, look and format files)
    /// resolved in `folder`.
    ///
    /// - Throws: `.dataError` naming `at` for a file outside the folder.
    func reading(from folder: JobFolder, at: String) throws -> BatchJob {
        var job = self
        job.inputs = try inputs.map { try folder.resolve($0, at: at) }
        job.options = try options.map { option in
            guard Self.fileOptions.contains(option.name), let value = option.value, PresetLibrary.isPath(value) else { return option }
            return Given(name: option.name, value: try folder.resolve(value, at: at))
        }
        return job
    }
}
