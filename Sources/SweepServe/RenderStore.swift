import Foundation
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The `--store` folder: one folder per render, named by its random id, holding the uploads
/// under fixed names (`before.EXT`, `after.EXT`), the output, and `record.json`.
package struct RenderStore: Sendable {
    package let root: String
    /// The bytes held against the quota.
    package let usage: StoreUsage

    /// The record's file name in a render's folder.
    static let recordName = "record.json"
    /// The spec as the client sent it, kept until the render ends so that a restart can run it.
    static let specName = "spec.json"

    /// Opens (creating) `root`, with a quota of `quota` bytes (nil: a quarter of the free space
    /// now, ``StoreUsage/defaultLimit(for:)``).
    ///
    /// - Throws: `.cannotCreate` when it cannot be made.
    package init(root: String, quota: Int? = nil) throws {
        self.root = root
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            throw SweepError(.cannotCreate, "cannot create the store", subject: root, fix: "choose a folder you can write to")
        }
        usage = StoreUsage(limit: quota ?? StoreUsage.defaultLimit(for: root))
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
        discard(folder(id))
    }

    /// Removes `path` and gives its bytes back to the quota.
    private func discard(_ path: String) {
        let bytes = StoreUsage.size(of: path)
        if (try? FileManager.default.removeItem(atPath: path)) != nil { usage.release(bytes) }
    }

    /// Removes every file in render `id`'s folder but its record (an unfinished render's
    /// uploads and partial files).
    package func clear(_ id: String) {
        let dir = folder(id)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name != Self.recordName {
            discard(dir + "/" + name)
        }
    }

    /// Removes a finished render's uploads (its output and record stay).
    package func removeUploads(_ id: String) {
        let dir = folder(id)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        where name.hasPrefix("before") || name.hasPrefix("after") || name == Self.specName {
            discard(dir + "/" + name)
        }
    }

    /// Reads the store after a start: a queued render (never started, or stopped by a graceful
    /// stop) with its spec is returned as queued, to run again; one that was running (the
    /// server was killed under it) is marked failed and its files removed; an id's folder without a record (an upload cut
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
            // Queued (never started, or stopped by a graceful stop) with its spec: it runs
            // again. Running when the server died: it may be what killed it, so it fails
            // rather than run again.
            if record.state == .queued && FileManager.default.fileExists(atPath: dir + "/" + Self.specName) {
                records.append(record)
                continue
            }
            if !record.state.isFinal {
                record.error =
                    record.state == .running ? "interrupted by a restart" : "interrupted by a restart before its upload was kept"
                record.state = .failed
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
