import Foundation
import SweepCLI
import SweepServe
import SweepSupport
import Testing

@Suite("sweep serve's options")
struct ServeOptionsTests {
    @Test("defaults: loopback, port 8080, queue 16, 200 MB, 1 h, 30 s")
    func defaults() throws {
        let o = try ServeOptions.parse([])
        #expect(o.host == "127.0.0.1" && o.port == 8080 && o.token == nil && o.queue == 16)
        #expect(o.maxUpload == 200_000_000 && o.keep == 3600 && o.grace == 30 && o.jobs >= 1)
    }

    @Test("every option, spelled both ways")
    func all() throws {
        let o = try ServeOptions.parse([
            "--host=0.0.0.0", "--port", "0", "--token", "abc", "--jobs=3", "--queue", "0", "--store", "s", "--max-upload", "10MB",
            "--keep", "30m", "--grace=5s",
        ])
        #expect(o.host == "0.0.0.0" && o.port == 0 && o.token == "abc" && o.jobs == 3 && o.queue == 0 && o.store == "s")
        #expect(o.maxUpload == 10_000_000 && o.keep == 1800 && o.grace == 5)
    }

    @Test("a host other than loopback needs a token", arguments: ["0.0.0.0", "192.168.1.2", "::"])
    func exposed(host: String) {
        #expect(throws: SweepError.self) { try ServeOptions.parse(["--host", host]) }
    }

    @Test("loopback addresses need none", arguments: ["127.0.0.1", "127.1.2.3", "::1", "localhost"])
    func loopback(host: String) throws {
        #expect(try ServeOptions.parse(["--host", host]).host == host)
    }

    @Test(
        "bad values are usage errors",
        arguments: [
            ["--port", "70000"], ["--jobs", "0"], ["--keep", "soon"], ["--grace", "-1"], ["--max-upload", "lots"], ["extra"],
            ["--token", "has space"], ["--nope"], ["--keep", "1y"],
        ])
    func bad(args: [String]) {
        #expect(throws: SweepError.self) { try ServeOptions.parse(args) }
    }

    @Test("durations: seconds, minutes, hours, days")
    func durations() throws {
        #expect(try ServeOptions.duration("90", option: "--keep") == 90)
        #expect(try ServeOptions.duration("2.5m", option: "--keep") == 150)
        #expect(try ServeOptions.duration("1h", option: "--keep") == 3600)
        #expect(try ServeOptions.duration("2d", option: "--keep") == 172_800)
    }
}

@Suite("sweep serve's documentation")
struct ServeDocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("the man page, the help and the README name every option of serve")
    func everyOption() throws {
        let man = try String(contentsOf: Self.root.appendingPathComponent("docs/sweep.1"), encoding: .utf8)
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(man.contains(".B sweep serve") && readme.contains("## Render service") && readme.contains("proxy_pass"))
        for option in ServeOptions.known.map(\.name) {
            #expect(man.contains("\\-\\-" + option.replacingOccurrences(of: "-", with: "\\-")), "--\(option)")
            #expect(ServeOptions.help.render(width: 80).contains("--" + option), "--\(option)")
        }
    }
}
