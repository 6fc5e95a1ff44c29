import Foundation
import SweepServe
import SweepTestSupport
import Testing

/// Which names a server without a token answers to: exactly this machine's own (`localhost`,
/// `127.0.0.1`, `[::1]`, with a port or not). A name shaped like a loopback address but
/// served by someone's DNS (`127.a.attacker.tld`) is a DNS-rebinding page's way in.
@Suite("sweep serve: Host and Origin names")
struct ServeNamesTests {
    static let local = [
        "localhost", "localhost:8080", "LOCALHOST:80", "127.0.0.1", "127.0.0.1:8080", "[::1]", "[::1]:8080",
    ]
    static let rebinding = [
        "127.a.attacker.tld", "127.a.attacker.tld:8080", "127.0.0.1.evil.com", "127.0.0.1.evil.com:8080", "localhost.evil",
        "localhost.evil:8080", "0x7f.1", "0x7f000001", "2130706433", "127.1", "127.0.1", "0177.0.0.1", "127.0.0.2", "127.000.000.001",
        "[::ffff:127.0.0.1]", "[::1].evil.com", "[::1]x", "localhost:80x", "localhost:", "localhost:123456", "evil.com", "",
        "localhost.", "127.0.0.1:8080@evil.com",
    ]

    @Test("loopback names pass; rebinding-shaped names do not")
    func names() {
        for name in Self.local { #expect(RenderService.isLocalAuthority(name, listening: "127.0.0.1"), "\(name)") }
        for name in Self.rebinding { #expect(!RenderService.isLocalAuthority(name, listening: "127.0.0.1"), "\(name)") }
        // The address the server listens on is its name too (an IP literal, which no DNS serves).
        #expect(RenderService.isLocalAuthority("127.0.0.2:9000", listening: "127.0.0.2"))
        #expect(RenderService.isLocalAuthority("[::1]:9000", listening: "::1"))
    }

    @Test("--host takes only a dotted 127/8 address, ::1 or localhost without a token")
    func listening() {
        for host in ["127.0.0.1", "127.1.2.3", "::1", "localhost"] { #expect(ServeOptions.isLoopback(host), "\(host)") }
        for host in ["127.a.attacker.tld", "127.0.0.1.evil.com", "127.0.0.256", "127.0.0", "0.0.0.0", "127..0.1"] {
            #expect(!ServeOptions.isLoopback(host), "\(host)")
        }
    }

    @Test("over HTTP: a rebinding-shaped Host or Origin is 403 without a token; with the token it needs no name")
    func overHTTP() throws {
        let server = try ServeProcess()
        let (a, b) = try fixtures()
        for name in ["127.a.attacker.tld", "127.0.0.1.evil.com", "localhost.evil", "0x7f.1"] {
            let byHost = try curl(["-H", "Host: \(name)", server.url + "/v1/health"])
            #expect(byHost.status == 403, "Host \(name): \(byHost.status)")
            #expect((byHost.json["error"] as? String)?.contains("Host") == true)
            let byOrigin = try curl(
                ["-H", "Origin: http://\(name)"] + form(a, b, spec: #"{"output":"x.png"}"#) + [server.url + "/v1/previews"])
            #expect(byOrigin.status == 403, "Origin \(name): \(byOrigin.status)")
            #expect(byOrigin.json["error"] != nil)
        }
        for name in ["localhost", "127.0.0.1", "[::1]"] {
            let port = server.url.split(separator: ":").last!
            #expect(
                try curl(["-H", "Host: \(name):\(port)", "-H", "Origin: http://\(name):\(port)", server.url + "/v1/health"]).status == 200)
        }
        // With a token the server may be reached by any name (behind a proxy), but only with it.
        let secured = try ServeProcess(["--token", "t0k3n"])
        let wrong = try curl([
            "-H", "Host: 127.a.attacker.tld", "-H", "Origin: http://127.a.attacker.tld", secured.url + "/v1/openapi.json",
        ])
        #expect(wrong.status == 401)
        let right = try curl([
            "-H", "Host: 127.a.attacker.tld", "-H", "Authorization: Bearer t0k3n", secured.url + "/v1/openapi.json",
        ])
        #expect(right.status == 200)
    }
}
