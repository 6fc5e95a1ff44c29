import Foundation
import SweepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Connections a client holds without finishing a request: a header slowloris from many
/// connections, and one that trickles a head for ever.
@Suite("sweep serve: connection limits and the head deadline", .serialized)
struct ServeConnectionTests {
    @Test("300 connections trickling headers from 127.0.0.2-4: a client with the token gets /v1/health within 2 s throughout")
    func slowloris() throws {
        let server = try ServeProcess(["--token", "s3cret"])
        var open: [(fd: Int32, source: String)] = []
        defer { for c in open { close(c.fd) } }
        let sources = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
        var refused = 0
        var refusal = ""
        /// Opens connections until 100 from each source are open or answered.
        func fill() throws {
            for source in sources {
                var mine = open.filter { $0.source == source }.count
                while mine < 100 {
                    let fd = try RawConnection.open(server.url, from: source)
                    // A head that never ends: one more header byte at a time.
                    guard RawConnection.send(fd, Array("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)) else {
                        close(fd)
                        continue
                    }
                    open.append((fd, source))
                    mine += 1
                }
            }
        }
        try fill()
        #expect(open.count == 300)
        let start = Date()
        var slowest = 0.0
        var checks = 0
        while Date().timeIntervalSince(start) < 14 {
            // Each connection sends a byte; those the server answered (429 past 64 from one
            // address, 408 past the head deadline) are read, closed and opened again.
            var kept: [(fd: Int32, source: String)] = []
            for c in open {
                var p = pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, 0) > 0 {
                    let answer = RawConnection.read(c.fd, seconds: 0.05)
                    if answer.contains(" 429 ") {
                        refused += 1
                        refusal = answer
                    }
                    close(c.fd)
                    continue
                }
                if RawConnection.send(c.fd, [UInt8(ascii: "a")]) { kept.append(c) } else { close(c.fd) }
            }
            open = kept
            try fill()
            let asked = Date()
            let health = try curl(["--max-time", "5", "-H", "Authorization: Bearer s3cret", server.url + "/v1/health"])
            let took = Date().timeIntervalSince(asked)
            #expect(health.status == 200, "health: \(health.status) after \(took) s")
            slowest = max(slowest, took)
            checks += 1
            usleep(700_000)
        }
        #expect(checks >= 8)
        #expect(slowest < 2, "the slowest /v1/health took \(slowest) s")
        // Past 64 connections from one address, the answer is the API's JSON 429.
        #expect(refused > 0)
        #expect(refusal.contains("application/json") && refusal.contains("too many connections from this address"), "\(refusal)")
    }

    @Test("a head trickling one byte every half second is answered 408 (JSON) and closed within the 10 s deadline")
    func headDeadline() throws {
        let server = try ServeProcess()
        let fd = try RawConnection.open(server.url)
        defer { close(fd) }
        #expect(RawConnection.send(fd, Array("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)))
        let start = Date()
        var answer = ""
        while Date().timeIntervalSince(start) < 20 {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 500) > 0 {
                answer = RawConnection.read(fd, seconds: 1)
                break
            }
            if !RawConnection.send(fd, [UInt8(ascii: "a")]) { break }
        }
        let took = Date().timeIntervalSince(start)
        #expect(took > 9 && took < 13, "closed after \(took) s")
        #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
        #expect(answer.contains("\"error\""), "\(answer)")
        // A request whose head arrives in time is not cut, however long its answer takes to
        // read: an event stream or a download goes on past the deadline.
        #expect(try curl(["--max-time", "5", server.url + "/v1/health"]).status == 200)
    }

    @Test("with a token, a request without it is refused at its headers: no byte of a 50 MB body is read")
    func tokenFirst() throws {
        let server = try ServeProcess(["--token", "s3cret"])
        let big = Scratch.path("token-big.bin")
        try Data(count: 50 << 20).write(to: URL(fileURLWithPath: big))
        let started = Date()
        let reply = try curl(["-F", "before=@" + big, "-F", "spec={\"output\":\"a.gif\"}", server.url + "/v1/renders"])
        #expect(reply.status == 401)
        #expect(reply.uploaded < 1 << 20, "\(reply.uploaded) bytes sent")
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.store).isEmpty)
    }
}

extension RawConnection {
    /// A connected socket to `url`'s port on 127.0.0.1, from the loopback address `source`
    /// (the whole of 127/8 is loopback on Linux: each is a client address of its own).
    static func open(_ url: String, from source: String) throws -> Int32 {
        let port = try #require(url.split(separator: ":").last.flatMap { UInt16($0) })
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected =
            bound == 0
            ? withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } : -1
        if connected != 0 { close(fd) }
        try #require(connected == 0)
        return fd
    }
}
