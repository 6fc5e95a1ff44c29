import Foundation
import SweepTestSupport
import Testing

/// The README's examples, run as written on fixtures (small sizes and frame rates appended:
/// the last value of an option wins, so an example's own `--size` is overridden).
@Suite("The README's examples run as written", .serialized)
struct ReadmeExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The command lines of the ```sh block under "## Examples", comments removed.
    static func examples() throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let section = readme.range(of: "## Examples"),
            let open = readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex),
            let close = readme.range(of: "```", range: open.upperBound..<readme.endIndex)
        else { return [] }
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").map { line in
            let text = String(line)
            let code = text.range(of: " #").map { String(text[..<$0.lowerBound]) } ?? text
            return code.trimmingCharacters(in: .whitespaces)
        }.filter { $0.hasPrefix("sweep ") }
    }

    @Test("The examples block is found and has every command")
    func found() throws {
        let all = try Self.examples()
        #expect(all.count >= 10)
        for command in ["render", "preview", "plan"] { #expect(all.contains { $0.hasPrefix("sweep \(command) ") }) }
    }

    @Test("Each example exits 0 and writes its output", arguments: try examples())
    func runs(example: String) throws {
        let dir = try scratchDir()
        let images = Self.root.appendingPathComponent("Tests/Fixtures/images").path
        for (name, fixture) in [
            ("before.jpg", "jpeg-baseline.jpg"), ("photo.jpg", "jpeg-baseline.jpg"), ("a.jpg", "jpeg-baseline.jpg"),
            ("after.jpg", "jpeg-progressive.jpg"), ("b.jpg", "png-rgb8.png"),
        ] {
            try FileManager.default.copyItem(atPath: images + "/" + fixture, toPath: dir + "/" + name)
        }
        var args = example.split(separator: " ").map(String.init).dropFirst().map { $0 }
        // A still has no frame rate (--fps is refused there).
        args += args.first == "plan" || args.first == "preview" ? ["--size", "64x48"] : ["--size", "64x48", "--fps", "5"]
        let r = try runIn(dir, args)
        #expect(r.code == 0, "\(example): \(r.stderr)")
        let out = try #require(args.firstIndex(of: "-o").map { args[$0 + 1] })
        let written = out.contains("%04d") ? out.replacingOccurrences(of: "%04d", with: "0000") : out
        #expect(FileManager.default.fileExists(atPath: dir + "/" + written), "\(example)")
        if args.contains("--poster") { #expect(FileManager.default.fileExists(atPath: dir + "/" + out + ".poster.jpg")) }
    }
}
