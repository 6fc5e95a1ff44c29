import Dispatch
import Foundation
import SweepKit
import SweepTestSupport
import Synchronization
import Testing

/// One request through the four doors that take it: the command line, a batch job, the render
/// service and SweepKit give the same bytes and the same note (issue 57).
@Suite("One request through every door", .serialized)
struct ServeParityTests {
    @Test("A video format written as a GIF, with a hold only its 6 s pass allows: the same GIF and note everywhere")
    func formatHoldAndKind() throws {
        let (a, b) = try fixtures()
        let dir = URL(fileURLWithPath: a).deletingLastPathComponent().path
        let cli = try runSweep([
            "render", a, b, "-o", dir + "/cli.gif", "--format", "story", "--size", "96x170", "--fps", "5", "--hold", "1.5",
        ])
        #expect(cli.code == 0, "\(cli.stderr)")
        try Data(
            #"{"before": "a.png", "after": "b.png", "output": "batch.gif", "format": "story", "size": "96x170", "fps": 5, "hold": 1.5}"#
                .utf8
        ).write(to: URL(fileURLWithPath: dir + "/jobs.jsonl"))
        let batch = try runSweep(["batch", dir + "/jobs.jsonl", "--out-dir", dir, "--quiet"])
        #expect(batch.code == 0, "\(batch.stderr)")

        let server = try ServeProcess()
        let spec = #"{"output":"svc.gif","format":"story","size":"96x170","fps":"5","hold":"1.5"}"#
        let posted = try curl(form(a, b, spec: spec) + [server.url + "/v1/renders"])
        let id = try #require(posted.json["id"] as? String, "\(posted.text)")
        let record = try waitFor(id, at: server.url)
        #expect(record["state"] as? String == "done", "\(record)")
        let served = try curl([server.url + "/v1/renders/\(id)/output"])

        var kit = Comparison(before: URL(fileURLWithPath: a), after: URL(fileURLWithPath: b))
        kit.apply(try PresetLibrary.locate().format("story"), keeping: [.size, .fps])
        kit.size = .exact(width: 96, height: 170)
        kit.fps = 5
        kit.timing = SweepTiming(hold: 1.5)
        let result = try kit.render(to: URL(fileURLWithPath: dir + "/kit.gif"))
        // The 6 s pass keeps the 1.5 s holds a 4 s pass would cut to 1 s.
        let times = kit.animation.position.keyframes.map(\.time)
        #expect(abs(result.duration - 6) < 1e-9 && times.count == 4 && abs(times[1] - 1.5) < 1e-9, "\(times)")

        let reference = try Data(contentsOf: URL(fileURLWithPath: dir + "/cli.gif"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/batch.gif")) == reference)
        #expect(served.body == reference)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/kit.gif")) == reference)
        let note = try #require(result.notes.first { $0.contains("story is made for h264; this is gif") }, "\(result.notes)")
        #expect(cli.stderr.contains(note), "CLI: \(cli.stderr)")
        #expect((record["notes"] as? [String])?.contains(note) == true, "service: \(record)")
    }

    /// One request of the matrix: its settings as `key=value` (CLI flags, batch keys and the
    /// service's spec keys are the same names), and its output's extension.
    struct Request: CustomStringConvertible {
        var settings: [(key: String, value: String)]
        var ext: String
        /// The inputs are two short clips, not two photos.
        var clips = false
        var description: String {
            settings.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + " ." + ext + (clips ? " (clips)" : "")
        }
        func value(_ key: String) -> String? { settings.first { $0.key == key }?.value }
    }

    /// Formats (none, a video one, a GIF one, a still one) × holds × durations × eases ×
    /// outputs × caps (288), stills of a still format (48), clip starts, ends and offsets (16), a
    /// pass shorter than the clips, once and looped (4), clip settings on photos (2): 358 requests, small (48x36) so that all four doors run them.
    static let matrix: [Request] = {
        var all: [Request] = []
        for format in [nil, "story", "github-readme", "og-image"] {
            for hold in [nil, "0", "1.5"] {
                for duration in [nil, "3"] {
                    for ease in [nil, "spring", "ease-in"] {
                        for ext in ["gif", "mp4"] {
                            for cap in [nil, "2000"] {
                                var settings: [(key: String, value: String)] = [("size", "48x36"), ("fps", "4")]
                                for (key, value) in [
                                    ("format", format), ("hold", hold), ("duration", duration), ("ease", ease), ("max-bytes", cap),
                                ] {
                                    if let value { settings.append((key, value)) }
                                }
                                all.append(Request(settings: settings, ext: ext))
                            }
                        }
                    }
                }
            }
        }
        // Stills of a still format: the timing and reduced motion cannot act on them (refused by
        // the CLI, a note from SweepKit, batch and the service, as RequestDoor's table says).
        for ext in ["png", "jpg", "webp"] {
            for hold in [nil, "1.5"] {
                for ease in [nil, "spring"] {
                    for motion in [nil, "cut"] {
                        for cap in [nil, "20000"] {
                            var settings: [(key: String, value: String)] = [("size", "48x36"), ("format", "og-image")]
                            for (key, value) in [("hold", hold), ("ease", ease), ("reduce-motion", motion), ("max-bytes", cap)] {
                                if let value { settings.append((key, value)) }
                            }
                            all.append(Request(settings: settings, ext: ext))
                        }
                    }
                }
            }
        }
        // Clips: where the comparison starts and ends, and the after clip's own offset.
        for start in [nil, "0.5"] {
            for end in [nil, "1.5"] {
                for offset in [nil, "0.4"] {
                    for ext in ["gif", "mp4"] {
                        var settings: [(key: String, value: String)] = [("size", "48x36"), ("fps", "4")]
                        for (key, value) in [("start", start), ("end", end), ("after-start", offset)] {
                            if let value { settings.append((key, value)) }
                        }
                        all.append(Request(settings: settings, ext: ext, clips: true))
                    }
                }
            }
        }
        // A pass shorter than the clips shortens the output, once or repeated (--loop 2).
        for loop in [nil, "2"] {
            for ext in ["gif", "mp4"] {
                var settings: [(key: String, value: String)] = [("size", "48x36"), ("fps", "4"), ("duration", "0.8")]
                if let loop { settings.append(("loop", loop)) }
                all.append(Request(settings: settings, ext: ext, clips: true))
            }
        }
        // Clip settings on photos: nothing to start or offset (refused by the CLI, a note elsewhere).
        for key in ["start", "after-start"] {
            all.append(Request(settings: [("size", "48x36"), ("fps", "4"), (key, "0.5")], ext: "gif"))
        }
        return all
    }()

    /// How one door ended: the output's bytes, or the exit code and the error's words.
    enum Outcome {
        case wrote(Data, notes: [String])
        case refused(code: Int, message: String)
    }

    /// The request through SweepKit, set as an app would.
    func kit(_ r: Request, _ a: String, _ b: String, to path: String) throws -> Outcome {
        var kit = Comparison(before: URL(fileURLWithPath: a), after: URL(fileURLWithPath: b))
        var timing = SweepTiming()
        if let hold = r.value("hold") { timing.hold = Double(hold)! }
        if let duration = r.value("duration") { timing.duration = Double(duration)! }
        if let ease = r.value("ease") { timing.curve = try #require(Curve.named[ease]) }
        if let loop = r.value("loop") { timing.loop = .count(Int(loop)!) }
        kit.timing = timing
        var kept: Set<SweepError.Field> = [.size]
        if r.value("fps") != nil { kept.insert(.fps) }
        if r.value("max-bytes") != nil { kept.insert(.maxBytes) }
        if let format = r.value("format") { kit.apply(try PresetLibrary.locate().format(format), keeping: kept) }
        kit.size = .exact(width: 48, height: 36)
        if let fps = r.value("fps") { kit.fps = Double(fps)! }
        kit.maxBytes = r.value("max-bytes").map { Int($0)! }
        if let motion = r.value("reduce-motion") { kit.reduceMotion = try #require(ReduceMotion(rawValue: motion)) }
        if let start = r.value("start") { kit.clip.start = Double(start)! }
        if let end = r.value("end") { kit.clip.end = Double(end)! }
        if let offset = r.value("after-start") { kit.clip.afterOffset = Double(offset)! }
        do {
            let result = try kit.render(to: URL(fileURLWithPath: path))
            return .wrote(try Data(contentsOf: URL(fileURLWithPath: result.output)), notes: result.notes)
        } catch let e as SweepError {
            return .refused(code: Int(e.code.exitCode), message: e.message)
        }
    }

    @Test(
        "A matrix of 358 requests (formats, holds, durations, eases, outputs, caps, stills, clip offsets and passes, refusals): the same bytes, or the same refusal, or the CLI's refusal and the others' note, through the CLI, a batch job, the service and SweepKit"
    )
    func matrixThroughEveryDoor() throws {
        let (a, b) = try fixtures(width: 96, height: 72)
        let dir = URL(fileURLWithPath: a).deletingLastPathComponent().path
        // Two 2 s clips of other content, as real cameras make them (H.264, 4:2:0, 10 fps).
        for (name, filter) in [("ca.mp4", "testsrc2=size=96x72:rate=10:duration=2"), ("cb.mp4", "testsrc=size=96x72:rate=10:duration=2")] {
            try ClipMaker.ffmpeg(["-f", "lavfi", "-i", filter, "-pix_fmt", "yuv420p", dir + "/" + name])
        }
        let (ca, cb) = (dir + "/ca.mp4", dir + "/cb.mp4")
        let requests = Self.matrix
        #expect(requests.count == 358)
        let paths = requests.map { $0.clips ? (ca, cb) : (a, b) }

        // SweepKit, in this process.
        let kits = try requests.enumerated().map { n, r in try kit(r, paths[n].0, paths[n].1, to: dir + "/kit-\(n).\(r.ext)") }

        // The command line, two at a time.
        let cli = Mutex<[Int: (code: Int32, stderr: String)]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { lane in
            for n in stride(from: lane, to: requests.count, by: 2) {
                let r = requests[n]
                let args =
                    ["render", paths[n].0, paths[n].1, "-o", dir + "/cli-\(n).\(r.ext)", "-q"]
                    + r.settings.flatMap { ["--" + $0.key, $0.value] }
                let run = try? runSweep(args)
                cli.withLock { $0[n] = (run?.code ?? -1, run?.stderr ?? "did not run") }
            }
        }

        // One batch of every request.
        let lines = requests.enumerated().map { n, r in
            let fields =
                [
                    r.clips ? #""before": "ca.mp4""# : #""before": "a.png""#, r.clips ? #""after": "cb.mp4""# : #""after": "b.png""#,
                    #""output": "batch-\#(n).\#(r.ext)""#,
                ]
                + r.settings.map { #""\#($0.key)": "\#($0.value)""# }
            return "{" + fields.joined(separator: ", ") + "}"
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/matrix.jsonl", atomically: true, encoding: .utf8)
        _ = try runSweep(["batch", dir + "/matrix.jsonl", "--out-dir", dir, "--quiet", "--jobs", "2"])
        let batch = Dictionary(
            uniqueKeysWithValues: try String(contentsOfFile: dir + "/matrix.results.jsonl", encoding: .utf8).split(separator: "\n")
                .compactMap {
                    line -> (Int, [String: Any])? in
                    guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
                    return ((o["line"] as? Int ?? 0) - 1, o)
                })

        // The service: every request queued at once, then each awaited.
        let server = try ServeProcess(["--queue", "400", "--jobs", "2"])
        defer { server.stop() }
        // A request the service can refuse before any work is answered at once (400 with the
        // exit code and the words); that answer is its outcome.
        var ids: [Int: String] = [:]
        var answered: [Int: [String: Any]] = [:]
        for (n, r) in requests.enumerated() {
            let fields = [#""output": "svc-\#(n).\#(r.ext)""#] + r.settings.map { #""\#($0.key)": "\#($0.value)""# }
            let posted = try curl(
                form(paths[n].0, paths[n].1, spec: "{" + fields.joined(separator: ",") + "}") + [server.url + "/v1/renders"])
            if let id = posted.json["id"] as? String {
                ids[n] = id
            } else if posted.status == 400 {
                answered[n] = posted.json
            } else {
                Issue.record("request \(n) (\(r)): \(posted.status) \(posted.text)")
            }
        }

        var (agreed, noted, wrote) = (0, 0, 0)
        for (n, r) in requests.enumerated() {
            let c = try #require(cli.withLock { $0[n] })
            let j = batch[n] ?? [:]
            let record = try ids[n].map { try waitFor($0, at: server.url) } ?? answered[n] ?? [:]
            switch kits[n] {
            case let .wrote(bytes, notes) where c.code != 0:
                // An option that cannot act on the output: refused by the CLI, a note from
                // SweepKit, batch and the service (RequestDoor's table), which write the same bytes.
                let svc = try ids[n].map { try curl([server.url + "/v1/renders/\($0)/output"]).body }
                let batchBytes = (j["output"] as? String).flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
                let note = notes.first { $0.hasSuffix(", so it is ignored") } ?? "(no note)"
                // "--fps acts on …, so it is ignored": the CLI's error says "--fps: acts on …".
                let words = note.dropLast(", so it is ignored".count).split(separator: " ", maxSplits: 1).last.map(String.init) ?? note
                let same =
                    c.code == 64 && c.stderr.contains(words) && (j["notes"] as? [String])?.contains(note) == true
                    && (record["notes"] as? [String])?.contains(note) == true && record["state"] as? String == "done"
                    && batchBytes == bytes && svc == bytes
                #expect(same, "request \(n) (\(r)): SweepKit wrote with \(notes); CLI \(c.code) \(c.stderr); batch \(j); service \(record)")
                if same { agreed += 1; noted += 1 }
            case let .wrote(bytes, _):
                let svc = try ids[n].map { try curl([server.url + "/v1/renders/\($0)/output"]).body }
                let cliBytes = try? Data(contentsOf: URL(fileURLWithPath: dir + "/cli-\(n).\(r.ext)"))
                let batchBytes = (j["output"] as? String).flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
                let same =
                    cliBytes == bytes && j["status"] as? String == "ok" && batchBytes == bytes
                    && record["state"] as? String == "done" && svc == bytes
                #expect(
                    same,
                    "request \(n) (\(r)): SweepKit wrote \(bytes.count) bytes; CLI \(c.code) \(c.stderr) \(cliBytes?.count ?? -1) bytes; batch \(j); service \(record)"
                )
                if same { agreed += 1; wrote += 1 }
            case let .refused(code, message):
                let same =
                    Int(c.code) == code && c.stderr.contains(message)
                    && j["exit"] as? Int == code && (j["error"] as? String)?.contains(message) == true
                    && record["exit"] as? Int == code && (record["error"] as? String)?.contains(message) == true
                #expect(
                    same,
                    "request \(n) (\(r)): SweepKit refused (\(code)) \(message); CLI \(c.code) \(c.stderr); batch \(j); service \(record)")
                if same { agreed += 1 }
            }
        }
        #expect(agreed == requests.count)
        // Every kind of outcome is in the matrix: written, noted by the lenient doors, refused.
        #expect(wrote >= 150 && noted >= 30 && agreed - wrote - noted >= 30, "wrote \(wrote), noted \(noted)")
        // The clip rows wrote (a start, an end, an offset inside 2 s clips).
        for (n, r) in requests.enumerated() where r.clips {
            if case .refused(_, let message) = kits[n] { Issue.record("clip request \(n) (\(r)) refused: \(message)") }
        }
    }
}
