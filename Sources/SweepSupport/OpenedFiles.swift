import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Files and folders already opened for a path, which every open of that path in this
/// process goes through instead of the path: a batch opens a job's inputs and output folder
/// beneath its confined folders (``ConfinedFolder``) and holds them here for the job, so the
/// decoders, the sinks and the decode worker read and write exactly what was opened, whatever
/// happens to the path meanwhile. Messages keep naming the path.
///
/// Paths are compared made absolute, with `.` and `..` applied lexically. Outside a batch the
/// table is empty and every path is itself.
package final class OpenedFiles: Sendable {
    package static let shared = OpenedFiles()

    private struct Entry {
        var descriptor: Int32
        var holds: Int
        var isFolder: Bool
    }

    private let table = Mutex<[String: Entry]>([:])

    /// Whether this system shows a process's open files as `/proc/self/fd/N`.
    private static let hasProcFDs = access("/proc/self/fd", F_OK) == 0

    /// Holds `descriptor` (taking ownership) as what `path` means until as many
    /// ``release(_:)`` as holds. When the path is held already, the first descriptor stays and
    /// this one is closed.
    package func hold(_ descriptor: Int32, for path: String, isFolder: Bool) {
        let key = Self.key(path)
        let extra: Int32? = table.withLock { table in
            if var entry = table[key] {
                entry.holds += 1
                table[key] = entry
                return descriptor
            }
            table[key] = Entry(descriptor: descriptor, holds: 1, isFolder: isFolder)
            return nil
        }
        if let extra { close(extra) }
    }

    /// Gives up one hold of `path`; the last closes its descriptor.
    package func release(_ path: String) {
        let key = Self.key(path)
        let closing: Int32? = table.withLock { table in
            guard var entry = table[key] else { return nil }
            entry.holds -= 1
            if entry.holds > 0 {
                table[key] = entry
                return nil
            }
            table[key] = nil
            return entry.descriptor
        }
        if let closing { close(closing) }
    }

    /// The descriptor held for the file `path`, if any (for passing it to another process,
    /// which must not be given the path).
    package func descriptor(of path: String) -> Int32? {
        let key = Self.key(path)
        return table.withLock { table in table[key].flatMap { $0.isFolder ? nil : $0.descriptor } }
    }

    /// What to open for `path`: the held file (`/proc/self/fd/N`), or the name in its held
    /// folder (`/proc/self/fd/N/NAME`), or `path` itself when neither is held.
    package func physical(_ path: String) -> String {
        guard Self.hasProcFDs, table.withLock({ !$0.isEmpty }) else { return path }
        let key = Self.key(path)
        let slash = key.lastIndex(of: "/") ?? key.startIndex
        let folder = slash == key.startIndex ? "/" : String(key[..<slash])
        let name = key[key.index(after: slash)...]
        return table.withLock { table in
            if let file = table[key], !file.isFolder { return "/proc/self/fd/\(file.descriptor)" }
            if let dir = table[folder], dir.isFolder, !name.isEmpty { return "/proc/self/fd/\(dir.descriptor)/\(name)" }
            return path
        }
    }

    /// `path` made absolute against the current folder, with `.` and `..` applied by name.
    package static func key(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in absolute.split(separator: "/") where part != "." {
            if part == ".." {
                _ = parts.popLast()
            } else {
                parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
