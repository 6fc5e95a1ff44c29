import Foundation
import SweepKit
import SweepTestSupport
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
}
