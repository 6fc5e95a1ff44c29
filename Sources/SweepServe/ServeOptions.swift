import Foundation
import SweepMedia
import SweepRequest
import SweepSupport

/// `sweep serve`'s options, parsed from the command line. Pure: it throws, never prints.
package struct ServeOptions: Sendable, Equatable {
    package var host = "127.0.0.1"
    package var port = 8080
    /// The bearer token every `/v1` request but health must carry, or nil for none.
    package var token: String?
    /// Renders at once.
    package var jobs = ParallelCores.count
    /// Renders waiting, past which a submission is answered 429.
    package var queue = 16
    /// Where uploads and outputs live, one folder per render.
    package var store = "sweep-store"
    /// The largest request body, in bytes.
    package var maxUpload = 200_000_000
    /// How long a finished render's output is kept, in seconds.
    package var keep = 3600.0
    /// How long SIGTERM waits for running renders, in seconds.
    package var grace = 30.0
    /// The most pixels one output frame may have: what bounds one request's memory (a render
    /// holds a few frames and an encoder's tables, about 150 bytes a pixel for a GIF) and the
    /// time to its next frame, where DELETE and SIGTERM stop it. 3840×2160 by default.
    package var maxFramePixels = 3840 * 2160
    /// The most bytes the store may hold (uploads as they stream, and outputs), or nil for a
    /// quarter of the free space of its disk at start.
    package var maxStore: Int?
    /// The longest a render may run, in seconds: one estimated longer is refused at the POST
    /// (413), one running longer is stopped (15 minutes by default).
    package var maxRenderSeconds = 900.0

    package init() {}

    /// The options `sweep serve` knows.
    package static let known: [ArgumentSplitter.Option] = [
        .init("host"), .init("port"), .init("token"), .init("jobs", short: "j"), .init("queue"), .init("store"),
        .init("max-upload"), .init("keep"), .init("grace"), .init("max-frame-pixels"), .init("max-store"),
        .init("max-render-seconds"),
    ]

    /// Parses `args` (after `serve`).
    ///
    /// - Throws: `.usage` for an unknown option, a bad value, a positional argument, or a host
    ///   other than loopback without `--token`.
    package static func parse(_ args: [String]) throws -> ServeOptions {
        let r = try ArgumentSplitter(known).split(args)
        if let extra = r.positionals.first {
            throw SweepError(.usage, "takes no arguments", subject: extra, fix: "see sweep serve --help")
        }
        var o = ServeOptions()
        if let v = r.value("host") { o.host = v }
        if let v = r.value("port") { o.port = try ValueParser.int(v, option: "--port", range: 0...65535) }
        if let v = r.value("token") {
            guard !v.isEmpty, v.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
                throw SweepError(
                    .usage, "the token must be printable ASCII without spaces", subject: "--token", fix: "use e.g. $(openssl rand -hex 24)")
            }
            o.token = v
        }
        if let v = r.value("jobs") { o.jobs = try ValueParser.int(v, option: "--jobs", range: 1...256) }
        if let v = r.value("queue") { o.queue = try ValueParser.int(v, option: "--queue", range: 0...100_000) }
        if let v = r.value("store") {
            guard !v.isEmpty else { throw SweepError(.usage, "needs a folder", subject: "--store", fix: "write --store DIR") }
            o.store = v
        }
        if let v = r.value("max-upload") { o.maxUpload = try ValueParser.bytes(v, option: "--max-upload") }
        if let v = r.value("keep") { o.keep = try duration(v, option: "--keep") }
        if let v = r.value("grace") { o.grace = try duration(v, option: "--grace") }
        if let v = r.value("max-frame-pixels") {
            o.maxFramePixels = try ValueParser.int(v, option: "--max-frame-pixels", range: 4...ImageDecoder.defaultMaxPixels)
        }
        if let v = r.value("max-store") { o.maxStore = try ValueParser.bytes(v, option: "--max-store") }
        if let v = r.value("max-render-seconds") {
            o.maxRenderSeconds = try duration(v, option: "--max-render-seconds")
            guard o.maxRenderSeconds >= 1 else {
                throw SweepError(.usage, "must be at least 1 s", subject: "--max-render-seconds", fix: "write e.g. 15m")
            }
        }
        guard o.token != nil || isLoopback(o.host) else {
            throw SweepError(
                .usage, "listening on \(o.host) needs a token", subject: "--host",
                fix: "add --token T (clients send Authorization: Bearer T), or keep the default 127.0.0.1")
        }
        return o
    }

    /// True for an address only this machine reaches: an IPv4 address in 127.0.0.0/8 (in its
    /// dotted form), ::1, localhost.
    package static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { p in (1...3).contains(p.count) && p.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } && Int(p)! <= 255 }
    }

    /// A duration: seconds (`90`, `2.5`), or a number with a unit (`90s`, `30m`, `1h`, `2d`).
    package static func duration(_ s: String, option: String) throws -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var text = Substring(s.trimmingCharacters(in: .whitespaces).lowercased())
        var factor = 1.0
        if let last = text.last, let f = units[last] {
            factor = f
            text = text.dropLast()
        }
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let v = Double(text), v.isFinite,
            v * factor <= 366 * 86400
        else {
            throw SweepError(.usage, "'\(s)' is not a duration", subject: option, fix: "write e.g. 90s, 30m, 1h or 2d")
        }
        return v * factor
    }

    /// `sweep serve --help`.
    package static let help = HelpText([
        .synopsis(
            "sweep serve [--host 127.0.0.1] [--port 8080] [--token T] [--jobs N] [--queue N] [--store DIR] [--max-upload 200MB] [--keep 1h] [--grace 30s] [--max-frame-pixels N] [--max-store N] [--max-render-seconds T]"
        ),
        .blank,
        .text("The render service: an HTTP API that renders what `sweep render` renders, from uploads."),
        .blank,
        .entries(
            [
                .init(["--host H"], "the address to listen on (default 127.0.0.1); any but loopback needs --token"),
                .init(["--port N"], "the port (default 8080; 0 picks a free one); prints `listening on URL`"),
                .init(["--token T"], "every /v1 request but /v1/health must send Authorization: Bearer T"),
                .init(["--jobs N"], "renders at once (default: the number of cores)"),
                .init(["--queue N"], "renders waiting (default 16); past that, 429 with Retry-After"),
                .init(["--store DIR"], "uploads and outputs, one folder per render (default ./sweep-store)"),
                .init(["--max-upload N"], "the largest request body (default 200MB)"),
                .init(["--keep T"], "how long outputs are kept (default 1h; 90s, 30m, 2d)"),
                .init(
                    ["--grace T"],
                    "on SIGTERM or SIGINT, how long running renders may finish (default 30s); the rest stay queued on disk and run when the server starts again"
                ),
                .init(
                    ["--max-frame-pixels N"],
                    "the most pixels an output frame may have (default 8294400, 3840x2160); bounds each render's memory (a GIF takes about 150 bytes a pixel)"
                ),
                .init(
                    ["--max-store N"],
                    "the most the store may hold, uploads counted as they stream (default: a quarter of its disk's free space at start); past it, 507"
                ),
                .init(
                    ["--max-render-seconds T"],
                    "the longest a render may run (default 15m): one estimated longer is refused (413), one running longer is stopped"
                ),
            ], column: 20),
        .blank,
        .text("API (JSON; the OpenAPI document is GET /v1/openapi.json):"),
        .entries(
            [
                .init(
                    ["POST /v1/renders"],
                    #"multipart: before, after (optional), spec (a batch job's keys; output is a bare file name); answers 202 {"id"}"#),
                .init(
                    ["GET /v1/renders/ID"],
                    "state, progress, notes, summary; ID/output the file, ID/events the progress as server-sent events"),
                .init(["DELETE /v1/renders/ID"], "cancel and remove"),
                .init(["POST /v1/previews"], "a still (png, jpg, webp) in the response"),
                .init(["GET /v1/health"], "200 while the service runs"),
                .init(["GET /metrics"], "Prometheus metrics"),
                .init(["GET /"], "the studio: pick two pictures, tune the animation by eye, render it through the API"),
            ], column: 26),
        .blank,
        .text("TLS: put it behind a reverse proxy (nginx, Caddy)."),
    ])
}
