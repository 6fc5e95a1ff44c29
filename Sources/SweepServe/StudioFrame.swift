import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepRequest
import SweepSupport
import SweepTimeline

#if canImport(Glibc)
    import Glibc
#endif

/// The studio's preview drawn by the server, for what the browser cannot decode (HEIC, HEIF,
/// AVIF and HDR pictures, clips in any container): the page uploads the files once
/// (`POST /studio/uploads`, held by ``StudioUploads``) and asks for the still of a moment
/// (`GET /studio/uploads/ID/frame?spec=…&still=0|1&at=0…1`).
///
/// A frame is `sweep preview` of the request: the export's timeline (the same options as
/// `/v1/renders`; for clips the render's own ``ClipTimeline``) gives the frame at the share
/// `at` of it, its split position and, for clips, its clip time; the still is then rendered
/// with `position` at that split, `start` moved to that clip time and the looks of that
/// moment (which differ from the request's still only for a preset whose looks change, such
/// as look-tour), through the same path as `POST /v1/previews`. Its headers say what it shows (`X-Sweep-Position`,
/// `X-Sweep-Start` for clips, `X-Sweep-Time` and `X-Sweep-Length` in seconds of the output),
/// so the same still can be made on the command line.
///
/// The routes ask what the API asks: the bearer token when the server has one, the Host and
/// Origin checks otherwise, a place among `--jobs` for an upload and for each frame (429
/// when there is none), and the store's quota for the files.
enum StudioFrame {
    /// Seconds of the comparison a frame shows and where.
    struct Moment: Equatable {
        /// The split position (0…1).
        var position: Double
        /// The sides' looks then.
        var before: Adjustments
        var after: Adjustments
        /// For clips, the clip time shown, from the request's start.
        var clipTime: Double?
        /// Seconds into the output.
        var time: Double
        /// The output's length in seconds (one pass for pictures).
        var length: Double
    }

    /// The moment at the share `at` (0…1) of the export's timeline: for pictures, one pass
    /// of `animation`; for clips (`clip` given), the render's frames (``ClipTimeline``), the
    /// last one at most. The split moves as the render moves it with reduced motion off, as
    /// the page's element plays it.
    static func moment(
        at: Double, animation: Animation<Adjustments>, options: ClipOptions, clip: StudioUploads.ClipLength?, fps: Double,
        kind: OutputKind
    ) throws -> Moment {
        guard let clip else {
            let length = animation.passDuration, time = at * length, state = animation.state(at: time)
            return Moment(
                position: state.position, before: state.before, after: state.after, clipTime: nil, time: time, length: length)
        }
        let timeline = try ClipTimeline(
            animation: animation, clip: options, available: clip.available, clipRate: clip.rate, fps: fps,
            maxFPS: ClipTimeline.maxFPS(kind), reduceMotion: .off)
        let i = min(timeline.states.count - 1, max(0, Int((at * timeline.length * timeline.fps + 1e-6).rounded(.down))))
        let state = timeline.states[i]
        return Moment(
            position: state.position, before: state.before, after: state.after, clipTime: timeline.clipTimes[i],
            time: Double(i) / timeline.fps, length: timeline.length)
    }

    /// The routes under `/studio/uploads`, once the token and Host checks have passed.
    static func begin(
        _ request: HTTPRequest, service: RenderService, library: PresetLibrary
    ) -> HTTPStart {
        let s = request.segments
        if s.count == 2 { return upload(request, service: service) }
        let id = s[2]
        guard RenderStore.isID(id) else { return .respond(.problem(404, "no such studio upload")) }
        if request.method == "DELETE" {
            return .respond(service.studioUploads.remove(id) ? HTTPResponse(status: 204) : .problem(404, "no such studio upload"))
        }
        return .respond(frame(request, id: id, service: service, library: library))
    }

    /// Begins an upload of `before` (and `after`): a preview's place while it arrives, the
    /// store's quota for its bytes; 201 with its id once it is held.
    static func upload(_ request: HTTPRequest, service: RenderService) -> HTTPStart {
        if service.stopping { return .respond(.problem(503, "the server is shutting down", headers: [("Retry-After", "30")])) }
        let uploads = service.studioUploads
        guard uploads.hasRoom else { return .respond(full(uploads.limit)) }
        if let length = request.contentLength, !service.store.usage.fits(length) {
            return .respond(StoreUsage.full(service.store.usage.limit))
        }
        guard let reservation = service.queue.reserve(preview: true) else { return .respond(service.busy()) }
        let id: String
        do {
            id = try service.store.create()
            try FileManager.default.createDirectory(atPath: service.store.folder(id) + "/out", withIntermediateDirectories: false)
        } catch {
            return .respond(.error(error))
        }
        return .receive(
            RenderUpload(store: service.store, id: id) { upload in
                // The preview's place is held until the upload has arrived.
                withExtendedLifetime(reservation) {}
                guard let before = upload.files["before"] else {
                    return .problem(400, "the part before is missing; send the before picture or clip as the part before")
                }
                guard uploads.add(id, files: [before] + (upload.files["after"].map { [$0] } ?? [])) else { return full(uploads.limit) }
                upload.handOver()
                return .json(201, ["id": id], headers: [("Location", "/studio/uploads/" + id)])
            })
    }

    /// 429: the studio holds as many uploads as it may.
    static func full(_ limit: Int) -> HTTPResponse {
        .problem(
            429, "the server holds \(limit) studio uploads already; close another studio tab, or wait a few minutes",
            headers: [("Retry-After", "60")])
    }

    /// One frame of upload `id` for the query's `spec`, `still` and `at`: a PNG.
    static func frame(_ request: HTTPRequest, id: String, service: RenderService, library: PresetLibrary) -> HTTPResponse {
        let uploads = service.studioUploads
        guard let files = uploads.use(id) else {
            return .problem(
                404, "no such studio upload (unused uploads go after \(Int(StudioUploads.idleSeconds / 60)) minutes); pick the files again")
        }
        defer { uploads.done(id) }
        let folder = service.store.folder(id)
        let q = request.query
        do {
            guard let at = Double(q["at"] ?? ""), (0...1).contains(at) else {
                throw SweepError(.usage, "at must be a number 0…1 (the share of the timeline)", subject: "at", fix: "give at=0.5")
            }
            let text = Array((q["spec"] ?? "").utf8)
            let memory = DecoderMemory.defaultBudget / service.options.jobs
            let export = try ServeSpec(
                text, inputs: files, folder: folder + "/out", still: q["still"] == "1", library: library, memory: memory,
                maxFramePixels: service.options.maxFramePixels
            ).resolved
            guard service.queue.beginPreview() else { return service.busy() }
            defer { service.queue.endPreview() }
            let c = export.spec.clip
            let key = "\(c.start) \(c.beforeOffset) \(c.afterOffset)"
            let clip: StudioUploads.ClipLength?
            if let known = uploads.clip(id, key: key) {
                clip = known
            } else {
                // The sides as the render opens them: how long the clips last from the start.
                let source = try FrameSource(spec: export.spec)
                if let available = source.clipDuration, let rate = source.clipRate {
                    clip = StudioUploads.ClipLength(available: available, rate: rate)
                } else {
                    clip = nil
                }
                uploads.remember(id, key: key, clip)
            }
            let m = try moment(at: at, animation: export.spec.animation, options: c, clip: clip, fps: export.spec.fps, kind: export.kind)
            // The still at that moment: the request's own keys, with the split and the start moved.
            // Read by the decoder ServeSpec reads it with, so that both see the same keys.
            var object = try RequestKeys.object(text) { message, fix in SweepError(.usage, message, subject: "spec", fix: fix) }
            object["position"] = .number(String(m.position))
            if let t = m.clipTime { object["start"] = .number(String(c.start + t)) }
            let name = "frame-" + RenderStore.newID() + ".png"
            object["output"] = .string(name)
            var r = try ServeSpec(
                Array(try JSONEncoder().encode(object)), inputs: files,
                folder: folder + "/out", still: true, library: library, memory: memory, maxFramePixels: service.options.maxFramePixels
            ).resolved
            // A still shows its animation's looks at time 0: the moment's, for a preset whose
            // looks change (look-tour); the same still as the request's own when they do not.
            let a = r.spec.animation
            r.spec.animation = Animation(
                position: Track(constant: m.position), before: Track(constant: m.before), after: Track(constant: m.after),
                duration: a.duration, loop: a.loop)
            let result = try RenderRun.perform(r, progress: nil)[0]
            let path = r.output
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            // The open descriptor keeps the bytes; the name goes now.
            unlink(path)
            var info = stat()
            guard fd >= 0, fstat(fd, &info) == 0 else {
                if fd >= 0 { close(fd) }
                throw SweepError(.ioError, "the frame vanished", subject: "frame")
            }
            service.metrics.previewed()
            service.metrics.sent(Int(info.st_size))
            var headers = [
                ("Content-Type", "image/png"), ("Cache-Control", "no-store"), ("X-Sweep-Size", "\(result.width)x\(result.height)"),
                ("X-Sweep-Position", String(m.position)), ("X-Sweep-Time", String(m.time)), ("X-Sweep-Length", String(m.length)),
            ]
            if let t = m.clipTime { headers.append(("X-Sweep-Start", String(c.start + t))) }
            return HTTPResponse(status: 200, headers: headers, body: .file(fd, Int(info.st_size)))
        } catch {
            return .error(error, hiding: folder)
        }
    }
}
