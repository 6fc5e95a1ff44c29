import Foundation
import SweepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A render's cost is weighed before it runs, and a deleted render gives its place back at
/// once, however long its frame takes.
@Suite("sweep serve: render cost and places", .serialized)
struct ServeCostTests {
    @Test("a render estimated past --max-render-seconds is 413 with the estimate; a small one is accepted")
    func estimate() throws {
        let server = try ServeProcess(["--max-render-seconds", "15m"])
        let (a, b) = try fixtures()
        // 300 ProRes frames at 3840x2160: some 8 000 s by the measured cost.
        let prores = try curl(
            form(a, b, spec: #"{"output":"big.mov","codec":"prores","size":"3840x2160","duration":10}"#) + [server.url + "/v1/renders"])
        #expect(prores.status == 413, "\(prores.status) \(prores.text)")
        #expect((prores.json["estimatedSeconds"] as? Int ?? 0) > 900, "\(prores.text)")
        #expect((prores.json["error"] as? String)?.contains("--max-render-seconds") == true)
        let gif = try curl(form(a, b, spec: #"{"output":"long.gif","size":"1920x1080","duration":600}"#) + [server.url + "/v1/renders"])
        #expect(gif.status == 413, "\(gif.status) \(gif.text)")
        let small = try curl(form(a, b, spec: #"{"output":"ok.gif","size":"320x240","duration":2}"#) + [server.url + "/v1/renders"])
        #expect(small.status == 202, "\(small.text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.store).count == 1)
    }

    @Test("DELETE of a render in the middle of a long 4K frame frees its place within 2 s")
    func deleteFreesPlace() throws {
        let server = try ServeProcess(["--jobs", "1", "--max-render-seconds", "10h"])
        let (a, b) = try fixtures(width: 800, height: 600)
        let posted = try curl(
            form(a, b, spec: #"{"output":"slow.mov","codec":"prores","size":"3840x2160","duration":4}"#) + [server.url + "/v1/renders"])
        let id = try #require(posted.json["id"] as? String, "\(posted.text)")
        let deadline = Date().addingTimeInterval(30)
        while try curl([server.url + "/v1/renders/" + id]).json["state"] as? String != "running", Date() < deadline { usleep(50_000) }
        sleep(1)
        // The place is taken: a preview is 429.
        #expect(try curl(form(a, b, spec: #"{"output":"p.png","size":"64x48"}"#) + [server.url + "/v1/previews"]).status == 429)
        let deleted = Date()
        #expect(try curl(["-X", "DELETE", server.url + "/v1/renders/" + id]).status == 204)
        var freed: Double?
        while Date().timeIntervalSince(deleted) < 10 {
            if try curl([server.url + "/metrics"]).text.contains("sweep_renders_running 0") {
                freed = Date().timeIntervalSince(deleted)
                break
            }
            usleep(50_000)
        }
        #expect((freed ?? 99) < 2, "the place freed after \(freed ?? -1) s")
        let preview = try curl(form(a, b, spec: #"{"output":"p.png","size":"64x48"}"#) + [server.url + "/v1/previews"])
        #expect(preview.status == 200, "\(preview.status) \(preview.text)")
        // The stopped render's folder goes once its frame ends.
        let gone = Date().addingTimeInterval(120)
        while FileManager.default.fileExists(atPath: server.store + "/" + id), Date() < gone { usleep(200_000) }
        #expect(!FileManager.default.fileExists(atPath: server.store + "/" + id))
    }
}
