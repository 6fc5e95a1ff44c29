import Foundation
import SweepMedia
import SweepPipeline
import SweepRequest
import SweepSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The API: routes each request to the store, the queue or a synchronous preview, checking
/// the token; every failure answers one JSON error.
package final class RenderService: HTTPHandler {
    package let options: ServeOptions
    package let store: RenderStore
    package let queue: RenderQueue
    package let metrics: ServeMetrics
    private let library: PresetLibrary
    /// The OpenAPI document's bytes (its security and preset names follow this server's).
    private let openAPI: [UInt8]
    private let stoppingFlag = Mutex(false)
    /// Set once the renders are settled at a stop: event streams send their last event.
    private let closingStreams = Mutex(false)
    /// Event streams open now: each holds a connection and its thread.
    private let streams = Mutex(0)
    /// The most event streams open at once: a quarter of the connections, so that streams
    /// cannot take the places health checks and uploads need.
    static let maxStreams = HTTPServer.connectionLimit / 4
    /// The studio (`GET /`), built once: its option list and preset names are this server's.
    private let studio: StudioPage
    /// The files studio tabs uploaded for a preview drawn by the server (``StudioFrame``).
    package let studioUploads: StudioUploads

    /// Opens the store (recovering it after a restart) and makes the queue.
    ///
    /// - Throws: `.cannotCreate` when the store cannot be made.
    package init(options: ServeOptions) throws {
        self.options = options
        store = try RenderStore(root: options.store, quota: options.maxStore)
        metrics = ServeMetrics()
        let recovered = store.recover(keep: options.keep)
        store.usage.add(StoreUsage.size(of: store.root))
        queue = RenderQueue(
            store: store, metrics: metrics, jobs: options.jobs, limit: options.queue, maxSeconds: options.maxRenderSeconds,
            recovered: recovered)
        library = PresetLibrary.locate()
        openAPI = OpenAPIDocument.bytes(secured: options.token != nil, library: library)
        studio = StudioPage(library: library, secured: options.token != nil)
        studioUploads = StudioUploads(store: store, limit: max(4, 2 * options.jobs))
        // In the order they were accepted, as the queue had them.
        for record in recovered.filter({ !$0.state.isFinal }).sorted(by: { $0.created < $1.created }) { resume(record) }
    }

    /// Runs again a render accepted before the restart (its record queued, its spec and uploads
    /// kept), or marks it failed with the reason its spec no longer passes.
    private func resume(_ record: RenderRecord) {
        let folder = store.folder(record.id)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let file = { (part: String) in
            names.first { $0 == part || ($0.hasPrefix(part + ".") && !$0.dropFirst(part.count + 1).contains(".")) }.map {
                folder + "/" + $0
            }
        }
        do {
            guard let before = file("before"), let spec = FileManager.default.contents(atPath: folder + "/" + RenderStore.specName) else {
                throw SweepError(.noInput, "its uploads are gone", subject: "store", fix: "submit the render again")
            }
            let inputs = [before] + (file("after").map { [$0] } ?? [])
            let checked = try ServeSpec(
                Array(spec), inputs: inputs, folder: folder + "/out", still: false, library: library,
                memory: DecoderMemory.defaultBudget / options.jobs, maxFramePixels: options.maxFramePixels)
            queue.resume(record, options: checked.resolved)
        } catch {
            let e = error as? SweepError ?? SweepError(.internalError, "internal error: \(error)", fix: "please report it")
            var failed = record
            failed.state = .failed
            failed.error = "could not run again after a restart: " + HTTPResponse.line(e, hiding: folder)
            failed.exit = Int(e.code.exitCode)
            failed.finished = Date().timeIntervalSince1970
            store.clear(record.id)
            store.save(failed)
            queue.remember(failed)
        }
    }

    /// True once a shutdown has begun (event streams end).
    package var stopping: Bool {
        get { stoppingFlag.withLock { $0 } }
        set { stoppingFlag.withLock { $0 = newValue } }
    }

    /// Ends every event stream with its last event (`state`, or `interrupted` for a render kept
    /// for the restart), waiting up to `seconds` for them to be sent.
    package func endStreams(within seconds: Double) {
        closingStreams.withLock { $0 = true }
        let deadline = Date().addingTimeInterval(seconds)
        while streams.withLock({ $0 }) > 0, Date() < deadline { usleep(20_000) }
    }

    /// The content type of an output, by its extension.
    static let contentTypes: [String: String] = [
        "gif": "image/gif", "mp4": "video/mp4", "m4v": "video/mp4", "webm": "video/webm", "mov": "video/quicktime",
        "mkv": "video/x-matroska", "webp": "image/webp", "apng": "image/apng", "html": "text/html; charset=utf-8",
        "htm": "text/html; charset=utf-8", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
    ]

    static func contentType(of name: String) -> String {
        contentTypes[URL(fileURLWithPath: name).pathExtension.lowercased()] ?? "application/octet-stream"
    }

    /// The routes and their methods (for 405's Allow).
    static func methods(for segments: [String]) -> [String]? {
        switch segments.count {
        case 0: return ["GET"]
        case 1 where segments[0] == "metrics": return ["GET"]
        case 2 where segments == ["studio", "element"]: return ["GET"]
        case 2 where segments == ["studio", "uploads"] || segments == ["studio", "probe"]: return ["POST"]
        case 3 where segments[..<2] == ["studio", "uploads"]: return ["DELETE"]
        case 4 where segments[..<2] == ["studio", "uploads"] && segments[3] == "frame": return ["GET"]
        case 2 where segments[0] == "v1":
            switch segments[1] {
            case "health", "openapi.json": return ["GET"]
            case "renders", "previews": return ["POST"]
            default: return nil
            }
        case 3 where segments[0] == "v1" && segments[1] == "renders": return ["GET", "DELETE"]
        case 4 where segments[0] == "v1" && segments[1] == "renders" && ["output", "events"].contains(segments[3]): return ["GET"]
        default: return nil
        }
    }

    package func begin(_ request: HTTPRequest) -> HTTPStart {
        let s = request.segments
        guard let allowed = Self.methods(for: s) else { return .respond(.problem(404, "no such route: \(request.path.prefix(200))")) }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard allowed.contains(method) else {
            return .respond(
                .problem(405, "\(request.method.prefix(20)) is not allowed here", headers: [("Allow", allowed.joined(separator: ", "))]))
        }
        if options.token == nil, let refusal = Self.foreign(request, host: options.host) {
            return .respond(.problem(403, refusal))
        }
        if s == ["v1", "health"] { return .respond(.json(200, ["status": "ok"])) }
        if s.isEmpty { return .respond(studio.response) }
        if s == ["studio", "element"] { return .respond(studioElement(request)) }
        if s == ["studio", "probe"] { return .receive(StudioProbe()) }
        // The API, the metrics (which tell the load and the traffic) and the studio's uploads need the token.
        if s[0] == "v1" || s[0] == "metrics" || s[0] == "studio", let token = options.token, !Self.authorized(request, token: token) {
            return .respond(
                .problem(401, "missing or wrong bearer token", headers: [("WWW-Authenticate", "Bearer realm=\"sweep\"")]))
        }
        if s[0] == "studio" { return StudioFrame.begin(request, service: self, library: library) }
        switch (s.count, s.last!) {
        case (1, _):
            let (waiting, running) = queue.counts
            let text = metrics.text(waiting: waiting, running: running)
            return .respond(
                HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: .bytes(Array(text.utf8))))
        case (2, "openapi.json"):
            return .respond(HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: .bytes(openAPI)))
        case (2, "renders"): return startUpload(request, still: false)
        case (2, _): return startUpload(request, still: true)
        default: break
        }
        let id = s[2]
        if s.count == 3, method == "DELETE" {
            // By what the queue knows, not by a record it can read.
            return .respond(RenderStore.isID(id) && queue.delete(id) ? HTTPResponse(status: 204) : .problem(404, "no render with this id"))
        }
        guard RenderStore.isID(id), let record = queue.record(id) else { return .respond(.problem(404, "no render with this id")) }
        if s.count == 3 {
            return .respond(.json(200, record.json))
        }
        if s[3] == "events" {
            let opened = streams.withLock { n in
                guard n < Self.maxStreams else { return false }
                n += 1
                return true
            }
            guard opened else {
                return .respond(
                    .problem(
                        429, "too many event streams are open (\(Self.maxStreams)); poll GET /v1/renders/ID instead",
                        headers: [("Retry-After", "5")]))
            }
            let stream = EventStream(
                id: id, queue: queue, stopping: { [weak self] in self?.closingStreams.withLock { $0 } ?? true },
                ended: { [weak self] in self?.streams.withLock { $0 -= 1 } })
            return .respond(
                HTTPResponse(
                    status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
                    body: .stream({ stream.next() })))
        }
        return .respond(output(record, request: request))
    }

    /// The studio preview's element configuration (``StudioPreview``) for the query's `spec`,
    /// `w`, `h`, `two` (an after picture) and `still`.
    func studioElement(_ request: HTTPRequest) -> HTTPResponse {
        let q = request.query
        do {
            let text = try StudioPreview.config(
                spec: Array((q["spec"] ?? "").utf8), width: Int(q["w"] ?? "") ?? 0, height: Int(q["h"] ?? "") ?? 0,
                twoSides: q["two"] == "1", still: q["still"] == "1", library: library, maxFramePixels: options.maxFramePixels)
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: .bytes(Array(text.utf8)))
        } catch {
            return .error(error, hiding: "studio")
        }
    }

    /// The output file of a finished render, or 409.
    func output(_ record: RenderRecord, request: HTTPRequest) -> HTTPResponse {
        guard record.state == .done, let etag = record.etag else {
            if record.state == .failed {
                // The render's own exit code, as `sweep render` would have ended.
                return .json(409, ["error": "the render failed: \(record.error ?? ""); it has no output", "exit": record.exit ?? 70])
            }
            return .problem(409, "the render is \(record.state.rawValue); its output is not ready")
        }
        let headers = [
            ("Content-Type", Self.contentType(of: record.output)), ("ETag", etag), ("Cache-Control", "private, max-age=3600"),
            ("Content-Disposition", "attachment; filename=\"\(record.output.replacingOccurrences(of: "\"", with: "_"))\""),
        ]
        if let match = request.headers["if-none-match"],
            match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag })
        {
            return HTTPResponse(status: 304, headers: headers.filter { $0.0 != "Content-Type" })
        }
        let fd = open(store.folder(record.id) + "/out/" + record.output, O_RDONLY | O_CLOEXEC)
        var info = stat()
        guard fd >= 0, fstat(fd, &info) == 0 else {
            if fd >= 0 { close(fd) }
            return .problem(404, "the output is gone (expired)")
        }
        metrics.sent(Int(info.st_size))
        return HTTPResponse(status: 200, headers: headers, body: .file(fd, Int(info.st_size)))
    }

    /// Begins a multipart upload into a new folder: a render (`still` false) or a preview.
    ///
    /// Admission comes first, at the headers: a place is reserved for the upload (a queue slot
    /// for a render, one of `--jobs` uploading previews), or the answer is 429 before a byte of
    /// the body is read; an announced body that would pass the store's quota is 507.
    func startUpload(_ request: HTTPRequest, still: Bool) -> HTTPStart {
        if stopping { return .respond(.problem(503, "the server is shutting down", headers: [("Retry-After", "30")])) }
        if let length = request.contentLength, !store.usage.fits(length) { return .respond(StoreUsage.full(store.usage.limit)) }
        guard let reservation = queue.reserve(preview: still) else { return .respond(busy()) }
        let id: String
        do {
            id = try store.create()
            try FileManager.default.createDirectory(atPath: store.folder(id) + "/out", withIntermediateDirectories: false)
        } catch {
            return .respond(.error(error))
        }
        return .receive(
            RenderUpload(store: store, id: id) { [self] upload in
                still ? preview(upload) : submit(upload, id: id, reservation: reservation)
            })
    }

    /// 429 with a Retry-After.
    /// 429 with a Retry-After: about when a place frees, from the renders' mean time so far
    /// (10 s before any), within 1…600 s.
    func busy() -> HTTPResponse {
        metrics.rejected()
        let mean = metrics.meanSeconds ?? 10
        let wait = Int(min(600, max(1, (mean * Double(queue.counts.waiting + 1) / Double(queue.jobs)).rounded(.up))))
        return .problem(429, "the render queue is full", headers: [("Retry-After", String(wait))])
    }

    /// The spec and inputs of a finished upload, checked.
    func spec(_ upload: RenderUpload, still: Bool) throws -> ServeSpec {
        guard let before = upload.files["before"] else {
            throw SweepError(.usage, "the part before is missing", subject: "body", fix: "send the before image as the part before")
        }
        guard !upload.spec.isEmpty else {
            throw SweepError(.usage, "the part spec is missing", subject: "body", fix: "send a spec such as {\"output\": \"out.gif\"}")
        }
        let inputs = [before] + (upload.files["after"].map { [$0] } ?? [])
        return try ServeSpec(
            upload.spec, inputs: inputs, folder: upload.folder + "/out", still: still, library: library,
            memory: DecoderMemory.defaultBudget / options.jobs, maxFramePixels: options.maxFramePixels)
    }

    /// Queues a render: 202 with its id.
    func submit(_ upload: RenderUpload, id: String, reservation: RenderQueue.Reservation) -> HTTPResponse {
        do {
            let spec = try spec(upload, still: false)
            if let estimate = spec.estimatedSeconds, estimate > options.maxRenderSeconds {
                return .json(
                    413,
                    [
                        "error":
                            "the render is estimated at \(Int(estimate.rounded(.up))) s, over this server's limit of \(Int(options.maxRenderSeconds)) s (--max-render-seconds); "
                            + "render fewer frames or fewer pixels", "exit": 64, "estimatedSeconds": Int(estimate.rounded(.up)),
                    ])
            }
            // Kept beside the uploads until the render ends: a restart runs it from them.
            guard FileManager.default.createFile(atPath: upload.folder + "/" + RenderStore.specName, contents: Data(upload.spec)) else {
                throw SweepError(.ioError, "cannot store the spec", subject: "spec", fix: "check the store's disk")
            }
            let admission = queue.submit(RenderRecord(id: id, output: spec.output), options: spec.resolved, reservation: reservation)
            switch admission {
            case .started, .queued:
                upload.handOver()
                let state = admission == .started ? "running" : "queued"
                return .json(202, ["id": id, "state": state], headers: [("Location", "/v1/renders/" + id)])
            case .full: return busy()
            case .closed: return .problem(503, "the server is shutting down", headers: [("Retry-After", "30")])
            }
        } catch {
            return .error(error, hiding: upload.folder)
        }
    }

    /// Renders a still now and answers with it.
    func preview(_ upload: RenderUpload) -> HTTPResponse {
        do {
            let r = try spec(upload, still: true).resolved
            guard queue.beginPreview() else { return busy() }
            defer { queue.endPreview() }
            let results = try RenderRun.perform(r, progress: nil)
            let path = r.output
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            var info = stat()
            guard fd >= 0, fstat(fd, &info) == 0 else {
                if fd >= 0 { close(fd) }
                throw SweepError(.ioError, "the preview vanished", subject: "preview")
            }
            let size = Int(info.st_size)
            // The open descriptor keeps the file's bytes; the folder goes with the upload.
            metrics.previewed()
            metrics.sent(size)
            return HTTPResponse(
                status: 200,
                headers: [
                    ("Content-Type", Self.contentType(of: path)), ("ETag", RenderQueue.etag(of: path)),
                    ("X-Sweep-Size", "\(results[0].width)x\(results[0].height)"),
                ], body: .file(fd, size))
        } catch {
            return .error(error, hiding: upload.folder)
        }
    }

    /// Why a request to a server without a token is refused as coming from a web page on another
    /// site, or nil. Without a token, a page anywhere could post to a loopback server (a
    /// multipart form needs no preflight) or reach it through DNS rebinding; so its `Host` must
    /// be one of this machine's own names, and an `Origin`, when sent, too (see
    /// ``isLocalAuthority(_:listening:)``).
    package static func foreign(_ request: HTTPRequest, host: String) -> String? {
        guard let given = request.headers["host"], isLocalAuthority(given, listening: host) else {
            return "the Host header does not name this server (\(request.headers["host"]?.prefix(100) ?? "none")); "
                + "use localhost, 127.0.0.1 or [::1], or start the server with --token"
        }
        if let origin = request.headers["origin"] {
            let parts = origin.components(separatedBy: "://")
            guard parts.count == 2, ["http", "https"].contains(parts[0]), isLocalAuthority(parts[1], listening: host) else {
                return "requests from web pages of other sites are refused (Origin \(origin.prefix(100)))"
            }
        }
        return nil
    }

    /// The names a loopback server answers to without a token.
    static let localNames: Set<String> = ["localhost", "127.0.0.1", "[::1]"]

    /// True when `authority` (`name[:port]`) is exactly `localhost`, `127.0.0.1`, `[::1]` or
    /// the address the server listens on, with an optional port of digits. Any other name,
    /// however it is shaped (`127.a.attacker.tld`, `127.0.0.1.evil.com`, `localhost.evil`,
    /// `0x7f.1`), is one a DNS server elsewhere answers for, so a page there could rebind it to
    /// this machine.
    package static func isLocalAuthority(_ authority: String, listening host: String) -> Bool {
        var name = Substring(authority)
        var port: Substring?
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: close)...]
            name = name[...close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return false }
                port = rest.dropFirst()
            }
        } else if let colon = name.firstIndex(of: ":") {
            port = name[name.index(after: colon)...]
            name = name[..<colon]
        }
        if let port, !(1...5).contains(port.count) || !port.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) { return false }
        let listening = host.contains(":") ? "[" + host + "]" : host
        return localNames.contains(name.lowercased()) || name == listening
    }

    /// True when `request` carries `Authorization: Bearer token` (compared in constant time).
    static func authorized(_ request: HTTPRequest, token: String) -> Bool {
        guard let header = request.headers["authorization"], header.hasPrefix("Bearer ") else { return false }
        let given = Array(header.dropFirst(7).utf8), wanted = Array(token.utf8)
        guard given.count == wanted.count else { return false }
        return zip(given, wanted).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
