import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built binary's `sweep serve`, over HTTP with curl.
@Suite("sweep serve over HTTP", .serialized)
struct ServeEndToEndTests {
    /// A spec that renders for a few seconds on a busy machine.
    static let slowSpec = #"{"output":"slow.gif","size":"800x600","fps":"30","duration":"8"}"#

    @Test("upload two images with a GIF spec, poll to done, download and decode it")
    func renderGIF() throws {
        let server = try ServeProcess()
        let (a, b) = try fixtures()
        let posted = try curl(
            form(a, b, spec: #"{"output":"out.gif","size":"96x72","fps":"10","duration":"1","hold":"0.2"}"#) + [server.url + "/v1/renders"])
        #expect(posted.status == 202)
        let id = try #require(posted.json["id"] as? String)
        #expect(posted.headers["location"] == "/v1/renders/" + id)
        let record = try waitFor(id, at: server.url)
        #expect(record["state"] as? String == "done")
        #expect(record["progress"] as? Double == 1)
        let summary = try #require(record["summary"] as? [String: Any])
        #expect(summary["output"] as? String == "out.gif" && summary["frames"] as? Int == 10)
        let file = try curl([server.url + "/v1/renders/\(id)/output"])
        #expect(file.status == 200)
        #expect(file.headers["content-type"] == "image/gif")
        #expect(file.headers["content-length"] == String(file.body.count))
        #expect(summary["bytes"] as? Int == file.body.count)
        let etag = try #require(file.headers["etag"])
        let path = Scratch.path("out.gif")
        try file.body.write(to: URL(fileURLWithPath: path))
        let gif = try GIFReader(path: path)
        #expect(gif.width == 96 && gif.height == 72)
        #expect(gif.frames.count >= 2 && gif.frames.count <= 10)
        // The same bytes keep their ETag; If-None-Match answers 304.
        #expect(try curl([server.url + "/v1/renders/\(id)/output"]).headers["etag"] == etag)
        #expect(try curl(["-H", "If-None-Match: " + etag, server.url + "/v1/renders/\(id)/output"]).status == 304)
        // The events of a finished render: its final state, then the end.
        let events = try curl([server.url + "/v1/renders/\(id)/events"])
        #expect(events.headers["content-type"] == "text/event-stream")
        #expect(events.text.hasPrefix("event: state\n") && events.text.contains("\"state\":\"done\""))
        // The uploads are gone once it is done; the output and the record stay.
        let left = try FileManager.default.contentsOfDirectory(atPath: server.store + "/" + id).sorted()
        #expect(left == ["out", "record.json"])
        // Metrics count it.
        let metrics = try curl([server.url + "/metrics"])
        #expect(metrics.text.contains("sweep_renders_total{outcome=\"done\"} 1"))
        #expect(metrics.text.contains("sweep_render_seconds_count 1"))
        // DELETE removes it.
        #expect(try curl(["-X", "DELETE", server.url + "/v1/renders/" + id]).status == 204)
        #expect(try curl([server.url + "/v1/renders/" + id]).status == 404)
        #expect(!FileManager.default.fileExists(atPath: server.store + "/" + id))
    }

    @Test("a preview is a decodable PNG of the asked size, and a JPEG by its name")
    func preview() throws {
        let server = try ServeProcess()
        let (a, b) = try fixtures()
        let png = try curl(form(a, b, spec: #"{"output":"card.png","size":"120x63","position":"0.3"}"#) + [server.url + "/v1/previews"])
        #expect(png.status == 200)
        #expect(png.headers["content-type"] == "image/png")
        let bytes = [UInt8](png.body)
        try #require(bytes.count > 24)
        #expect(bytes[1...3].elementsEqual("PNG".utf8))
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 120 && height == 63)
        let path = Scratch.path("card.png")
        try png.body.write(to: URL(fileURLWithPath: path))
        let decoded = try ImageDecoder.decode(path: path)
        #expect(decoded.width == 120 && decoded.height == 63)
        let jpeg = try curl(form(a, spec: #"{"output":"card.jpg","size":"64x64","look":"noir"}"#) + [server.url + "/v1/previews"])
        #expect(jpeg.status == 200 && jpeg.headers["content-type"] == "image/jpeg" && jpeg.body.starts(with: [0xFF, 0xD8]))
        // Nothing is left in the store.
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.store).isEmpty)
    }

    @Test("every refusal is one JSON error with its status")
    func errors() throws {
        let server = try ServeProcess(["--max-upload", "100KB"])
        let (a, _) = try fixtures()
        let u = server.url
        func expectError(_ args: [String], _ status: Int, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let r = try curl(args)
            #expect(r.status == status, "\(r.text)", sourceLocation: sourceLocation)
            #expect(r.headers["content-type"] == "application/json", sourceLocation: sourceLocation)
            #expect((r.json["error"] as? String)?.contains(words) == true, "\(r.text)", sourceLocation: sourceLocation)
            #expect(r.json["exit"] is Int, sourceLocation: sourceLocation)
        }
        // 400: a spec that is not JSON, an unknown key, a bad value, a path as output, a file
        // for a file-reading key, before set by the spec, a missing part.
        try expectError(form(a, spec: "{nope") + [u + "/v1/renders"], 400, "invalid JSON")
        try expectError(form(a, spec: #"{"output":"o.gif","sizee":"9"}"#) + [u + "/v1/renders"], 400, "did you mean")
        try expectError(form(a, spec: #"{"output":"o.gif","size":"big"}"#) + [u + "/v1/renders"], 400, "not a size")
        for output in ["../o.gif", "/tmp/o.gif", "sub/o.gif", ".hidden.gif", "f-%04d.png"] {
            try expectError(form(a, spec: #"{"output":"\#(output)"}"#) + [u + "/v1/renders"], 400, "bare file name")
        }
        for (key, value) in [("look", "/etc/passwd"), ("preset", "x.json"), ("format", "../f.json"), ("before-look", "noir.json")] {
            try expectError(form(a, spec: #"{"output":"o.gif","\#(key)":"\#(value)"}"#) + [u + "/v1/renders"], 400, "built-in name")
        }
        try expectError(form(a, spec: #"{"output":"o.gif","after":"/etc/hosts"}"#) + [u + "/v1/renders"], 400, "set by the server")
        try expectError(["-F", "spec={\"output\":\"o.gif\"}", u + "/v1/renders"], 400, "before is missing")
        try expectError(form(a, spec: #"{"output":"o.gif","decode":"in-process"}"#) + [u + "/v1/renders"], 400, "decode")
        try expectError(form(a, spec: #"{"output":"o.gif","max-pixels":"900000000"}"#) + [u + "/v1/renders"], 400, "at most")
        // 415: a body that is not multipart.
        try expectError(["-H", "Content-Type: application/json", "-d", "{}", u + "/v1/renders"], 415, "multipart")
        // 403: without a token, a request from another site's page (DNS rebinding, a cross-site form).
        try expectError(["-H", "Host: evil.example:8080", u + "/v1/health"], 403, "Host")
        try expectError(
            ["-H", "Origin: http://evil.example"] + form(a, spec: #"{"output":"o.png"}"#) + [u + "/v1/previews"], 403, "other sites")
        try expectError(["-H", "Origin: null", u + "/v1/renders/0123456789abcdef0123456789abcdef"], 403, "other sites")
        #expect(try curl(["-H", "Origin: http://localhost:1234", u + "/v1/health"]).status == 200)
        #expect(try curl(["-H", "Host: [::1]:1234", u + "/v1/health"]).status == 200)
        // 404, 405.
        try expectError([u + "/v2/nothing"], 404, "no such route")
        try expectError([u + "/v1/renders/0123456789abcdef0123456789abcdef"], 404, "no render")
        try expectError([u + "/v1/renders/..%2F..%2Fetc"], 404, "no ")
        try expectError(["-X", "PUT", u + "/v1/renders"], 405, "not allowed")
        #expect(try curl(["-X", "POST", u + "/v1/health"]).headers["allow"] == "GET")
        // 413: an upload over --max-upload, answered before its body is read.
        let big = Scratch.path("big.bin")
        try Data(repeating: 7, count: 300_000).write(to: URL(fileURLWithPath: big))
        try expectError(form(big, spec: #"{"output":"o.png"}"#) + [u + "/v1/previews"], 413, "over the limit")
        // 413: a pixel limit.
        try expectError(form(a, spec: #"{"output":"o.png","max-pixels":"100"}"#) + [u + "/v1/previews"], 413, "over the limit")
        // 422: not an image, named by its part, never by a server path.
        let text = Scratch.path("notes.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        let r = try curl(form(text, spec: #"{"output":"o.png"}"#) + [u + "/v1/previews"])
        #expect([415, 422].contains(r.status))
        #expect((r.json["error"] as? String)?.hasPrefix("before.txt: ") == true, "\(r.text)")
        #expect(!(r.text.contains(server.store)))
        // A render of a non-image fails, with the CLI's line and exit code.
        let posted = try curl(form(text, spec: #"{"output":"o.gif"}"#) + [u + "/v1/renders"])
        let id = try #require(posted.json["id"] as? String)
        let record = try waitFor(id, at: u)
        #expect(record["state"] as? String == "failed" && record["exit"] as? Int == 65)
        try expectError([u + "/v1/renders/\(id)/output"], 409, "failed")
        // Nothing is left of the refused uploads.
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.store) == [id])
    }

    @Test("the events stream tells progress as the render moves, then its final state")
    func events() throws {
        let server = try ServeProcess()
        let (a, b) = try fixtures(width: 400, height: 300)
        let spec = #"{"output":"ev.mp4","size":"400x300","fps":"30","duration":"4"}"#
        let id = try #require(try curl(form(a, b, spec: spec) + [server.url + "/v1/renders"]).json["id"] as? String)
        let events = try curl([server.url + "/v1/renders/\(id)/events"])
        #expect(events.status == 200)
        let names = events.text.split(separator: "\n").filter { $0.hasPrefix("event: ") }.map { String($0.dropFirst(7)) }
        #expect(names.last == "state" && names.dropLast().allSatisfy { $0 == "progress" } && names.count >= 2, "\(events.text)")
        #expect(events.text.contains("\"state\":\"done\""))
        let file = try curl([server.url + "/v1/renders/\(id)/output"])
        #expect(file.headers["content-type"] == "video/mp4" && file.body.count > 1000)
    }

    @Test("upload abuse: a 10 GB Content-Length, an endless body, a multipart bomb, a trickle; the store stays clean")
    func abuse() throws {
        let server = try ServeProcess(["--max-upload", "1MB"])
        let u = server.url + "/v1/renders"
        let multipart = ["-H", "Content-Type: multipart/form-data; boundary=bbbb"]
        // Announced over the cap: 413 before any of it is read.
        var start = Date()
        let huge = try curl(["-H", "Content-Length: 10000000000", "--data-binary", "x"] + multipart + [u])
        #expect(huge.status == 413 && Date().timeIntervalSince(start) < 5)
        // Endless and chunked: cut off once past the cap (MHD cannot answer mid-body).
        start = Date()
        let endless = try curl(["-X", "POST", "-H", "Transfer-Encoding: chunked", "-T", "-"] + multipart + [u], input: "/dev/zero")
        #expect(![200, 202].contains(endless.status) && Date().timeIntervalSince(start) < 30)
        // Five thousand parts named before: refused at the second.
        let bomb = Scratch.path("bomb")
        let part = "--bbbb\r\nContent-Disposition: form-data; name=\"before\"; filename=\"a.png\"\r\n\r\nxx\r\n"
        try Data((String(repeating: part, count: 5000) + "--bbbb--\r\n").utf8).write(to: URL(fileURLWithPath: bomb))
        let bombed = try curl(["--data-binary", "@" + bomb] + multipart + [u])
        #expect(bombed.status == 400 && bombed.text.contains("sent twice"))
        // A trickle (400 bytes/s) is cut off once the grace has passed.
        let closed = try trickle(to: server.url, path: "/v1/renders", limit: 40)
        #expect(closed != nil && closed! > 14 && closed! < 25, "\(String(describing: closed))")
        // Still serving, and nothing was left behind.
        #expect(try curl([server.url + "/v1/health"]).status == 200)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.store).isEmpty)
    }

    @Test("SIGINT past --grace: the running render stops at its next frame and is kept queued, without its partial output; exit 0")
    func graceOver() throws {
        let server = try ServeProcess(["--jobs", "1", "--grace", "0.2s"])
        let (a, b) = try fixtures(width: 800, height: 600)
        let id = try #require(try curl(form(a, b, spec: Self.slowSpec) + [server.url + "/v1/renders"]).json["id"] as? String)
        let deadline = Date().addingTimeInterval(30)
        while try curl([server.url + "/v1/renders/" + id]).json["state"] as? String != "running", Date() < deadline { usleep(50_000) }
        #expect(server.stop(SIGINT) == 0)
        let left = try FileManager.default.subpathsOfDirectory(atPath: server.store).sorted()
        #expect(left.contains(id + "/record.json") && left.contains(id + "/spec.json"), "\(left)")
        #expect(!left.contains { $0.hasPrefix(id + "/out/") }, "\(left)")
        let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: server.store + "/\(id)/record.json")))
        #expect((record as? [String: Any])?["state"] as? String == "queued")
    }

    @Test("DELETE of a running render forgets it at once, stops it at its next frame and removes its folder")
    func deleteRunning() throws {
        let server = try ServeProcess(["--jobs", "1"])
        let id = try submitEndlessRender(to: server)
        var deadline = Date().addingTimeInterval(30)
        while try curl([server.url + "/v1/renders/" + id]).json["state"] as? String != "running", Date() < deadline { usleep(50_000) }
        let deleted = Date()
        #expect(try curl(["-X", "DELETE", server.url + "/v1/renders/" + id]).status == 204)
        #expect(try curl([server.url + "/v1/renders/" + id]).status == 404)
        #expect(try curl(["-X", "DELETE", server.url + "/v1/renders/" + id]).status == 404)
        deadline = Date().addingTimeInterval(120)
        while FileManager.default.fileExists(atPath: server.store + "/" + id), Date() < deadline { usleep(100_000) }
        #expect(!FileManager.default.fileExists(atPath: server.store + "/" + id))
        #expect(Date().timeIntervalSince(deleted) < 40, "the render ran on after DELETE")
        #expect(try curl([server.url + "/metrics"]).text.contains("sweep_renders_total{outcome=\"cancelled\"} 1"))
    }

    @Test("sweep serve --help, and the serve line in sweep --help")
    func help() throws {
        let exe = try sweepBinary()
        for (args, words) in [(["serve", "--help"], "--max-upload"), (["--help"], "sweep serve")] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: exe)
            p.arguments = args
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            #expect(p.terminationStatus == 0 && text.contains(words))
        }
    }

    @Test("outputs expire after --keep")
    func expiry() throws {
        let server = try ServeProcess(["--keep", "1s"])
        let (a, b) = try fixtures()
        let posted = try curl(
            form(a, b, spec: #"{"output":"e.gif","size":"32x24","fps":"5","duration":"1"}"#) + [server.url + "/v1/renders"])
        let id = try #require(posted.json["id"] as? String)
        #expect(try waitFor(id, at: server.url)["state"] as? String == "done")
        let deadline = Date().addingTimeInterval(10)
        while try curl([server.url + "/v1/renders/" + id]).status == 200, Date() < deadline { usleep(200_000) }
        #expect(try curl([server.url + "/v1/renders/\(id)/output"]).status == 404)
        #expect(!FileManager.default.fileExists(atPath: server.store + "/" + id))
    }

    @Test("a large upload streams to disk: 64 MB raise the server's peak memory by under 16 MB")
    func streamed() throws {
        let server = try ServeProcess()
        func peak() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
            return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        }
        #expect(try curl([server.url + "/v1/health"]).status == 200)
        let before = try peak()
        let big = Scratch.path("big.raw")
        try Data(repeating: 0x5A, count: 64 << 20).write(to: URL(fileURLWithPath: big))
        defer { try? FileManager.default.removeItem(atPath: big) }
        let posted = try curl(form(big, spec: #"{"output":"o.gif"}"#) + [server.url + "/v1/renders"])
        #expect(posted.status == 202)
        let id = try #require(posted.json["id"] as? String)
        #expect(try waitFor(id, at: server.url)["exit"] as? Int == 65)
        let after = try peak()
        #expect(after - before < 16 << 10, "peak KiB \(before) -> \(after)")
    }

    @Test("with a token, every /v1 request but health needs it")
    func token() throws {
        let server = try ServeProcess(["--token", "s3cret-token"])
        #expect(try curl([server.url + "/v1/health"]).status == 200)
        let refused = try curl([server.url + "/v1/openapi.json"])
        #expect(refused.status == 401 && refused.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        #expect(try curl(["-H", "Authorization: Bearer wrong-token!", server.url + "/v1/openapi.json"]).status == 401)
        let (a, _) = try fixtures()
        #expect(try curl(form(a, spec: #"{"output":"o.png"}"#) + [server.url + "/v1/previews"]).status == 401)
        let ok = try curl(["-H", "Authorization: Bearer s3cret-token", server.url + "/v1/openapi.json"])
        #expect(ok.status == 200)
        #expect(ok.json["openapi"] as? String == "3.0.3")
        let paths = try #require(ok.json["paths"] as? [String: Any])
        #expect(
            Set(paths.keys) == [
                "/v1/health", "/v1/openapi.json", "/metrics", "/v1/renders", "/v1/previews", "/v1/renders/{id}", "/v1/renders/{id}/output",
                "/v1/renders/{id}/events", "/", "/studio/element", "/studio/probe", "/studio/uploads", "/studio/uploads/{id}",
                "/studio/uploads/{id}/frame",
            ])
        // The studio's page and its routes that read nothing of the server's ask for no token.
        for (path, method) in [("/", "get"), ("/studio/element", "get"), ("/studio/probe", "post")] {
            let operation = (paths[path] as? [String: Any])?[method] as? [String: Any]
            #expect((operation?["security"] as? [Any])?.isEmpty == true, "\(path)")
            let answer = try curl(method == "post" ? ["-F", "before=@\(a)", server.url + path] : [server.url + path])
            #expect(answer.status != 401, "\(path)")
        }
        #expect(try curl(["-F", "before=@\(a)", server.url + "/studio/uploads"]).status == 401)
    }

    @Test("the OpenAPI document: security only with a token; the spec lists render's options, output as a bare name")
    func openAPI() throws {
        let server = try ServeProcess()
        let doc = try curl([server.url + "/v1/openapi.json"]).json
        #expect(doc["security"] == nil)
        let paths = try #require(doc["paths"] as? [String: Any])
        let renders = try #require((paths["/v1/renders"] as? [String: Any])?["post"] as? [String: Any])
        let body = try #require((renders["requestBody"] as? [String: Any])?["content"] as? [String: Any])
        let form = try #require((body["multipart/form-data"] as? [String: Any])?["schema"] as? [String: Any])
        let spec = try #require((form["properties"] as? [String: Any])?["spec"] as? [String: Any])
        let keys = try #require(spec["properties"] as? [String: Any])
        #expect(keys["size"] != nil && keys["no-handle"] != nil && keys["look"] != nil && keys["output"] != nil)
        #expect(keys["decode"] == nil && keys["before"] == nil)
        #expect(((keys["look"] as? [String: Any])?["enum"] as? [String])?.contains("noir") == true)
        let secured = try ServeProcess(["--token", "t0ken-for-docs"])
        #expect(try curl(["-H", "Authorization: Bearer t0ken-for-docs", secured.url + "/v1/openapi.json"]).json["security"] != nil)
    }

    @Test("a host other than loopback without a token is refused at start (exit 64)")
    func exposed() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try sweepBinary())
        p.arguments = ["serve", "--host", "0.0.0.0", "--port", "0", "--store", try Scratch.folder("exposed")]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 64)
        #expect(message.contains("needs a token"))
    }

    @Test("one running and one waiting: the next is 429 with Retry-After; a queued render's output is 409")
    func queueFull() throws {
        let server = try ServeProcess(["--jobs", "1", "--queue", "1"])
        let (a, b) = try fixtures(width: 800, height: 600)
        let first = try curl(form(a, b, spec: Self.slowSpec) + [server.url + "/v1/renders"])
        let second = try curl(form(a, b, spec: Self.slowSpec) + [server.url + "/v1/renders"])
        #expect(first.status == 202 && second.status == 202)
        let third = try curl(form(a, b, spec: Self.slowSpec) + [server.url + "/v1/renders"])
        #expect(third.status == 429)
        #expect(third.headers["retry-after"].flatMap { Int($0) }.map { (1...600).contains($0) } == true)
        // An 8 MB body sent without waiting for 100 Continue is read, discarded (not stored) and
        // answered 429 (not cut off mid-write); one that waits is answered before it sends anything.
        let big = Scratch.path("big.bin")
        try Data((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }).write(to: URL(fileURLWithPath: big))
        for (expect, whole) in [("Expect:", true), ("Expect: 100-continue", false)] {
            let reply = try curl(["-H", expect, "-F", "before=@" + big, "-F", "spec=" + Self.slowSpec, server.url + "/v1/renders"])
            #expect(reply.status == 429, "\(expect): \(reply.status)")
            #expect(whole ? reply.uploaded > 8 << 20 : reply.uploaded < 1 << 20, "\(expect): \(reply.uploaded) bytes sent")
            #expect(try FileManager.default.contentsOfDirectory(atPath: server.store).count == 2)
        }
        #expect(first.json["state"] as? String == "running" && second.json["state"] as? String == "queued")
        let id = try #require(second.json["id"] as? String)
        #expect(try curl([server.url + "/v1/renders/" + id]).json["state"] as? String == "queued")
        #expect(try curl([server.url + "/v1/renders/\(id)/output"]).status == 409)
        // Deleting the queued one frees its place.
        #expect(try curl(["-X", "DELETE", server.url + "/v1/renders/" + id]).status == 204)
        #expect(try curl(form(a, b, spec: Self.slowSpec) + [server.url + "/v1/renders"]).status == 202)
        #expect(try curl([server.url + "/metrics"]).text.contains("sweep_queue_length 1"))
    }

    @Test("kill -9 during a render, restart: the render reports failed and nothing partial is served")
    func restart() throws {
        let store = try Scratch.folder("restart")
        let (a, b) = try fixtures(width: 800, height: 600)
        var server = try ServeProcess(["--jobs", "1"], store: store)
        let posted = try curl(form(a, b, spec: Self.slowSpec) + [server.url + "/v1/renders"])
        let id = try #require(posted.json["id"] as? String)
        let deadline = Date().addingTimeInterval(30)
        while try curl([server.url + "/v1/renders/" + id]).json["state"] as? String != "running", Date() < deadline { usleep(50_000) }
        usleep(300_000)
        server.stop(SIGKILL)
        server = try ServeProcess(["--jobs", "1"], store: store)
        let record = try curl([server.url + "/v1/renders/" + id]).json
        #expect(record["state"] as? String == "failed")
        #expect((record["error"] as? String)?.contains("interrupted by a restart") == true)
        #expect(try curl([server.url + "/v1/renders/\(id)/output"]).status == 409)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store + "/" + id) == ["record.json"])
        // Whatever else is in the store is the user's: left alone across restarts.
        server.stop(SIGKILL)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: store + "/notes.txt"))
        let cut = store + "/" + String(repeating: "ab", count: 16)
        try FileManager.default.createDirectory(atPath: cut, withIntermediateDirectories: false)
        server = try ServeProcess(["--jobs", "1"], store: store)
        #expect(FileManager.default.fileExists(atPath: store + "/notes.txt"))
        #expect(!FileManager.default.fileExists(atPath: cut))
    }

    @Test("SIGTERM lets the running render finish, keeps the queued one queued, and exits 0 leaving no temporary files")
    func drain() throws {
        let server = try ServeProcess(["--jobs", "1", "--grace", "120s"])
        let (a, b) = try fixtures(width: 400, height: 300)
        let spec = #"{"output":"drain.gif","size":"400x300","fps":"30","duration":"6"}"#
        let running = try #require(try curl(form(a, b, spec: spec) + [server.url + "/v1/renders"]).json["id"] as? String)
        let queued = try #require(try curl(form(a, b, spec: spec) + [server.url + "/v1/renders"]).json["id"] as? String)
        #expect(server.stop(SIGTERM, timeout: 120) == 0)
        let left = try FileManager.default.subpathsOfDirectory(atPath: server.store)
        #expect(!left.contains { $0.hasSuffix(".tmp") || $0.contains("/.") })
        #expect(left.contains(queued + "/record.json") && left.contains(queued + "/spec.json"))
        #expect(left.contains(running + "/out/drain.gif"))
    }
}
