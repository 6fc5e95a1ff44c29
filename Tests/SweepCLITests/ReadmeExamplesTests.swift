import Foundation
import SweepTestSupport
import Testing

/// The README's examples, run as written on fixtures by the guide's runner (`DocCommands`:
/// small sizes and frame rates appended; the last value of an option wins).
@Suite("The README's examples run as written", .serialized)
struct ReadmeExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The command lines of the ```sh block under "## Examples", comments removed.
    static func examples() throws -> [String] {
        let readme = try DocCommands.text("README.md")
        return DocCommands.blocks("sh", in: readme).first { $0.heading == "## Examples" }.map { DocCommands.sweepLines($0.body) } ?? []
    }

    @Test("The examples block is found and has every command")
    func found() throws {
        let all = try Self.examples()
        #expect(all.count >= 10)
        for command in ["render", "preview", "plan"] { #expect(all.contains { $0.hasPrefix("sweep \(command) ") }) }
    }

    @Test("Each example exits 0 and writes its output", arguments: try examples())
    func runs(example: String) throws {
        try DocCommands.run(example)
    }
}
