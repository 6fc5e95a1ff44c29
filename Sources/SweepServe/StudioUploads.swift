import Foundation
import Synchronization

/// The files the studio uploaded once so that the server draws its preview: what the browser
/// cannot decode (HEIC, HEIF, AVIF and HDR pictures, clips in any container). Each upload is
/// a folder of the store (``RenderStore``), charged to its quota like a render's, and goes
/// when the page deletes it, when it has not been used for ``idleSeconds``, or at the next
/// start (a folder without a record is removed then).
///
/// At most `limit` are held at once: a studio tab holds one, so a few are plenty, and a full
/// store answers 429 rather than take another render's disk.
package final class StudioUploads: Sendable {
    /// One held upload.
    private struct Held {
        var files: [String]
        /// When it was last used (seconds since 1970).
        var used: Double
        /// Frames being drawn from it now: its folder stays until they end.
        var users = 0
        /// Deleted while frames were drawn from it: removed when the last one ends.
        var doomed = false
        /// The clips' seconds and rate by their start (see ``clip(_:key:)``); nil: no clip.
        var clips: [String: ClipLength?] = [:]
    }

    /// How long the clips of an upload last from a start, and the before clip's frame rate.
    package struct ClipLength: Sendable {
        package let available: Double
        package let rate: Double
    }

    /// Seconds an upload is kept unused: a studio tab asks for frames while it is open.
    package static let idleSeconds = 600.0

    private let held = Mutex([String: Held]())
    private let store: RenderStore
    /// The most uploads held at once.
    package let limit: Int

    package init(store: RenderStore, limit: Int) {
        (self.store, self.limit) = (store, limit)
    }

    /// True when another upload may be held (after removing the idle ones).
    package var hasRoom: Bool {
        expire()
        return held.withLock { $0.count < limit }
    }

    /// Holds upload `id`'s `files` (before, then after); false when `limit` are held already.
    package func add(_ id: String, files: [String]) -> Bool {
        held.withLock { h in
            guard h.count < limit else { return false }
            h[id] = Held(files: files, used: Date().timeIntervalSince1970)
            return true
        }
    }

    /// Upload `id`'s files, kept until ``done(_:)``; nil when there is no such upload.
    package func use(_ id: String) -> [String]? {
        held.withLock { h in
            guard var u = h[id], !u.doomed else { return nil }
            u.users += 1
            u.used = Date().timeIntervalSince1970
            h[id] = u
            return u.files
        }
    }

    /// Ends a ``use(_:)``.
    package func done(_ id: String) {
        let remove = held.withLock { h -> Bool in
            guard var u = h[id] else { return false }
            u.users -= 1
            u.used = Date().timeIntervalSince1970
            if u.doomed && u.users == 0 {
                h[id] = nil
                return true
            }
            h[id] = u
            return false
        }
        if remove { store.remove(id) }
    }

    /// Removes upload `id` (once the frames drawn from it now end); false when there is none.
    package func remove(_ id: String) -> Bool {
        let now = held.withLock { h -> Bool? in
            guard var u = h[id], !u.doomed else { return nil }
            if u.users == 0 {
                h[id] = nil
                return true
            }
            u.doomed = true
            h[id] = u
            return false
        }
        guard let now else { return false }
        if now { store.remove(id) }
        return true
    }

    /// Removes the uploads unused for ``idleSeconds``.
    package func expire(now: Double = Date().timeIntervalSince1970) {
        let old = held.withLock { h -> [String] in
            let ids = h.filter { $0.value.users == 0 && $0.value.used + Self.idleSeconds < now }.map(\.key)
            for id in ids { h[id] = nil }
            return ids
        }
        for id in old { store.remove(id) }
    }

    /// What an earlier frame learnt of upload `id`'s clips from the start `key`: `.some(nil)`
    /// for an upload without clips, nil when nothing is known yet.
    package func clip(_ id: String, key: String) -> ClipLength?? {
        held.withLock { h in
            guard let u = h[id] else { return nil }
            // Without clips, no start changes anything.
            if let first = u.clips.first, first.value == nil { return .some(nil) }
            return u.clips[key]
        }
    }

    /// Remembers what ``clip(_:key:)`` answers.
    package func remember(_ id: String, key: String, _ length: ClipLength?) {
        held.withLock { h in h[id]?.clips[key] = .some(length) }
    }

    /// How many uploads are held.
    package var count: Int { held.withLock { $0.count } }
}
