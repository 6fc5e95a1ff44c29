import Foundation
import SweepSupport
import Testing

@testable import SweepCLI
@testable import SweepRequest

/// The README's scale-out recipes, read from the README itself, checked against what sweep
/// reads: the Kubernetes Indexed Job manifest and the Slurm job-array script. No cluster
/// is needed here; `make test-slurm` runs the Slurm side for real.
@Suite("Kubernetes and Slurm recipes in the README")
struct KubernetesManifestTests {
    /// The README's ```yaml block, parsed.
    static func manifest() throws -> MiniYAML {
        try MiniYAML.parse(try #require(try readmeBlock("yaml"), "the README has no ```yaml block"))
    }

    @Test("The manifest is an Indexed Job whose JOB_COMPLETIONS equals spec.completions")
    func indexedJob() throws {
        let job = try Self.manifest()
        #expect(job["apiVersion"]?.string == "batch/v1")
        #expect(job["kind"]?.string == "Job")
        let spec = try #require(job["spec"])
        // Without Indexed mode the controller sets no JOB_COMPLETION_INDEX and every pod
        // would run the whole batch.
        #expect(spec["completionMode"]?.string == "Indexed")
        let completions = try #require(spec["completions"]?.string.flatMap { Int($0) }, "spec.completions is not a number")
        #expect(completions >= 1)
        if let parallelism = spec["parallelism"]?.string.flatMap({ Int($0) }) {
            #expect((1...completions).contains(parallelism), "more pods than shards would leave some idle")
        }
        // A Job's pods may not use restartPolicy Always.
        let podSpec = try #require(spec["template"]?["spec"])
        #expect(["OnFailure", "Never"].contains(podSpec["restartPolicy"]?.string ?? ""))

        let containers = try #require(podSpec["containers"]?.list)
        let sweep = try #require(containers.first { $0["command"]?.list?.first?.string == "sweep" }, "no container runs sweep")
        let env = Dictionary(
            (sweep["env"]?.list ?? []).compactMap { e in
                e["name"]?.string.map { ($0, e["value"]?.string ?? "") }
            }, uniquingKeysWith: { a, _ in a })
        #expect(env["JOB_COMPLETIONS"] == String(completions), "JOB_COMPLETIONS must equal spec.completions")
        // The controller sets the index per pod; a fixed value would make every pod the same shard.
        #expect(env["JOB_COMPLETION_INDEX"] == nil)
    }

    @Test("The manifest's command is a valid `sweep batch … --resume`")
    func manifestCommand() throws {
        let job = try Self.manifest()
        let containers = try #require(job["spec"]?["template"]?["spec"]?["containers"]?.list)
        let command = try #require(containers.compactMap { $0["command"]?.list?.compactMap(\.string) }.first { $0.first == "sweep" })
        #expect(Array(command.prefix(2)) == ["sweep", "batch"])
        // A pod restarted after a node loss must not redo or trust half-written outputs.
        let args = try ArgumentSplitter(BatchCommand.options).split(Array(command.dropFirst(2)))
        #expect(args.positionals.count == 1)
        #expect(args.flag("resume"))
        #expect(args.value("shard") == nil, "a fixed --shard would override the Job's index")
    }

    @Test("sweep reads the manifest's variables as shard K of spec.completions, each job once")
    func shardsFromManifest() throws {
        let job = try Self.manifest()
        let completions = try #require(job["spec"]?["completions"]?.string.flatMap { Int($0) })
        let jobs = 3 * completions + 1
        var owners = [Int](repeating: 0, count: jobs)
        for k in 0..<completions {
            // What the controller (index) and the manifest (count) put in each pod's environment.
            let env = ["JOB_COMPLETION_INDEX": String(k), "JOB_COMPLETIONS": String(completions)]
            let shard = try #require(try Shard.resolve(option: nil, environment: env))
            #expect(shard == Shard(index: k, count: completions))
            for i in 0..<jobs where shard.owns(i) { owners[i] += 1 }
        }
        #expect(owners.allSatisfy { $0 == 1 })
        // An index past the manifest's count means the two disagree: refuse, do not skip jobs.
        #expect(throws: SweepError.self) {
            try Shard.resolve(
                option: nil,
                environment: [
                    "JOB_COMPLETION_INDEX": String(completions),
                    "JOB_COMPLETIONS": String(completions),
                ])
        }
        #expect(
            try Shard.resolve(option: nil, environment: ["JOB_COMPLETION_INDEX": "3", "JOB_COMPLETIONS": "8"])
                == Shard(index: 3, count: 8))
    }

    @Test("The Slurm script is a job array running `sweep batch --resume`, one shard per task")
    func slurmArray() throws {
        let script = try #require(try readmeBlock("sh", containing: "#SBATCH"), "the README has no Slurm script")
        let lines = script.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let array = try #require(lines.first { $0.hasPrefix("#SBATCH --array=") }, "no #SBATCH --array=")
        let range = array.dropFirst("#SBATCH --array=".count).split(separator: "-").compactMap { Int($0) }
        try #require(range.count == 2 && range[0] <= range[1], "the array is not A-B: \(array)")
        let run = try #require(lines.first { $0.contains("sweep batch") }, "the script does not call sweep batch")
        let words = run.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        let args = try ArgumentSplitter(BatchCommand.options).split(Array(words.drop { $0 != "batch" }.dropFirst()))
        #expect(args.positionals.count == 1)
        #expect(args.flag("resume"))

        // What Slurm sets in each task: the task id, the array's lowest id and its size.
        let (low, count) = (range[0], range[1] - range[0] + 1)
        for id in range[0]...range[1] {
            let env = [
                "SLURM_ARRAY_TASK_ID": String(id), "SLURM_ARRAY_TASK_MIN": String(low),
                "SLURM_ARRAY_TASK_COUNT": String(count),
            ]
            #expect(try Shard.resolve(option: nil, environment: env) == Shard(index: id - low, count: count))
        }
    }

    @Test(
        "The mini YAML reader handles what the manifest uses",
        arguments: [
            ("a: 1\nb:\n  c: \"x # y\"  # note\n", "b.c", "x # y"),
            ("l:\n  - { name: n, v: '2' }\n", "l.0.v", "2"),
            ("l:\n- k: 1\n  m: [\"p\", q]\n", "l.0.m.1", "q"),
        ])
    func yamlReader(example: (source: String, path: String, expected: String)) throws {
        let (source, path, expected) = example
        var node: MiniYAML? = try MiniYAML.parse(source)
        for step in path.split(separator: ".") {
            node = Int(step).flatMap { i in node?.list.flatMap { i < $0.count ? $0[i] : nil } } ?? node?[String(step)]
        }
        #expect(node?.string == expected)
    }
}

/// The text of the first README code block fenced as ```` ```language ````, optionally the
/// first one containing `needle`.
func readmeBlock(_ language: String, containing needle: String? = nil) throws -> String? {
    let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")
    let text = try String(contentsOf: readme, encoding: .utf8)
    var blocks: [String] = []
    var current: [Substring]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if current == nil, line == "```" + language {
            current = []
        } else if current != nil, line == "```" {
            blocks.append(current!.joined(separator: "\n")); current = nil
        } else {
            current?.append(line)
        }
    }
    return blocks.first { block in needle.map { block.contains($0) } ?? true }
}

/// Just enough YAML for a Kubernetes manifest: block mappings and sequences by
/// indentation, flow `[…]` and `{…}` of scalars, quoted scalars and `#` comments. No
/// anchors, multi-line scalars or documents: the README should not need them, and a
/// manifest that does would fail here loudly rather than parse wrongly.
indirect enum MiniYAML: Equatable {
    case scalar(String)
    case list([MiniYAML])
    case map([String: MiniYAML])

    var string: String? { if case .scalar(let s) = self { s } else { nil } }
    var list: [MiniYAML]? { if case .list(let l) = self { l } else { nil } }
    subscript(key: String) -> MiniYAML? { if case .map(let m) = self { m[key] } else { nil } }

    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses one document.
    static func parse(_ source: String) throws -> MiniYAML {
        var lines: [(indent: Int, text: String)] = []
        for raw in source.split(separator: "\n") {
            let text = stripComment(String(raw))
            let body = text.drop { $0 == " " }
            if body.isEmpty { continue }
            if text.hasPrefix("\t") { throw ParseError(description: "tab indentation: \(raw)") }
            lines.append((text.count - body.count, String(body)))
        }
        var reader = Reader(lines: lines)
        guard let first = reader.lines.first else { return .map([:]) }
        let value = try reader.block(indent: first.indent)
        if reader.position < reader.lines.count {
            throw ParseError(description: "unexpected indentation at: \(reader.lines[reader.position].text)")
        }
        return value
    }

    /// A line without its comment: `#` starts one at the line start or after a space,
    /// outside quotes.
    static func stripComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        for (i, c) in zip(line.indices, line) {
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "#", previous == " " {
                return String(line[..<i]).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
            }
            previous = c
        }
        return line.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }

    /// A scalar, or a flow list or map, written on one line.
    static func inline(_ text: String) throws -> MiniYAML {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix("[") {
            guard t.hasSuffix("]") else { throw ParseError(description: "unclosed [: \(t)") }
            return .list(try splitFlow(String(t.dropFirst().dropLast())).map(inline))
        }
        if t.hasPrefix("{") {
            guard t.hasSuffix("}") else { throw ParseError(description: "unclosed {: \(t)") }
            var map: [String: MiniYAML] = [:]
            for entry in try splitFlow(String(t.dropFirst().dropLast())) {
                let (key, value) = try keyValue(entry)
                map[key] = try inline(value)
            }
            return .map(map)
        }
        if t.count >= 2, let q = t.first, q == "\"" || q == "'", t.last == q {
            return .scalar(String(t.dropFirst().dropLast()))
        }
        return .scalar(t)
    }

    /// Splits flow contents at top-level commas (not inside quotes or brackets).
    static func splitFlow(_ text: String) throws -> [String] {
        var parts: [String] = [], current = "", depth = 0
        var quote: Character?
        for c in text {
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if "[{".contains(c) {
                depth += 1
            } else if "]}".contains(c) {
                depth -= 1
            } else if c == ",", depth == 0 {
                parts.append(current); current = ""; continue
            }
            current.append(c)
        }
        guard quote == nil, depth == 0 else { throw ParseError(description: "unbalanced flow: \(text)") }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { parts.append(current) }
        return parts
    }

    /// `key: value` (value possibly empty) split at the first `: ` or a trailing `:`.
    static func keyValue(_ text: String) throws -> (String, String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix(":") { return (String(t.dropLast()), "") }
        guard let r = t.range(of: ": ") else { throw ParseError(description: "not key: value: \(t)") }
        return (String(t[..<r.lowerBound]).trimmingCharacters(in: .whitespaces), String(t[r.upperBound...]))
    }

    /// Walks the lines; a sequence item's first line is rewritten in place as its own
    /// deeper-indented line, so `- name: x` reads as a mapping like any other.
    struct Reader {
        var lines: [(indent: Int, text: String)]
        var position = 0

        mutating func block(indent: Int) throws -> MiniYAML {
            let text = lines[position].text
            return text == "-" || text.hasPrefix("- ") ? try sequence(indent: indent) : try mapping(indent: indent)
        }

        mutating func sequence(indent: Int) throws -> MiniYAML {
            var items: [MiniYAML] = []
            while position < lines.count, lines[position].indent == indent,
                lines[position].text == "-" || lines[position].text.hasPrefix("- ")
            {
                let rest = String(lines[position].text.dropFirst(1).drop { $0 == " " })
                let restIndent = indent + lines[position].text.count - rest.count
                if rest.isEmpty {
                    position += 1
                    guard position < lines.count, lines[position].indent > indent else { items.append(.scalar("")); continue }
                    items.append(try block(indent: lines[position].indent))
                } else if rest.hasPrefix("[") || rest.hasPrefix("{") || rest.hasPrefix("\"") || rest.hasPrefix("'")
                    || (!rest.contains(": ") && !rest.hasSuffix(":"))
                {
                    position += 1
                    items.append(try inline(rest))
                } else {
                    lines[position] = (restIndent, rest)
                    items.append(try mapping(indent: restIndent))
                }
            }
            return .list(items)
        }

        mutating func mapping(indent: Int) throws -> MiniYAML {
            var map: [String: MiniYAML] = [:]
            while position < lines.count, lines[position].indent == indent {
                let text = lines[position].text
                if text == "-" || text.hasPrefix("- ") { break }
                let (key, value) = try keyValue(text)
                guard map[key] == nil else { throw ParseError(description: "duplicate key \(key)") }
                position += 1
                if !value.isEmpty {
                    map[key] = try inline(value)
                } else if position < lines.count,
                    lines[position].indent > indent
                        || (lines[position].indent == indent && lines[position].text.hasPrefix("- "))
                {
                    // A sequence may sit at its key's own indentation (`key:\n- item`).
                    map[key] = try block(indent: lines[position].indent)
                } else {
                    map[key] = .scalar("")
                }
            }
            if position < lines.count, lines[position].indent > indent {
                throw ParseError(description: "unexpected indentation at: \(lines[position].text)")
            }
            return .map(map)
        }
    }
}
