import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@Suite("--max-bytes: advice on what would keep the look")
struct CapAdviceTests {
    @Test("A cap that takes fewer colours or frames: one note line before the fit, with --size, and capAdvice in --json")
    func adviceLineAndJSON() throws {
        let dir = try scratchDir()
        // Smooth light with a little grain: a photo's bytes fall with quality, and then colours.
        for (name, shift) in [("a", 0), ("b", 50)] {
            var img = RGBAImage(width: 240, height: 160)
            for y in 0..<160 {
                for x in 0..<240 {
                    let i = (y * 240 + x) * 4, n = (x * 7 + y * 13 + shift) % 9
                    img.pixels[i] = UInt8(40 + x * 150 / 240 + n)
                    img.pixels[i + 1] = UInt8(60 + y * 120 / 160 + shift / 2)
                    img.pixels[i + 2] = UInt8(200 - x * 80 / 240 + n)
                    img.pixels[i + 3] = 255
                }
            }
            try StillEncoder.write(img, to: dir + "/\(name).png", format: .png)
        }
        let base = ["render", dir + "/a.png", dir + "/b.png", "--duration", "1.5", "--fps", "20", "--json"]
        func bytes(_ r: (code: Int32, stdout: String, stderr: String)) throws -> [String: Any] {
            #expect(r.code == 0, "\(r.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
        let floor = try bytes(runSweep(base + ["-o", dir + "/floor.gif", "--quality", "40", "--colors", "16"]))["bytes"] as! Int
        let capped = try runSweep(base + ["-o", dir + "/capped.gif", "--max-bytes", String(floor - 1)])
        let summary = try bytes(capped)
        #expect((summary["bytes"] as! Int) < floor)
        let advice = try #require(summary["capAdvice"] as? [String: Any], "\(summary)")
        #expect(Set(advice.keys) == ["message", "width", "height"])  // pictures: no end
        let (w, h) = (advice["width"] as! Int, advice["height"] as! Int)
        #expect(w < 240 && h < 160)
        // One line on stderr, naming the option that would keep the look, before the summary.
        let lines = capped.stderr.split(separator: "\n").filter { $0.contains("fewer colours or frames") }
        #expect(lines.count == 1, "\(capped.stderr)")
        #expect(lines.first?.hasPrefix("sweep: note: fitting under") == true)
        #expect(lines.first?.hasSuffix("(--size \(w)x\(h))") == true, "\(capped.stderr)")
        #expect(lines.first?.contains(advice["message"] as! String) == true)
        // --quiet says nothing; the summary still carries it.
        let quiet = try runSweep(base + ["-o", dir + "/quiet.gif", "--max-bytes", String(floor - 1), "--quiet"])
        #expect(!quiet.stderr.contains("fewer colours or frames"))
        #expect(try bytes(quiet)["capAdvice"] != nil)
    }

    @Test("A clip pair as MP4 under a cap past CRF 28: one note with --end and --size, capAdvice in --json; the end named fits at CRF 28")
    func videoAdviceLine() throws {
        let dir = try scratchDir()
        for seed in [1, 2] {
            try ClipMaker.ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15:duration=3", "-vf", "noise=alls=6:allf=t:all_seed=\(seed)",
                "-c:v", "libx264", "-crf", "18", "-pix_fmt", "yuv420p", dir + "/c\(seed).mp4",
            ])
        }
        let base = ["render", dir + "/c1.mp4", dir + "/c2.mp4", "--json"]
        func summary(_ r: (code: Int32, stdout: String, stderr: String)) throws -> [String: Any] {
            #expect(r.code == 0, "\(r.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
        let at28 = try summary(runSweep(base + ["-o", dir + "/28.mp4", "--crf", "28"]))["bytes"] as! Int
        let cap = at28 / 3
        let capped = try runSweep(base + ["-o", dir + "/capped.mp4", "--max-bytes", String(cap)])
        let s = try summary(capped)
        // Under the cap, and not far under it: a first fit far under is tried again nearer.
        #expect((s["bytes"] as! Int) <= cap && (s["bytes"] as! Int) * 2 >= cap, "\(s)")
        let advice = try #require(s["capAdvice"] as? [String: Any], "\(s)")
        let end = try #require(advice["end"] as? Double)
        #expect(end > 0 && end < 3)
        let lines = capped.stderr.split(separator: "\n").filter { $0.contains("past CRF 28") }
        #expect(lines.count == 1, "\(capped.stderr)")
        #expect(
            lines.first?.hasSuffix(String(format: "(--end %g or --size %dx%d)", end, advice["width"] as! Int, advice["height"] as! Int))
                == true)
        // The end it names keeps CRF 28 under the cap.
        let shorter = try summary(runSweep(base + ["-o", dir + "/short.mp4", "--crf", "28", "--end", String(end)]))
        #expect((shorter["bytes"] as! Int) <= cap, "ending at \(end): \(shorter["bytes"]!) of \(cap)")
    }
}
