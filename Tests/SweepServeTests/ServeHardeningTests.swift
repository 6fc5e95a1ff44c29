import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a hostile or careless client does to `sweep serve`, and what it gets back: each case
/// an adversarial run found.
@Suite("sweep serve against hostile clients", .serialized)
struct ServeHardeningTests {
    @Test("what a render would refuse before reading an input is refused at the POST, not accepted and failed")
    func refusedAtOnce() throws {
        let server = try ServeProcess(["--max-frame-pixels", "1000000"])
        let (a, b) = try fixtures()
        func post(_ spec: String, to route: String = "/v1/renders") throws -> Reply {
            try curl(form(a, b, spec: spec) + [server.url + route])
        }
        // Over this server's frame limit (1 MP): 413, on both routes, and in the studio's check.
        for route in ["/v1/renders", "/v1/previews"] {
            let ext = route.hasSuffix("renders") ? "gif" : "png"
            let r = try post(#"{"output":"big.\#(ext)","size":"2000x1000"}"#, to: route)
            #expect(r.status == 413, "\(r.text)")
            #expect((r.json["error"] as? String)?.contains("limit of 1000000 pixels a frame") == true, "\(r.text)")
        }
        // The size follows the picture (640 wide, 2000 tall for a 160×500 one): only the studio
        // knows the picture, and says so too.
        let element = try curl([server.url + "/studio/element?spec=%7B%22output%22%3A%22a.gif%22%2C%22size%22%3A%22640x%22%7D&w=160&h=500"])
        #expect(element.status == 413, "\(element.text)")
        // Limits the spec alone breaks, and encoder options that name files: 400 at once. A
        // GIF's rate past 50 fps is lowered first, as the render does, so 60 fps for 30 min
        // (90 000 frames at 50) is no refusal.
        let long = try post(#"{"output":"a.gif","size":"64x48","fps":60,"duration":1800}"#)
        #expect(long.status == 202, "\(long.text)")
        if let id = long.json["id"] as? String { #expect(try curl(["-X", "DELETE", server.url + "/v1/renders/" + id]).status == 204) }
        for spec in [
            #"{"output":"a.mp4","size":"16384x16384"}"#, #"{"output":"a.mp4","size":"320x240","fps":240,"duration":3600}"#,
            #"{"output":"a.mp4","size":"320x240","codec-opt":"x264-params=stats=/tmp/pwn"}"#,
        ] {
            let r = try post(spec)
            #expect(r.status == 400 || r.status == 413, "\(spec): \(r.status) \(r.text)")
            #expect(r.json["id"] == nil)
        }
        // Nothing was queued: no render folder is left in the store (an upload's goes when
        // its request completes, just after the answer).
        let deadline = Date().addingTimeInterval(5)
        while try !FileManager.default.contentsOfDirectory(atPath: server.store).isEmpty, Date() < deadline { usleep(50_000) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.store).isEmpty)
        // Within the limit, the same route renders.
        #expect(try post(#"{"output":"ok.png","size":"1000x1000"}"#, to: "/v1/previews").status == 200)
    }

    @Test("a page's double-size pictures are not frames: a 4:3 page at 1920x1440 renders under the default frame limit")
    func retinaPage() throws {
        let server = try ServeProcess()
        let (a, b) = try fixtures(width: 400, height: 300)
        let posted = try curl(form(a, b, spec: #"{"output":"p.html","retina":true,"size":"1920x1440"}"#) + [server.url + "/v1/renders"])
        let id = try #require(posted.json["id"] as? String, "\(posted.text)")
        let record = try waitFor(id, at: server.url)
        #expect(record["state"] as? String == "done", "\(record)")
    }

    @Test("a preview takes a video format's size as a still, as `sweep preview --format` does")
    func previewOfVideoFormats() throws {
        let server = try ServeProcess()
        let (a, b) = try fixtures()
        for (format, width, height) in [("youtube-shorts", 1080, 1920), ("instagram-square", 1080, 1080), ("og-image", 1200, 630)] {
            let r = try curl(form(a, b, spec: #"{"output":"p.png","format":"\#(format)"}"#) + [server.url + "/v1/previews"])
            #expect(r.status == 200, "\(format): \(r.text)")
            guard r.status == 200 else { continue }
            let still = try ImageDecoder.decode(bytes: [UInt8](r.body), name: "preview")
            #expect(still.width == width && still.height == height, "\(format): \(still.width)x\(still.height)")
        }
    }

    @Test("a decode service killed under a running server is replaced: the next previews are drawn, not refused")
    func decodeServiceReplaced() throws {
        let server = try ServeProcess()
        let (a, b) = try fixtures()
        let spec = #"{"output":"p.png","size":"64x48"}"#
        #expect(try curl(form(a, b, spec: spec) + [server.url + "/v1/previews"]).status == 200)
        // The service is the server's child forked at launch (workers are its children).
        let parent = server.process.processIdentifier
        let children = (try FileManager.default.contentsOfDirectory(atPath: "/proc")).compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").dropFirst().first == "\(parent)"
        }
        #expect(children.count == 1, "\(children)")
        for child in children { kill(child, SIGKILL) }
        for _ in 0..<2 {
            let r = try curl(form(a, b, spec: spec) + [server.url + "/v1/previews"])
            #expect(r.status == 200, "\(r.status) \(r.text)")
            #expect(r.headers["content-type"] == "image/png")
        }
    }

    @Test("a url-encoded body is refused with 415: files come as multipart parts only")
    func urlEncoded() throws {
        let server = try ServeProcess()
        let r = try curl([
            "-H", "Content-Type: application/x-www-form-urlencoded", "--data", "spec=%7B%22output%22%3A%22a.png%22%7D&before=abc",
            server.url + "/v1/previews",
        ])
        #expect(r.status == 415, "\(r.text)")
        #expect((r.json["error"] as? String)?.contains("multipart/form-data") == true)
    }

    @Test("event streams: at most a quarter of the connections, health answers past them, and a client that leaves frees its thread")
    func eventStreams() throws {
        let server = try ServeProcess(["--jobs", "1"])
        let id = try submitEndlessRender(to: server)
        defer { _ = try? curl(["-X", "DELETE", server.url + "/v1/renders/" + id]) }
        let pid = server.process.processIdentifier
        let before = RawConnection.threads(of: pid)
        let request = Array("GET /v1/renders/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        var open: [Int32] = []
        defer { for fd in open { close(fd) } }
        // 64 streams (a quarter of 256 connections) are taken; the next is 429. They come from
        // two addresses: one address may hold at most 64 connections.
        for i in 0..<64 {
            let fd = try RawConnection.open(server.url, from: i % 2 == 0 ? "127.0.0.2" : "127.0.0.3")
            open.append(fd)
            #expect(RawConnection.send(fd, request))
            #expect(RawConnection.read(fd, seconds: 10).hasPrefix("HTTP/1.1 200"))
        }
        let extra = try curl(["--max-time", "10", server.url + "/v1/renders/\(id)/events"])
        #expect(extra.status == 429 && extra.headers["retry-after"] != nil, "\(extra.status) \(extra.text)")
        #expect(try curl(["--max-time", "5", server.url + "/v1/health"]).status == 200)
        #expect(RawConnection.threads(of: pid) >= before + 64)
        // The clients leave: within a few seconds (a keep-alive comment finds each gone), the
        // threads and the places are free again.
        for fd in open { close(fd) }
        open = []
        let deadline = Date().addingTimeInterval(20)
        while RawConnection.threads(of: pid) > before + 8, Date() < deadline { usleep(200_000) }
        #expect(RawConnection.threads(of: pid) <= before + 8, "threads: \(before) → \(RawConnection.threads(of: pid))")
        let again = try RawConnection.open(server.url)
        defer { close(again) }
        #expect(RawConnection.send(again, request))
        #expect(RawConnection.read(again, seconds: 10).hasPrefix("HTTP/1.1 200"))
    }

    @Test("SIGTERM during an upload leaves nothing of it in the store")
    func sigtermMidUpload() throws {
        let server = try ServeProcess(["--grace", "2s"])
        let fd = try RawConnection.open(server.url)
        defer { close(fd) }
        let head =
            "POST /v1/renders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=bbbb\r\nContent-Length: 1000000\r\n\r\n"
            + "--bbbb\r\nContent-Disposition: form-data; name=\"before\"; filename=\"a.jpg\"\r\n\r\n"
        #expect(RawConnection.send(fd, Array(head.utf8) + [UInt8](repeating: 0x41, count: 200_000)))
        // The upload is on disk, in a folder of its own, when the signal comes.
        let deadline = Date().addingTimeInterval(10)
        while try FileManager.default.contentsOfDirectory(atPath: server.store).isEmpty, Date() < deadline { usleep(50_000) }
        #expect(try !FileManager.default.contentsOfDirectory(atPath: server.store).isEmpty)
        #expect(server.stop() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.store) == [])
    }
}
