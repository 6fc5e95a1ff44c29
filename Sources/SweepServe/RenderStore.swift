import Foundation
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The `--store` folder: one folder per render, named by its random id, holding the uploads
/// under fixed names (`before.EXT`, `after.EXT`), the output, and `record.json`.
package struct RenderStore: Sendable {
    package let root: String

    /// The record's file name in a render's folder.
    static let recordName = "record.json"

    /// Opens (creating) `root`.
    ///
    /// - Throws: `.cannotCreate` when it cannot be made.
    package init(root: String) throws {
        self.root = root
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            throw SweepError(.cannotCreate, "cannot create the store", subject: root, fix: "choose a folder you can write to")
        }
    }

    /// A new random id (128 bits, hex).
    package static func newID() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(format: "%016llx", g.next() as UInt64) }.joined()
    }

    /// True for what ``newID()`` makes: 32 lower-case hex digits (nothing else names a folder).
    package static func isID(_ s: String) -> Bool {
        s.utf8.count == 32 && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// The folder of render `id`.
    package func folder(_ id: String) -> String { root + "/" + id }

    /// Makes a new render's folder (private to the server) and returns its id.
    ///
    /// - Throws: `.cannotCreate`.
    package func create() throws -> String {
        let id = Self.newID()
        guard mkdir(folder(id), 0o700) == 0 else {
            throw SweepError(.cannotCreate, "cannot create a render folder (\(String(cString: strerror(errno))))", subject: "store")
        }
        return id
    }

    /// Writes `record` into its folder, whole or not at all (a temporary file renamed);
    /// false when it could not (a full disk).
    @discardableResult
    package func save(_ record: RenderRecord) -> Bool {
        guard let data = try? JSONEncoder().encode(record) else { return false }
        let path = folder(record.id) + "/" + Self.recordName
        let temp = folder(record.id) + "/.record.json.tmp"
        guard FileManager.default.createFile(atPath: temp, contents: data) else { return false }
        guard rename(temp, path) == 0 else {
            unlink(temp)
            return false
        }
        return true
    }

    /// Render `id`'s record as last saved, or nil when it has none (or it is unreadable).
    package func load(_ id: String) -> RenderRecord? {
        guard Self.isID(id), let data = FileManager.default.contents(atPath: folder(id) + "/" + Self.recordName) else { return nil }
        return try? JSONDecoder().decode(RenderRecord.self, from: data)
    }

    /// The ids with a folder in the store.
    package func ids() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter(Self.isID)
    }

    /// Removes render `id`'s folder and everything in it.
    package func remove(_ id: String) {
        guard Self.isID(id) else { return }
        try? FileManager.default.removeItem(atPath: folder(id))
    }

    /// Removes every file in render `id`'s folder but its record (an unfinished render's
    /// uploads and partial files).
    package func clear(_ id: String) {
        let dir = folder(id)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name != Self.recordName {
            try? FileManager.default.removeItem(atPath: dir + "/" + name)
        }
    }

    /// Removes a finished render's uploads (its output and record stay).
    package func removeUploads(_ id: String) {
        let dir = folder(id)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        where name.hasPrefix("before") || name.hasPrefix("after") {
            try? FileManager.default.removeItem(atPath: dir + "/" + name)
        }
    }

    /// Reads the store after a start: a render that was not finished (the server was killed)
    /// is marked failed and its files removed; an id's folder without a record (an upload cut
    /// short) is removed; expired renders go. Files not named like an id are not touched.
    package func recover(keep: Double, now: Double = Date().timeIntervalSince1970) -> [RenderRecord] {
        var records: [RenderRecord] = []
        // Only names shaped like ids are the server's: anything else in the folder is left alone.
        for name in ids() {
            let dir = root + "/" + name
            guard var record = load(name), record.id == name
            else {
                try? FileManager.default.removeItem(atPath: dir)
                continue
            }
            if !record.state.isFinal {
                record.state = .failed
                record.error = "interrupted by a restart"
                record.exit = 75
                record.finished = now
                clear(name)
                save(record)
            }
            if let finished = record.finished, finished + keep < now {
                remove(name)
                continue
            }
            records.append(record)
        }
        return records
    }
}
