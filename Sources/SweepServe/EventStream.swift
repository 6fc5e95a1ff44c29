import Foundation
import Synchronization

/// A render's Server-Sent Events: `progress` events as it moves, then one `state` event
/// with its final record (or `gone` when it is deleted, or `interrupted` when the server
/// stops first: the render is kept queued and starts again with the server), then the end.
package final class EventStream: Sendable {
    private struct Cursor {
        var last = -1.0
        var ended = false
        var idle = 0
    }

    private let cursor = Mutex(Cursor())
    private let id: String
    private let queue: RenderQueue
    private let stopping: @Sendable () -> Bool
    private let ended: @Sendable () -> Void

    /// `ended` is called once the stream is gone (finished, or its client left).
    package init(id: String, queue: RenderQueue, stopping: @escaping @Sendable () -> Bool, ended: @escaping @Sendable () -> Void = {}) {
        (self.id, self.queue, self.stopping, self.ended) = (id, queue, stopping, ended)
    }

    deinit { ended() }

    /// Seconds between comments on a quiet stream: they keep proxies from closing it, and a
    /// write is how a stream whose client left finds out, so this is how long its connection
    /// and thread outlive the client.
    static let keepAlive = 2.0

    /// The next event's bytes, waiting for one; nil at the end.
    package func next() -> [UInt8]? {
        while true {
            let event: String? = cursor.withLock { c in
                if c.ended { return "" }
                guard let r = queue.record(id) else {
                    c.ended = true
                    return Self.event("gone", ["id": id])
                }
                if r.state.isFinal {
                    c.ended = true
                    return Self.event("state", r.json)
                }
                if stopping() {
                    c.ended = true
                    return Self.event(
                        "interrupted",
                        ["id": id, "state": "queued", "reason": "the server is stopping; the render starts again when the server does"])
                }
                if r.progress != c.last {
                    c.last = r.progress
                    c.idle = 0
                    return Self.event("progress", ["id": id, "state": r.state.rawValue, "progress": (r.progress * 1000).rounded() / 1000])
                }
                c.idle += 1
                if Double(c.idle) * Self.tick >= Self.keepAlive {
                    c.idle = 0
                    return ": keep-alive\n\n"
                }
                return nil
            }
            if event == "" { return nil }
            if let event { return Array(event.utf8) }
            usleep(useconds_t(Self.tick * 1e6))
        }
    }

    /// Seconds between looks at the record.
    static let tick = 0.1

    /// One event: its name and a JSON data line.
    static func event(_ name: String, _ data: [String: Any]) -> String {
        let json = (try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return "event: \(name)\ndata: \(String(decoding: json, as: UTF8.self))\n\n"
    }
}
