import Foundation
import SweepImaging
import SweepSupport
import SweepTimeline
import Testing

@testable import SweepPipeline

/// What a library error says when no command line is involved.
private func failure(_ body: () throws -> Void) -> SweepError? {
    do { try body(); return nil } catch let e as SweepError { return e } catch { return nil }
}

@Suite("The library speaks for itself: errors name settings, not command-line flags")
struct LibraryErrorTests {
    @Test("Out-of-range settings carry a neutral field and no flag")
    func neutralFields() throws {
        var fast = sweepSpec()
        fast.fps = 1000
        var huge = sweepSpec()
        (huge.width, huge.height) = (20000, 10)
        var codec = sweepSpec()
        codec.codec = "h265x"
        let cases: [(SweepError.Field, SweepError?)] = [
            (.fps, failure { _ = try Renderer.render(fast, to: tempPath("fast.mp4")) }),
            (.size, failure { _ = try Renderer.render(huge, to: tempPath("huge.gif")) }),
            (.codec, failure { _ = try Renderer.render(codec, to: tempPath("x.mp4")) }),
            (.look, failure { _ = try PresetLibrary(directory: "presets").look("nior") }),
        ]
        for (field, error) in cases {
            let e = try #require(error, "\(field)")
            #expect(e.field == field)
            #expect(!e.description.contains("--"), "\(e.description)")
        }
    }

    @Test("A social format sets size, rate, codec and limit in the pipeline, keeping what was chosen")
    func formatApplies() throws {
        let library = PresetLibrary(
            directory: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../presets").standardized.path)
        let format = try library.format("instagram-square")
        var spec = sweepSpec()
        format.apply(to: &spec)
        #expect(spec.width == 1080 && spec.height == 1080 && spec.fps == format.fps && spec.codec == format.codec)
        #expect(spec.maxBytes == format.maxBytes)
        var kept = sweepSpec()
        kept.fps = 12
        (kept.width, kept.height) = (200, 100)
        format.apply(to: &kept, keeping: [.fps, .size])
        #expect(kept.fps == 12 && kept.width == 200 && kept.height == 100 && kept.codec == format.codec)
    }

    @Test("No library source spells a command-line flag in a string")
    func noFlagsInLibrary() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources").standardized
        var offenders: [String] = []
        for module in ["SweepSupport", "SweepImaging", "SweepTimeline", "SweepGIF", "SweepMedia", "SweepPipeline", "SweepKit"] {
            let dir = sources.appendingPathComponent(module)
            for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) where name.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    if code.hasPrefix("//") { continue }
                    if line.contains(/"[^"]*--[a-z][^"]*"/) { offenders.append("\(module)/\(name):\(n + 1)") }
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }
}
