import Foundation
import SweepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Admission comes before the upload: a request with no place to go is answered at its
/// headers, and the store has a quota counted while uploads stream.
@Suite("sweep serve: admission before upload and the store quota", .serialized)
struct ServeAdmissionTests {
    /// The bytes under `folder`.
    static func bytes(in folder: String) -> Int {
        let names = (try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []
        return names.reduce(0) { sum, name in
            sum + ((try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? 0)
        }
    }

    @Test("an upload still arriving holds the one place: the next is 429 at its headers, before a byte of its body")
    func placeHeldWhileUploading() throws {
        let server = try ServeProcess(["--jobs", "1", "--queue", "0"])
        // An upload that has sent its headers and part of its body, and waits.
        let fd = try RawConnection.open(server.url)
        defer { close(fd) }
        let head =
            "POST /v1/renders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=bbbb\r\nContent-Length: 4000000\r\n\r\n"
            + "--bbbb\r\nContent-Disposition: form-data; name=\"before\"; filename=\"a.png\"\r\n\r\n"
        #expect(RawConnection.send(fd, Array(head.utf8) + [UInt8](repeating: 0x41, count: 100_000)))
        let deadline = Date().addingTimeInterval(10)
        while try FileManager.default.contentsOfDirectory(atPath: server.store).isEmpty, Date() < deadline { usleep(50_000) }
        let big = Scratch.path("admission-big.bin")
        try Data(count: 5 << 20).write(to: URL(fileURLWithPath: big))
        for expect in ["Expect: 100-continue", "Expect:"] {
            let reply = try curl(["-H", expect, "-F", "before=@" + big, "-F", "spec={\"output\":\"a.gif\"}", server.url + "/v1/renders"])
            #expect(reply.status == 429, "\(expect): \(reply.status) \(reply.text)")
            #expect(reply.json["error"] != nil)
            // Nothing of it reached the disk: the store holds only the first upload's folder.
            #expect(try FileManager.default.contentsOfDirectory(atPath: server.store).count == 1)
            #expect(Self.bytes(in: server.store) < 1 << 20)
        }
    }

    @Test("40 concurrent 2 MB uploads with 2 places: at most 2 reach the disk at once, the rest are 429")
    func concurrentUploads() throws {
        let server = try ServeProcess(["--jobs", "1", "--queue", "1"])
        let (a, b) = try fixtures(width: 800, height: 600)
        let padded = Scratch.path("padded.png")
        // A valid PNG followed by 2 MB of padding: a decoder stops at IEND.
        try (FileManager.default.contents(atPath: a)! + Data(count: 2 << 20)).write(to: URL(fileURLWithPath: padded))
        let spec = #"{"output":"slow.gif","size":"800x600","fps":"30","duration":"120"}"#
        let (store, url) = (server.store, server.url)
        let peak = SharedMax()
        let done = DispatchSemaphore(value: 0)
        let sampler = Thread {
            while done.wait(timeout: .now() + 0.02) == .timedOut { peak.update(Self.bytes(in: store)) }
        }
        sampler.start()
        let statuses = SharedList()
        DispatchQueue.concurrentPerform(iterations: 40) { _ in
            let status = (try? curl(["-H", "Expect:"] + form(padded, b, spec: spec) + [url + "/v1/renders"]))?.status ?? 0
            statuses.append(status)
        }
        done.signal()
        let all = statuses.values
        #expect(all.filter { $0 == 202 }.count == 2, "\(all)")
        #expect(all.filter { $0 == 429 }.count == 38, "\(all)")
        #expect(peak.value < 3 * (2 << 20) + (1 << 20), "peak store size \(peak.value)")
        for id in try FileManager.default.contentsOfDirectory(atPath: server.store) {
            _ = try curl(["-X", "DELETE", server.url + "/v1/renders/" + id])
        }
    }

    @Test("--max-store: an upload announced past it is 507 at once, one that streams past it is cut at the quota; the store is left clean")
    func quota() throws {
        let server = try ServeProcess(["--max-store", "1MB"])
        let big = Scratch.path("quota-big.bin")
        try Data(count: 2 << 20).write(to: URL(fileURLWithPath: big))
        let announced = try curl(["-F", "before=@" + big, "-F", "spec={\"output\":\"a.gif\"}", server.url + "/v1/renders"])
        #expect(announced.status == 507, "\(announced.status) \(announced.text)")
        #expect((announced.json["error"] as? String)?.contains("--max-store") == true)
        #expect(announced.uploaded < 1 << 20)
        // Chunked: no length is announced, so the quota is counted as the bytes arrive.
        let chunked = try curl([
            "-H", "Transfer-Encoding: chunked", "-F", "before=@" + big, "-F", "spec={\"output\":\"a.gif\"}", server.url + "/v1/renders",
        ])
        #expect(chunked.status == 507, "\(chunked.status) \(chunked.text)")
        #expect((chunked.json["error"] as? String)?.contains("store is full") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.store).isEmpty)
        // Under the quota, a render goes through, and the space comes back.
        let (a, b) = try fixtures()
        let ok = try curl(form(a, b, spec: #"{"output":"ok.png"}"#) + [server.url + "/v1/previews"])
        #expect(ok.status == 200)
    }
}

/// The largest value seen, across threads.
final class SharedMax: @unchecked Sendable {
    private let lock = NSLock()
    private var best = 0
    func update(_ v: Int) { lock.withLock { best = max(best, v) } }
    var value: Int { lock.withLock { best } }
}

/// Values appended from many threads.
final class SharedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []
    func append(_ v: Int) { lock.withLock { list.append(v) } }
    var values: [Int] { lock.withLock { list } }
}
