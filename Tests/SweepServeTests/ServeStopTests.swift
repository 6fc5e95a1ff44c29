import Foundation
import SweepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A graceful stop (SIGTERM, what Kubernetes sends) keeps every accepted render.
@Suite("sweep serve: accepted work survives a graceful stop", .serialized)
struct ServeStopTests {
    @Test("SIGTERM past --grace: running and queued renders stay queued on disk, streams get a last event, the restart runs them")
    func survives() throws {
        let store = try Scratch.folder("stop-store")
        var server = try ServeProcess(["--jobs", "1", "--grace", "1s"], store: store)
        let running = try submitEndlessRender(to: server)
        let queued = try submitEndlessRender(to: server)
        let deadline = Date().addingTimeInterval(30)
        while try curl([server.url + "/v1/renders/" + running]).json["state"] as? String != "running", Date() < deadline {
            usleep(50_000)
        }
        // An event stream on each, open when the signal comes.
        let streams = try [running, queued].map { id -> Int32 in
            let fd = try RawConnection.open(server.url)
            #expect(RawConnection.send(fd, Array("GET /v1/renders/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)))
            #expect(RawConnection.read(fd, seconds: 5).hasPrefix("HTTP/1.1 200"))
            return fd
        }
        defer { for fd in streams { close(fd) } }
        #expect(server.stop(SIGTERM) == 0)
        for fd in streams {
            var text = ""
            while true {
                let more = RawConnection.read(fd, seconds: 2)
                if more.isEmpty { break }
                text += more
            }
            #expect(text.contains("event: interrupted"), "\(text.suffix(300))")
        }
        for id in [running, queued] {
            let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: store + "/\(id)/record.json")))
            #expect((record as? [String: Any])?["state"] as? String == "queued", "\(id): \(record)")
            #expect(FileManager.default.fileExists(atPath: store + "/\(id)/spec.json"))
        }
        // The restart runs them: the ids answer (never 404), the first running again.
        server = try ServeProcess(["--jobs", "1"], store: store)
        let again = try curl([server.url + "/v1/renders/" + running])
        #expect(again.status == 200, "\(again.text)")
        #expect(["running", "queued"].contains(again.json["state"] as? String ?? ""), "\(again.text)")
        #expect((again.json["notes"] as? [String])?.contains { $0.contains("interrupted") } == true, "\(again.text)")
        #expect(try curl([server.url + "/v1/renders/" + queued]).status == 200)
        let moving = Date().addingTimeInterval(60)
        var progress = 0.0
        while progress == 0, Date() < moving {
            progress = try curl([server.url + "/v1/renders/" + running]).json["progress"] as? Double ?? 0
            usleep(200_000)
        }
        #expect(progress > 0, "the resumed render did not move")
        for id in [running, queued] { #expect(try curl(["-X", "DELETE", server.url + "/v1/renders/" + id]).status == 204) }
    }

    @Test("a render past --max-render-seconds is stopped and fails with the reason")
    func timeLimit() throws {
        let server = try ServeProcess(["--jobs", "1", "--max-render-seconds", "2s"])
        // The size follows the picture, so nothing is estimated at the POST: the running limit
        // is what stops it.
        let (a, b) = try fixtures(width: 800, height: 600)
        let posted = try curl(form(a, b, spec: #"{"output":"slow.gif","fps":"30","duration":"120"}"#) + [server.url + "/v1/renders"])
        let id = try #require(posted.json["id"] as? String, "\(posted.text)")
        let started = Date()
        let record = try waitFor(id, at: server.url, timeout: 60)
        #expect(record["state"] as? String == "failed", "\(record)")
        #expect((record["error"] as? String)?.contains("--max-render-seconds") == true, "\(record)")
        #expect(Date().timeIntervalSince(started) < 30)
    }
}
