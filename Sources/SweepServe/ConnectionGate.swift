import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Accepts the HTTP server's TCP connections and holds them to three limits before the
/// server reads a byte:
///
/// - at most `total` open at once, and at most `perAddress` from one client address (the
///   whole of 127/8 is loopback on Linux, so each loopback address counts apart); past
///   either, the client gets a JSON 503 or 429 and the connection is closed;
/// - a deadline for each request head, counted from the accept (or from the end of the
///   previous request on a kept-alive connection), which bytes arriving do not reset: a head
///   still incomplete past it gets a JSON 408 and the connection is shut down. libmicrohttpd's
///   own timeout is an idle timer that every byte resets, so a client sending one header byte
///   every few seconds would hold its thread for ever.
///
/// One thread runs the accept loop, the refusals and the deadline sweep. A refused client's
/// request head is read before it is answered (a Go client takes an answer that comes before
/// its request for a dead kept-alive connection), and the rest of the request is read and
/// dropped (up to ``drainLimit``, for at most ``lingerSeconds``) after the answer, so that it
/// reads the answer rather than a reset.
final class ConnectionGate: Sendable {
    private struct Peer {
        let fd: Int32
        let address: String
        /// When the current request head began (monotonic nanoseconds).
        var headStarted: UInt64
        /// True until the current request's head has arrived.
        var inHead = true
        /// Requests this connection has completed (a kept-alive connection idle past the
        /// deadline is closed without a 408: it sent nothing).
        var served = 0
    }

    private struct State {
        var peers: [UInt64: Peer] = [:]
        var byDescriptor: [Int32: UInt64] = [:]
        var perAddress: [String: Int] = [:]
        var next: UInt64 = 1
        var stopped = false
    }

    private let state = Mutex(State())
    private let listenSocket: Int32
    let perAddress: Int
    let total: Int
    let headSeconds: Double
    private let ended = DispatchSemaphore(value: 0)
    private let running = Mutex(false)

    /// The most of a refused client's request read and discarded.
    static let drainLimit = 1 << 20
    /// How long a refused client's connection stays open for its answer to be read.
    static let lingerSeconds = 2.0

    init(listenSocket: Int32, perAddress: Int, total: Int, headSeconds: Double) {
        (self.listenSocket, self.perAddress, self.total, self.headSeconds) = (listenSocket, perAddress, total, headSeconds)
        let flags = fcntl(listenSocket, F_GETFL)
        _ = fcntl(listenSocket, F_SETFL, flags | O_NONBLOCK)
    }

    /// Starts the accept loop; `admit` hands an accepted socket to the HTTP server (which
    /// closes it whatever it answers) and returns false when it could not take it.
    func start(admit: @escaping @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool) {
        running.withLock { $0 = true }
        let thread = Thread { [self] in
            loop(admit: admit)
            ended.signal()
        }
        thread.name = "sweep.serve.accept"
        thread.start()
    }

    /// Stops accepting (connections open carry on) and waits for the loop to end.
    func stop() {
        let wasRunning = state.withLock { s -> Bool in
            let was = !s.stopped
            s.stopped = true
            return was
        }
        shutdown(listenSocket, Int32(SHUT_RDWR))
        if wasRunning && running.withLock({ $0 }) { ended.wait() }
    }

    /// The server started serving the connection on `fd`: its serial (kept as the
    /// connection's context), or nil when the gate does not know it.
    func started(descriptor fd: Int32) -> UInt64? { state.withLock { $0.byDescriptor[fd] } }

    /// The connection `serial` is closed (before its socket is: libmicrohttpd notifies, then
    /// closes). Calling it twice is harmless.
    func closed(serial: UInt64) {
        state.withLock { s in
            guard let peer = s.peers.removeValue(forKey: serial) else { return }
            if s.byDescriptor[peer.fd] == serial { s.byDescriptor[peer.fd] = nil }
            let n = (s.perAddress[peer.address] ?? 1) - 1
            s.perAddress[peer.address] = n > 0 ? n : nil
        }
    }

    /// The connection on `fd` has a complete request head: the deadline no longer applies.
    func headArrived(descriptor fd: Int32) {
        state.withLock { s in
            if let serial = s.byDescriptor[fd] { s.peers[serial]?.inHead = false }
        }
    }

    /// The connection on `fd` finished a request: its next head has the deadline, from now.
    func requestEnded(descriptor fd: Int32) {
        state.withLock { s in
            guard let serial = s.byDescriptor[fd], var peer = s.peers[serial] else { return }
            peer.inHead = true
            peer.served += 1
            peer.headStarted = DispatchTime.now().uptimeNanoseconds
            s.peers[serial] = peer
        }
    }

    /// Connections open now.
    var open: Int { state.withLock { $0.peers.count } }

    /// A refused connection: its request head is read first (a client that gets an answer
    /// before it has sent its request takes it for a broken connection), then the answer is
    /// sent, and the rest of the request is read and dropped until the client closes.
    private struct Lingering {
        let fd: Int32
        let status: Int
        let message: String
        /// When the head must have come by (then the answer goes anyway), and later when
        /// the connection is closed whatever the client does.
        var until: UInt64
        var answered = false
        /// The last bytes read, to find the head's end across reads.
        var tail: [UInt8] = []
        var read = 0

        /// Sends the answer and closes the sending side.
        mutating func answer(now: UInt64) {
            ConnectionGate.answer(fd, status: status, message: message, retryAfter: 1)
            shutdown(fd, Int32(SHUT_WR))
            answered = true
            until = now + UInt64(ConnectionGate.lingerSeconds * 1e9)
        }
    }

    /// The most refused connections kept open at once for their answer.
    static let maxLingering = 1024

    private func loop(admit: @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool) {
        var lingering: [Lingering] = []
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        let headEnd: [UInt8] = [13, 10, 13, 10]
        while !state.withLock({ $0.stopped }) {
            var fds = [pollfd(fd: listenSocket, events: Int16(POLLIN), revents: 0)]
            fds += lingering.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            if state.withLock({ $0.stopped }) { break }
            let now = DispatchTime.now().uptimeNanoseconds
            var kept: [Lingering] = []
            for (i, var l) in lingering.enumerated() {
                var finished = false
                if fds[i + 1].revents != 0 {
                    let n = recv(l.fd, &scratch, scratch.count, Int32(MSG_DONTWAIT))
                    if n > 0 {
                        l.read += n
                        if !l.answered {
                            let seen = l.tail + scratch[0..<min(n, scratch.count)]
                            if seen.count >= 4, (0...(seen.count - 4)).contains(where: { Array(seen[$0..<$0 + 4]) == headEnd }) {
                                l.answer(now: now)
                            } else {
                                l.tail = Array(seen.suffix(3))
                            }
                        }
                        if l.read > Self.drainLimit { finished = true }
                    } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                        if !l.answered && n == 0 { l.answer(now: now) }
                        finished = true
                    }
                }
                if !finished && now > l.until {
                    if l.answered { finished = true } else { l.answer(now: now) }
                }
                if finished { close(l.fd) } else { kept.append(l) }
            }
            lingering = kept
            if fds[0].revents != 0 { acceptAll(admit: admit, lingering: &lingering, now: now) }
            sweepHeads(now: now)
        }
        for l in lingering { close(l.fd) }
    }

    private func acceptAll(
        admit: @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool, lingering: inout [Lingering], now: UInt64
    ) {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listenSocket, $0, &length) }
            }
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let address = Self.describe(storage)
            let verdict: (status: Int, why: String)? = state.withLock { s in
                if s.peers.count >= total { return (503, "the server has \(total) connections open; try again shortly") }
                if s.perAddress[address, default: 0] >= perAddress {
                    return (429, "too many connections from this address (at most \(perAddress) at once)")
                }
                let serial = s.next
                s.next += 1
                s.peers[serial] = Peer(fd: fd, address: address, headStarted: now)
                s.byDescriptor[fd] = serial
                s.perAddress[address, default: 0] += 1
                return nil
            }
            if let verdict {
                var l = Lingering(fd: fd, status: verdict.status, message: verdict.why, until: now + UInt64(Self.lingerSeconds * 1e9))
                if lingering.count < Self.maxLingering {
                    lingering.append(l)
                } else {
                    l.answer(now: now)
                    close(fd)
                }
                continue
            }
            let serial = state.withLock { $0.byDescriptor[fd] }
            let taken = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { admit(fd, $0, length) }
            }
            if !taken, let serial { closed(serial: serial) }
        }
    }

    /// Shuts down every connection whose request head is past the deadline.
    private func sweepHeads(now: UInt64) {
        let limit = UInt64(headSeconds * 1e9)
        state.withLock { s in
            for (serial, peer) in s.peers where peer.inHead && now > peer.headStarted + limit {
                s.peers[serial]?.inHead = false
                // Under the lock: the peer is open until the server reports it closed, and the
                // server closes the socket only after that report.
                if peer.served == 0 {
                    Self.answer(
                        peer.fd, status: 408,
                        message: "the request head did not arrive within \(Int(headSeconds)) s of the connection", retryAfter: nil)
                }
                shutdown(peer.fd, Int32(SHUT_RDWR))
            }
        }
    }

    /// Writes a whole JSON error answer on `fd` (without blocking: a small answer fits in the
    /// socket's buffer) with `Connection: close`.
    static func answer(_ fd: Int32, status: Int, message: String, retryAfter: Int?) {
        let reason = [408: "Request Timeout", 429: "Too Many Requests", 503: "Service Unavailable"][status] ?? "Error"
        let body = HTTPResponse.problem(status, message)
        guard case let .bytes(bytes) = body.body else { return }
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(bytes.count)\r\n"
        if let retryAfter { head += "Retry-After: \(retryAfter)\r\n" }
        head += "Connection: close\r\n\r\n"
        let all = Array(head.utf8) + bytes
        _ = all.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }

    /// A client address as text (its port left out): what the per-address limit counts by.
    static func describe(_ storage: sockaddr_storage) -> String {
        var copy = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        return withUnsafePointer(to: &copy) { p -> String in
            switch Int32(storage.ss_family) {
            case AF_INET:
                return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var a = v4.pointee.sin_addr
                    return inet_ntop(AF_INET, &a, &text, socklen_t(text.count)).map { String(cString: $0) } ?? "?"
                }
            case AF_INET6:
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var a = v6.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &a, &text, socklen_t(text.count)).map { String(cString: $0) } ?? "?"
                }
            default: return "?"
            }
        }
    }
}
