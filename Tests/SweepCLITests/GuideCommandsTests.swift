import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The guide's commands, run as written on fixtures: every `sweep` line of every ```sh block
/// of docs/guide/*.md, and of the README's blocks that no other suite runs.
@Suite("The guide's commands run as written", .serialized)
struct GuideCommandsTests {
    /// "page: command" for every `sweep` line of the guide pages and the README's other blocks.
    static func commands() throws -> [String] {
        var all: [String] = []
        let guide = DocCommands.root.appendingPathComponent("docs/guide")
        for page in try FileManager.default.contentsOfDirectory(atPath: guide.path).filter({ $0.hasSuffix(".md") }).sorted() {
            let text = try String(contentsOf: guide.appendingPathComponent(page), encoding: .utf8)
            all += DocCommands.blocks("sh", in: text).flatMap { DocCommands.sweepLines($0.body) }.map { "docs/guide/\(page): \($0)" }
        }
        // The README's examples and video examples are run by their own suites.
        let readme = try DocCommands.text("README.md")
        all += DocCommands.blocks("sh", in: readme).filter { !["## Examples", "### Video inputs"].contains($0.heading) }
            .flatMap { DocCommands.sweepLines($0.body) }.map { "README.md: \($0)" }
        return all
    }

    @Test("Every guide page exists and shows commands")
    func pages() throws {
        let all = try Self.commands()
        for page in [
            "clips-and-sound", "social-formats", "interactive-page", "batch-and-scale-out", "service-and-studio", "sweepkit",
            "presets-and-looks", "reliability-and-limits",
        ] {
            #expect(
                FileManager.default.fileExists(atPath: DocCommands.root.appendingPathComponent("docs/guide/\(page).md").path), "\(page)")
        }
        #expect(all.count >= 40)
        for command in ["render", "preview", "plan", "batch", "serve", "presets", "demo"] {
            #expect(all.contains { $0.contains(": sweep \(command)") }, "no `sweep \(command)` in the guide")
        }
    }

    @Test("Each command exits 0 and writes its output", arguments: try commands())
    func runs(command: String) throws {
        let (page, line) = try #require(
            command.firstRange(of: ": sweep ").map { (command[..<$0.lowerBound], command[$0.lowerBound...].dropFirst(2)) })
        try DocCommands.run(String(line), page: String(page))
    }

    @Test("The clip offset example is the same everywhere")
    func offsetExample() throws {
        let example =
            "sweep render original.mp4 excerpt.mp4 -o cmp.mp4 --before-start 20   # the excerpt starts 20 s into the original"
        for file in ["README.md", "docs/guide/clips-and-sound.md"] {
            let text = try DocCommands.text(file)
            #expect(text.contains(example + "\n"), "\(file)")
            let offsets = text.split(separator: "\n").filter { $0.hasPrefix("sweep ") && $0.contains("-start ") && !$0.contains("--start") }
            #expect(offsets.allSatisfy { $0 == example }, "\(file): \(offsets)")
        }
    }

    @Test("The guide's Kubernetes Job and Slurm script are the README's, which the manifest tests check")
    func recipesMatchReadme() throws {
        let readme = try DocCommands.text("README.md")
        let guide = try DocCommands.text("docs/guide/batch-and-scale-out.md")
        let job = { (text: String) in DocCommands.blocks("yaml", in: text).first { $0.body.contains("kind: Job") }?.body }
        let slurm = { (text: String) in DocCommands.blocks("sh", in: text).first { $0.body.contains("#SBATCH") }?.body }
        #expect(try #require(job(guide)) == job(readme))
        #expect(try #require(slurm(guide)) == slurm(readme))
    }

    @Test("Every relative link of the README and the guide leads to a file")
    func links() throws {
        let guide = DocCommands.root.appendingPathComponent("docs/guide")
        let pages =
            ["README.md", "CONTRIBUTING.md"]
            + (try FileManager.default.contentsOfDirectory(atPath: guide.path)).filter { $0.hasSuffix(".md") }.map { "docs/guide/" + $0 }
        for page in pages {
            let folder = DocCommands.root.appendingPathComponent(page).deletingLastPathComponent()
            let text = try DocCommands.text(page)
            // [text](target) and ![alt](target), outside code spans is close enough: docs put no
            // such pattern in code.
            let links = text.matches(of: /\]\(([^)\s]+)\)/).map { String($0.output.1) }
            for link in links where !link.contains("://") && !link.hasPrefix("#") && !link.hasPrefix("mailto:") {
                let path = String(link.split(separator: "#", maxSplits: 1)[0])
                #expect(
                    FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).standardized.path), "\(page): \(link)")
            }
        }
    }
}

/// Commands shown in the documentation, found and run as a user would run them.
enum DocCommands {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ file: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
    }

    /// The code blocks fenced as ```` ```language ````, each with the heading it is under.
    static func blocks(_ language: String, in text: String) -> [(heading: String, body: String)] {
        var found: [(heading: String, body: String)] = []
        var heading = ""
        var fence: Substring?
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let open = fence {
                if line == "```" {
                    if open == "```" + language { found.append((heading, lines.joined(separator: "\n"))) }
                    fence = nil
                } else {
                    lines.append(line)
                }
            } else if line.hasPrefix("```") {
                (fence, lines) = (line, [])
            } else if line.hasPrefix("#") {
                heading = String(line)
            }
        }
        return found
    }

    /// The `sweep` command lines of a block's text, as written, their comments removed.
    static func sweepLines(_ body: String) -> [String] {
        body.split(separator: "\n").map { withoutComment(String($0)) }.filter { $0.hasPrefix("sweep ") }
    }

    /// `line` up to the `#` that starts a shell comment (unquoted, at the start of a word),
    /// trimmed.
    static func withoutComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        for (i, c) in zip(line.indices, line) {
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "'" || c == "\"" {
                quote = c
            } else if c == "#" && (previous == " " || previous == "\t") {
                return String(line[..<i]).trimmingCharacters(in: .whitespaces)
            }
            previous = c
        }
        return line.trimmingCharacters(in: .whitespaces)
    }

    /// A command line's words as a POSIX shell splits them: single and double quotes group
    /// and are removed, an unquoted `#` after a space starts a comment. (No escapes or
    /// variables: the documentation's commands use none.)
    static func words(_ line: String) -> [String] {
        var result: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { word.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c
                inWord = true
            } else if c == " " || c == "\t" {
                if inWord { result.append(word) }
                (word, inWord) = ("", false)
            } else if c == "#" && !inWord {
                break
            } else {
                word.append(c)
                inWord = true
            }
        }
        if inWord { result.append(word) }
        return result
    }

    /// Runs `command` (a `sweep` line as the documentation shows it) in a fresh folder holding
    /// the files it names, with a small size (and frame rate) appended: the last value of an
    /// option wins. Expects exit 0 and the output written and readable.
    static func run(_ command: String, page: String = "README.md") throws {
        let dir = try scratchDir()
        var args = Array(words(command).dropFirst())
        let subcommand = args.first ?? ""
        try prepare(in: dir, naming: args, page: page)
        // A still or a page has no frame rate (--fps is refused there).
        let isPage = args.contains { $0.hasSuffix(".html") || $0.hasSuffix(".htm") } || args.contains("html")
        switch subcommand {
        case "render" where isPage: args += ["--size", "64x48"]
        case "render", "demo": args += ["--size", "64x48", "--fps", "5"]
        case "preview", "plan": args += ["--size", "64x48"]
        case "serve": return try serveAnswers(args, in: dir, command: command)
        default: break
        }
        let r = try runIn(dir, args)
        #expect(r.code == 0, "\(page): \(command): \(r.stderr)")
        guard r.code == 0 else { return }
        switch subcommand {
        case "presets":
            #expect(!r.stdout.isEmpty, "\(command)")
        case "batch":
            let jobs = try #require(args.dropFirst().first)
            let base = String(jobs.dropLast(".jsonl".count))
            let name = try #require(
                try FileManager.default.contentsOfDirectory(atPath: dir).first {
                    $0.hasPrefix(base + ".") && $0.hasSuffix("results.jsonl")
                },
                "\(command): no results file")
            let results = try String(contentsOfFile: dir + "/" + name, encoding: .utf8).split(separator: "\n").map {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(!results.isEmpty && results.allSatisfy { $0?["status"] as? String == "ok" }, "\(command): \(results)")
        default:
            let out = try #require(args.firstIndex(of: "-o").map { args[$0 + 1] }, "\(command): no -o")
            if subcommand == "demo" {
                try checkReadable(dir + "/" + out + "/demo.gif", command: command)
                try checkReadable(dir + "/" + out + "/demo.mp4", command: command)
            } else {
                try checkReadable(dir + "/" + out.replacingOccurrences(of: "%04d", with: "0000"), command: command)
            }
            if args.contains("--poster") { try checkReadable(dir + "/" + out + ".poster.jpg", command: command) }
        }
    }

    /// Expects the file at `path` to decode as its kind says.
    static func checkReadable(_ path: String, command: String) throws {
        let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data())
        try #require(!bytes.isEmpty, "\(command): \(path) is missing or empty")
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "gif":
            #expect(try GIFReader(path: path).frames.count >= 1, "\(command)")
        case "mp4", "mov", "mkv", "webm":
            #expect(try VideoReader(path: path, keepFrames: false).frameCount >= 1, "\(command)")
        case "html", "htm":
            #expect(String(decoding: bytes, as: UTF8.self).contains("<sweep-compare"), "\(command)")
        case "apng":
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && String(decoding: bytes, as: UTF8.self).contains("acTL"), "\(command)")
        default:  // png, jpg, webp: a still (an animated WebP decodes to its first frame)
            let image = try ImageDecoder.decode(path: path)
            #expect(image.width > 0 && image.height > 0, "\(command)")
        }
    }

    /// Fixtures under the names the pages use, made only when `args` (or a file the pages
    /// show, written here) names them.
    static func prepare(in dir: String, naming args: [String], page: String) throws {
        var named = Set(args)
        // A file the page shows in a ```json block introduced by its name (`jobs.jsonl`,
        // `warm.json`) is written as shown; jobs get small sizes, as commands do.
        let text = try Self.text(page)
        for block in blocks("json", in: text) {
            guard let name = fileNameIntroducing(block.body, in: text), named.contains(name) else { continue }
            var body = block.body
            if name.hasSuffix(".jsonl") {
                body = try block.body.split(separator: "\n").map { line in
                    var job = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    job["size"] = "64x48"
                    job["fps"] = 5
                    for value in job.values { if let s = value as? String { named.insert(s) } }
                    return String(decoding: try JSONSerialization.data(withJSONObject: job), as: UTF8.self)
                }.joined(separator: "\n")
            }
            try body.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        }
        let images = root.appendingPathComponent("Tests/Fixtures/images").path
        let pictures = [
            "before.jpg": "jpeg-baseline.jpg", "photo.jpg": "jpeg-baseline.jpg", "a.jpg": "jpeg-baseline.jpg",
            "after.jpg": "jpeg-progressive.jpg", "a-graded.jpg": "jpeg-progressive.jpg", "b.jpg": "png-rgb8.png",
            "kitchen-before.png": "png-rgb8.png", "kitchen-after.png": "png-rgba.png", "still.png": "png-rgb8.png",
            "loop.gif": "gif-animated.gif",
        ]
        for (name, fixture) in pictures where named.contains(name) {
            try FileManager.default.copyItem(atPath: images + "/" + fixture, toPath: dir + "/" + name)
        }
        let clips = ["original.mp4", "excerpt.mp4", "log.mp4", "graded.mp4", "before.mp4", "after.mov", "clip.mp4", "timelapse.mp4"]
        guard clips.contains(where: named.contains) else { return }
        // 24 s with a tone: long enough for `--start 5 --end 0:15` and a 20 s offset.
        let talk = dir + "/.talk.mp4"
        try ClipMaker.counter(
            talk, fps: 10, seconds: 24, inputs: ["-f", "lavfi", "-i", "sine=frequency=440:duration=24"],
            extra: ["-c:a", "aac", "-shortest"])
        for name in clips where named.contains(name) {
            switch name {
            case "excerpt.mp4": try ClipMaker.ffmpeg(["-ss", "20", "-i", talk, "-c:v", "libx264", "-c:a", "aac", dir + "/" + name])
            case "after.mov": try ClipMaker.ffmpeg(["-i", talk, "-c", "copy", dir + "/" + name])
            case "timelapse.mp4": try ClipMaker.counter(dir + "/" + name, fps: 10, seconds: 6)
            default: try FileManager.default.copyItem(atPath: talk, toPath: dir + "/" + name)
            }
        }
    }

    /// The file name a ```json block is introduced by: a `name.json` or `name.jsonl` in
    /// backticks on the last text line before it.
    static func fileNameIntroducing(_ body: String, in text: String) -> String? {
        guard let block = text.range(of: "```json\n" + body + "\n```") else { return nil }
        let before = text[..<block.lowerBound].split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        let match = before.flatMap { $0.firstMatch(of: /`([A-Za-z0-9_.-]+\.jsonl?)`/) }
        return match.map { String($0.output.1) }
    }

    /// `sweep serve …` started on a free port with a scratch store, asked for its health,
    /// then stopped with SIGTERM: it must answer and exit 0, all within a bounded time.
    static func serveAnswers(_ args: [String], in dir: String, command: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try sweepBinary())
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.arguments = args + ["--port", "0", "--store", dir + "/store"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Bounded: a server that never prints is killed, which ends the read below.
        let pid = p.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { kill(pid, SIGKILL) }
        defer {
            if p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
            }
        }
        let first = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let url = try #require(
            first.split(separator: "\n").first.flatMap { $0.hasPrefix("listening on ") ? $0.dropFirst("listening on ".count) : nil },
            "\(command): printed \(first)")
        let health = Process()
        health.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        health.arguments = ["-s", "--max-time", "20", "-o", "/dev/null", "-w", "%{http_code}", url + "/v1/health"]
        let status = Pipe()
        health.standardOutput = status
        try health.run()
        let code = String(decoding: status.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        health.waitUntilExit()
        #expect(code == "200", "\(command): /v1/health answered \(code)")
        kill(p.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        #expect(!p.isRunning, "\(command): still running 30 s after SIGTERM")
    }
}
