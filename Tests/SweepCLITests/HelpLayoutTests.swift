import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

@testable import SweepCLI
@testable import SweepRequest
@testable import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Every help the binary prints, as the arguments that print it.
private let helpCommands: [[String]] = [
    ["--help"], ["render", "--help"], ["preview", "--help"], ["plan", "--help"], ["presets", "--help"], ["batch", "--help"],
    ["serve", "--help"], ["demo", "--help"],
]

/// The offset example that --help, the README and the guide share.
private let offsetCommand = "sweep render original.mp4 excerpt.mp4 -o cmp.mp4 --before-start 20"

/// How many spaces `line` starts with.
private func indent(_ line: String) -> Int { line.prefix { $0 == " " }.count }

/// The words of `line`, without a command's trailing ` \`.
private func words(_ line: String) -> [Substring] {
    (line.hasSuffix(" \\") ? String(line.dropLast(2)) : line).split(separator: " ")
}

/// True when `line` carries on the text of `previous`: after a command's ` \`, or starting
/// where a word of `previous` starts (a paragraph's next line, an explanation's next line).
private func continues(_ line: String, after previous: String) -> Bool {
    guard !previous.allSatisfy({ $0 == " " }), !line.allSatisfy({ $0 == " " }) else { return false }
    if previous.hasSuffix(" \\") { return true }
    let p = Array(previous), column = indent(line)
    return column < p.count && p[column] != " " && (column == 0 || p[column - 1] == " ")
}

/// The help's text on one line: a command's continuations joined, spaces collapsed.
private func flattened(_ text: String) -> String {
    text.replacingOccurrences(of: " \\\n", with: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
}

@Suite("Help laid out for the terminal's width")
struct HelpLayoutTests {
    static let widths = [40, 60, 80, 100, 132]

    /// `sweep args` run with COLUMNS=`width` (nil: unset); its stdout.
    func help(_ args: [String], width: Int?) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = width.map(String.init)
        let r = try runSweep(args, environment: environment)
        #expect(r.code == 0 && r.stderr.isEmpty, "\(args): \(r.stderr)")
        return r.stdout
    }

    @Test(
        "Every help fits the width, a line longer only for one word longer than it, and no wrapped line holds one word alone",
        arguments: helpCommands)
    func fitsTheWidth(args: [String]) throws {
        for width in Self.widths {
            let lines = try help(args, width: width).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.count > 3, "\(args) at \(width)")
            for (i, line) in lines.enumerated() {
                let place = "\(args.joined(separator: " ")) at \(width), line \(i + 1): '\(line)'"
                #expect(line.count <= width || words(line).count == 1, "\(place) is too long")
                #expect(!line.hasSuffix(" ") && !line.contains("\t"), "\(place) ends in a space")
                guard words(line).count == 1, !line.hasSuffix(":") else { continue }
                let previous = i > 0 ? lines[i - 1] : "", next = i + 1 < lines.count ? lines[i + 1] : ""
                // A term alone on its line, its explanation below it, is not a widow.
                if line.drop(while: { $0 == " " }).hasPrefix("-") && indent(next) > indent(line) { continue }
                #expect(!continues(line, after: previous) && !continues(next, after: line), "\(place) holds one word alone")
            }
        }
    }

    @Test("No help says a .mov is ProRes: .mov is H.264 in QuickTime, ProRes only with --codec prores")
    func movIsH264() throws {
        let pairing = [#/(?i)prores[^,;]*\.mov/#, #/(?i)\.mov[^,;]*prores/#]
        var texts = try helpCommands.map { try help($0, width: 80) }
        texts.append(OptionHelp.manual())
        for text in texts {
            let flat = flattened(text)
            for pattern in pairing {
                #expect(flat.firstMatch(of: pattern) == nil, "\(flat.firstMatch(of: pattern).map { String($0.0) } ?? "")")
            }
        }
        let codec = flattened(try help(["render", "--help"], width: 80))
        #expect(codec.contains("h264 for .mp4, .mov and .mkv"), "\(codec)")
    }

    @Test("render --help shows the offset example whole at every width, and --before-start's help agrees with it")
    func offsetExample() throws {
        for width in Self.widths {
            let text = try help(["render", "--help"], width: width)
            #expect(flattened(text).contains(offsetCommand), "at \(width)")
            if width >= 80 {
                #expect(text.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == offsetCommand }, "at \(width)")
            }
            #expect(flattened(text).contains("starts 20 s into its original lines up with it by --before-start 20 on the original"))
            #expect(!text.contains("--after-start 20"))
        }
    }

    @Test("The examples in render --help run as written; the offset one lines the clips up")
    func examplesRun() throws {
        let dir = try Scratch.folder("help-examples")
        for (name, color) in [
            ("before.jpg", RGBA8(r: 200, g: 60, b: 40)), ("after.jpg", RGBA8(r: 40, g: 90, b: 210)), ("photo.jpg", .white),
        ] {
            try StillEncoder.write(RGBAImage(width: 90, height: 60, fill: color), to: dir + "/" + name, format: .jpeg)
        }
        // A 22 s original at 5 fps, and its excerpt from 20 s on (its first frame shows 100).
        try ClipMaker.counter(dir + "/original.mp4", fps: 5, seconds: 22)
        try ClipMaker.ffmpeg([
            "-i", dir + "/original.mp4", "-vf", "select=gte(n\\,100),setpts=PTS-STARTPTS", "-c:v", "libx264", "-qp", "0",
            dir + "/excerpt.mp4",
        ])
        let text = try help(["render", "--help"], width: 132)
        // The examples: the commands indented under their descriptions (the synopsis is not).
        let examples = text.split(separator: "\n").filter { $0.hasPrefix("    sweep render ") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        #expect(examples.count >= 3 && examples.contains(offsetCommand), "\(examples)")
        for example in examples {
            let args = example.split(separator: " ").dropFirst().map(String.init)
            let r = try runIn(dir, args + ["--quiet"])
            let output = try #require(args.firstIndex(of: "-o").map { args[$0 + 1] })
            #expect(r.code == 0 && FileManager.default.fileExists(atPath: dir + "/" + output), "\(example): \(r.stderr)")
        }
        // The same command, with the split held in the middle and nothing drawn over it.
        let args = offsetCommand.split(separator: " ").dropFirst().map(String.init)
        let r = try runIn(dir, args + ["--from", "0.5", "--to", "0.5", "--no-handle", "--no-labels", "--quiet"])
        #expect(r.code == 0, "\(r.stderr)")
        let video = try VideoReader(path: dir + "/cmp.mp4")
        let before = video.frames.map { ClipMaker.read($0, x: $0.width / 4) }
        let after = video.frames.map { ClipMaker.read($0, x: $0.width * 3 / 4) }
        // The excerpt's first frame (100) beside the original's at 20 s, then on in step to 2 s later.
        #expect(
            before.first == 100 && before.last == 109 && before == before.sorted() && after == before, "before \(before), after \(after)")
    }

    @Test("Without COLUMNS and a terminal, help is laid out for 80 columns")
    func eightyWhenPiped() throws {
        for args in helpCommands {
            #expect(try help(args, width: nil) == help(args, width: 80), "\(args)")
        }
        #expect(try help(["render", "--help"], width: 80) != help(["render", "--help"], width: 132))
    }

    @Test("The width is COLUMNS when it is a number, else the terminal's (TIOCGWINSZ), else 80")
    func terminalWidth() throws {
        // On a terminal 57 columns wide (a pseudo-terminal from script(1), sized by stty),
        // without COLUMNS: the help is laid out for 57.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qec", "stty cols 57; '\(try sweepBinary())' render --help", "/dev/null"]
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = nil
        p.environment = environment
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(text)")
        #expect(text.replacingOccurrences(of: "\r\n", with: "\n") == (try help(["render", "--help"], width: 57)))
        // In process: a number in COLUMNS wins; a pipe is 80 columns wide.
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        #expect(TerminalText.columns(of: fds[1], variable: "100") == 100)
        #expect(TerminalText.columns(of: fds[1], variable: nil) == 80)
        #expect(TerminalText.columns(of: fds[1], variable: "wide") == 80)
        #expect(TerminalText.columns(of: fds[1], variable: "0") == 80)
    }

    @Test("A paragraph whose fullest lines would leave one word alone gives the line before a word")
    func noWidow() {
        // Filled greedily: "aaaa bbbb cccc dddd" and "eeee" alone.
        #expect(HelpText.wrap(["aaaa", "bbbb", "cccc", "dddd", "eeee"], width: 20) == ["aaaa bbbb cccc", "dddd eeee"])
        // A word longer than the width stands alone; its neighbours keep company.
        let long = String(repeating: "x", count: 30)
        #expect(HelpText.wrap(["a", "b", long, "c", "d"], width: 10) == ["a b", long, "c d"])
        #expect(HelpText.wrap(["one"], width: 10) == ["one"])
    }

    @Test("An option's explanation starts nearer on a narrow terminal, under its names when they are wide")
    func narrowColumn() throws {
        let wide = try help(["render", "--help"], width: 100).split(separator: "\n")
        let narrow = try help(["render", "--help"], width: 40).split(separator: "\n")
        let at100 = try #require(wide.first { $0.hasPrefix("  -d, --duration S") })
        #expect(at100.dropFirst(26).hasPrefix("length of one pass"), "\(at100)")
        let i = try #require(narrow.firstIndex { $0.hasPrefix("  -d, --duration S") })
        #expect(
            narrow[i] == "  -d, --duration S" && narrow[i + 1].hasPrefix(String(repeating: " ", count: 13) + "length"), "\(narrow[i + 1])")
    }
}
