import Foundation
import SweepGIF
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTestSupport
import Testing

func scratchDir() throws -> String {
    try Scratch.folder("e2e")
}

@Suite("The sweep binary", .serialized)
struct EndToEndTests {
    @Test("demo writes a looping GIF and an H.264 MP4")
    func demo() throws {
        let dir = try scratchDir()
        let r = try runSweep(["demo", "-o", dir, "--size", "180x240", "--fps", "10", "--quiet"])
        #expect(r.code == 0)
        let g = try GIFReader(path: dir + "/demo.gif")
        #expect(g.loopCount == 0 && g.width == 180 && g.height == 240)
        #expect(g.delays.reduce(0, +) == 440)
        #expect(FileManager.default.fileExists(atPath: dir + "/demo.mp4"))
    }

    @Test("render and preview from image files; --json summary")
    func renderFiles() throws {
        let dir = try scratchDir()
        let red = RGBA8(r: 220, g: 30, b: 30, a: 255), blue = RGBA8(r: 20, g: 40, b: 230, a: 255)
        try StillEncoder.write(RGBAImage(width: 128, height: 96, fill: red), to: dir + "/a.png", format: .png)
        try StillEncoder.write(RGBAImage(width: 128, height: 96, fill: blue), to: dir + "/b.png", format: .png)
        // render: the JSON summary matches the file it describes.
        let r = try runSweep([
            "render", dir + "/a.png", dir + "/b.png", "-o", dir + "/x.gif", "--size", "64x48", "--fps", "10",
            "--duration", "0.5", "--hold", "0", "--no-labels", "--json",
        ])
        #expect(r.code == 0, "\(r.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let gif = try GIFReader(path: dir + "/x.gif")
        #expect(summary["output"] as? String == dir + "/x.gif" && summary["format"] as? String == "gif")
        #expect(summary["width"] as? Int == 64 && summary["height"] as? Int == 48 && gif.width == 64 && gif.height == 48)
        #expect(summary["frames"] as? Int == 5 && summary["bytes"] as? Int == FileBytes.size(dir + "/x.gif"))
        #expect(gif.frames.first?[2, 24] == red && gif.frames.last?[61, 24] == blue)
        // preview: a quarter of the width shows before.
        let p = try runSweep([
            "preview", dir + "/a.png", dir + "/b.png", "-o", dir + "/p.png", "--position", "0.25",
            "--size", "64x48", "--no-labels", "--no-handle", "--quiet",
        ])
        #expect(p.code == 0, "\(p.stderr)")
        let still = try ImageDecoder.decode(path: dir + "/p.png")
        #expect(still[10, 24] == red && still[20, 24] == blue)
        // A missing input: exit 66, one line naming it, no output.
        let missing = try runSweep(["render", dir + "/missing.png", dir + "/missing2.png", "-o", dir + "/y.gif"])
        #expect(missing.code == 66)
        #expect(missing.stderr.contains("missing.png") && missing.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: dir + "/y.gif"))
    }

    @Test("Bad input: not an image, unknown extension, malformed size")
    func badInput() throws {
        let dir = try scratchDir()
        let txt = dir + "/notes.jpg"
        _ = FileManager.default.createFile(atPath: txt, contents: Data("not a picture".utf8))
        let notImage = try runSweep(["render", txt, txt, "-o", dir + "/o.gif"])
        #expect(notImage.code == 65 && notImage.stderr.contains("notes.jpg"))
        let ext = try runSweep(["render", txt, txt, "-o", dir + "/o.avi"])
        #expect(ext.code == 64 && ext.stderr.contains(".avi"))
        let size = try runSweep(["render", txt, txt, "-o", dir + "/o.gif", "--size", "big"])
        #expect(size.code == 64 && size.stderr.contains("--size"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["notes.jpg"])
    }

    @Test("An iPhone-style HEIC against an AVIF renders a GIF; an HDR AVIF is tone-mapped, or exits 65 when refused")
    func heifInputs() throws {
        let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/images").path
        let dir = try scratchDir()
        let r = try runSweep([
            "render", "\(images)/heic-irot1.heic", "\(images)/avif.avif", "-o", dir + "/x.gif",
            "--size", "96x64", "--fps", "10", "--quiet",
        ])
        #expect(r.code == 0, "\(r.stderr)")
        let g = try GIFReader(path: dir + "/x.gif")
        #expect(g.width == 96 && g.height == 64)
        let mapped = try runSweep(["render", "\(images)/heic.heic", "\(images)/avif-pq.avif", "-o", dir + "/w.gif", "--quiet"])
        #expect(mapped.code == 0 && FileManager.default.fileExists(atPath: dir + "/w.gif"), "\(mapped.stderr)")
        let hdr = try runSweep(["render", "\(images)/heic.heic", "\(images)/avif-pq.avif", "-o", dir + "/y.gif", "--hdr", "refuse"])
        #expect(hdr.code == 65 && hdr.stderr.contains("avif-pq.avif") && hdr.stderr.contains("HDR"), "\(hdr.stderr)")
        let big = try runSweep(["render", "\(images)/heic.heic", "\(images)/avif.avif", "-o", dir + "/z.gif", "--max-pixels", "1000"])
        #expect(big.code == 65 && big.stderr.contains("--max-pixels"), "\(big.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/y.gif") && !FileManager.default.fileExists(atPath: dir + "/z.gif"))
    }

    @Test("--version and --help")
    func meta() throws {
        #expect(try runSweep(["--version"]).stdout.hasPrefix("sweep "))
        let h = try runSweep(["render", "--help"])
        #expect(h.code == 0 && h.stdout.contains("sweep render BEFORE"))
        let u = try runSweep(["rendr"])
        #expect(u.code == 64 && u.stderr.contains("did you mean render?"))
    }
}

@Suite("Command line behaviour", .serialized)
struct CommandLineTests {
    func input() throws -> String {
        let dir = try scratchDir()
        try StillEncoder.write(Resampler.resize(DemoScenes.flatLandscape(), width: 90, height: 120), to: dir + "/in.png", format: .png)
        return dir
    }

    @Test("--json prints one summary object on stdout and nothing else")
    func json() throws {
        let dir = try input()
        let r = try runSweep(["render", dir + "/in.png", "-o", dir + "/o.gif", "--look", "noir", "--fps", "10", "--json"])
        #expect(r.code == 0)
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        #expect(obj["output"] as? String == dir + "/o.gif")
        #expect(
            (obj["bytes"] as! NSNumber).intValue
                == (try FileManager.default.attributesOfItem(atPath: dir + "/o.gif")[.size] as! NSNumber).intValue)
        #expect((obj["frames"] as! NSNumber).intValue == 40 && (obj["width"] as! NSNumber).intValue == 90)
        #expect(obj["seconds"] is NSNumber && obj["duration"] is NSNumber && obj["fps"] is NSNumber)
    }

    static let exitCases: [([String], Int32)] = [
        (["render", "--frobnicate"], 64), (["render", "IN", "-o", "OUT/x.gif", "--fps", "0"], 64),
        (["render", "NOTIMG", "-o", "OUT/x.gif"], 65), (["render", "OUT/missing.png", "-o", "OUT/x.gif"], 66),
        (["render", "IN", "-o", "OUT/no/such/dir/x.gif"], 73), (["render", "IN", "-o", "/dev/full", "--codec", "gif"], 74),
        (["render", "IN", "-o", "OUT/x.mp4", "--codec-opt", "nonsense=1"], 64),
    ]

    @Test("Exit codes follow sysexits, with one line on stderr", arguments: exitCases)
    func exitCodes(args: [String], code: Int32) throws {
        let dir = try input()
        _ = FileManager.default.createFile(atPath: dir + "/notimg.txt", contents: Data("hello".utf8))
        let a = args.map {
            $0.replacingOccurrences(of: "NOTIMG", with: dir + "/notimg.txt").replacingOccurrences(of: "IN", with: dir + "/in.png")
                .replacingOccurrences(of: "OUT", with: dir)
        }
        let r = try runSweep(a)
        #expect(r.code == code, "\(a): \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.hasPrefix("sweep: "))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["in.png", "notimg.txt"])
    }

    @Test("presets list and show; unknown names get the nearest suggestion")
    func presets() throws {
        let list = try runSweep(["presets", "list"])
        for name in ["reveal", "compare", "look-tour", "spring-peek", "vivid", "noir", "dream", "instagram-square", "og-image"] {
            #expect(list.stdout.contains(name))
        }
        let show = try runSweep(["presets", "show", "noir"])
        #expect(show.code == 0 && show.stdout.contains("\"saturation\": 0"))
        let typo = try runSweep(["render", "a", "-o", "b.gif", "--preset", "revael"])
        #expect(typo.code == 64 && typo.stderr.contains("did you mean reveal?"))
    }

    @Test(
        "Social formats set size, rate, codec and still; flags override them",
        arguments: [
            ("instagram-square", "mp4", 1080, 1080), ("x-post", "mp4", 1280, 720), ("og-image", "png", 1200, 630),
            ("github-readme", "gif", 800, 1066), ("linkedin", "mp4", 1200, 626),
        ])
    func formats(name: String, ext: String, width: Int, height: Int) throws {
        let dir = try input()
        let out = dir + "/o." + ext
        // A still format has no frame rate or length to set.
        let timing = ext == "png" ? [] : ["--fps", "5", "--duration", "1"]
        let r = try runSweep(["render", dir + "/in.png", "--look", "vivid", "-o", out, "--format", name, "--json"] + timing)
        #expect(r.code == 0, "\(r.stderr)")
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        #expect((obj["width"] as! NSNumber).intValue == width && (obj["height"] as! NSNumber).intValue == height)
        if ext == "mp4" { #expect(try VideoReader(path: out, keepFrames: false).frameRate == 5) }
        if ext == "png" { #expect(try ImageDecoder.decode(path: out).width == width) }
    }

    @Test("A format's size limit is enforced: the output fits, or the command says why")
    func formatLimit() throws {
        let dir = try input()
        let format = dir + "/tiny.json"
        try #"{"version": 1, "size": "90x120", "fps": 10, "duration": 2, "extension": "gif", "codec": "gif", "maxBytes": 2048}"#
            .write(toFile: format, atomically: true, encoding: .utf8)
        let r = try runSweep(["render", dir + "/in.png", "--look", "dream", "-o", dir + "/o.gif", "--format", format])
        #expect(r.code == 65 && r.stderr.contains("cannot fit under 2.05 KB"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/o.gif"))
        // Options win over a format: a .gif output with a video format is a GIF, with a note.
        let otherKind = try runSweep([
            "render", dir + "/in.png", "--look", "noir", "-o", dir + "/o.gif", "--format", "x-post",
            "--size", "32x18", "--fps", "5", "--duration", "1",
        ])
        #expect(otherKind.code == 0 && otherKind.stderr.contains("no longer apply"))
    }

    @Test("--poster writes a still beside the video, at the video's size")
    func poster() throws {
        let dir = try input()
        let r = try runSweep(["render", dir + "/in.png", "--look", "noir", "-o", dir + "/clip.mp4", "--fps", "5", "--poster", "--quiet"])
        #expect(r.code == 0)
        #expect(try ImageDecoder.decode(path: dir + "/clip.mp4.poster.jpg").width == 90)
        // An odd-sized photo: the video is made even, and the poster follows it.
        try StillEncoder.write(Resampler.resize(DemoScenes.flatLandscape(), width: 91, height: 121), to: dir + "/odd.png", format: .png)
        let odd = try runSweep(["render", dir + "/odd.png", "--look", "noir", "-o", dir + "/odd.mp4", "--fps", "5", "--poster", "--quiet"])
        #expect(odd.code == 0)
        let video = try VideoReader(path: dir + "/odd.mp4", keepFrames: false)
        let still = try ImageDecoder.decode(path: dir + "/odd.mp4.poster.jpg")
        #expect(video.width == 90 && video.height == 120)
        #expect(still.width == video.width && still.height == video.height)
    }
}

@Suite("Nothing lost, nothing partial", .serialized)
struct AtomicOutputTests {
    func setup() throws -> String {
        let dir = try scratchDir()
        try StillEncoder.write(Resampler.resize(DemoScenes.flatLandscape(), width: 300, height: 400), to: dir + "/in.png", format: .png)
        return dir
    }

    @Test(
        "Every terminating signal mid-render leaves the old output and no temporary file, and exits 128+N",
        arguments: [
            ("gif", SIGINT), ("mp4", SIGTERM), ("gif", SIGHUP), ("mp4", SIGQUIT), ("gif", SIGUSR1),
            ("gif", SIGUSR2), ("mp4", SIGALRM), ("gif", SIGXCPU), ("seq", SIGTERM),
        ])
    func interrupted(ext: String, signal: Int32) throws {
        let dir = try setup()
        // A PNG sequence's older frame is the output that must survive.
        let (out, kept) = ext == "seq" ? (dir + "/f-%03d.png", "f-000.png") : (dir + "/keep." + ext, "keep." + ext)
        _ = FileManager.default.createFile(atPath: dir + "/" + kept, contents: Data("precious".utf8))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try sweepBinary())
        // --overwrite: the older frame is not one sweep wrote.
        p.arguments =
            ["render", dir + "/in.png", "--look", "dream", "-o", out, "--size", "600x800", "--duration", "60", "--quiet"]
            + (ext == "seq" ? ["--overwrite"] : [])
        try p.run()
        // Wait until the temporary file exists: the render is under way.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !(try FileManager.default.contentsOfDirectory(atPath: dir)).contains(where: { $0.hasSuffix(".tmp") }) {
            usleep(20_000)
        }
        usleep(200_000)
        kill(p.processIdentifier, signal)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 128 + signal)
        #expect(FileManager.default.contents(atPath: dir + "/" + kept) == Data("precious".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(left == ["in.png", kept].sorted(), "\(left)")
    }

    @Test("A umask without the owner's write bit still gives every kind of output, with the umask's mode")
    func readOnlyUmask() throws {
        let dir = try setup()
        chmod(dir, 0o777)
        // Root reads and writes whatever the mode; an unprivileged user is what the mode binds.
        let unprivileged = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        for name in ["u.gif", "u.mp4", "u.html"] {
            let rate = name.hasSuffix(".html") ? "" : "--fps 5"  // a page has no frame rate
            var command = "umask 0277; exec '\(try sweepBinary())' render '\(dir)/in.png' --look noir -o '\(dir)/\(name)' \(rate) --quiet"
            if unprivileged { command = "exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \"\(command)\"" }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", command]
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "\(name)")
            let mode = (try FileManager.default.attributesOfItem(atPath: dir + "/" + name)[.posixPermissions] as? Int) ?? -1
            #expect(mode == 0o400, "\(name): \(String(mode, radix: 8))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".tmp") } == [])
    }

    @Test("-o /dev/stdout with stdout sent to a file writes the file, and /dev/stdout stays a link")
    func stdoutToFile() throws {
        let dir = try setup()
        _ = FileManager.default.createFile(atPath: dir + "/out.gif", contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: dir + "/out.gif"))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try sweepBinary())
        p.arguments = ["render", dir + "/in.png", "--look", "noir", "-o", "/dev/stdout", "--codec", "gif", "--fps", "5", "--quiet"]
        p.standardOutput = handle
        try p.run()
        p.waitUntilExit()
        try handle.close()
        #expect(p.terminationStatus == 0)
        #expect(try GIFReader(path: dir + "/out.gif").frames.count > 1)
        var info = stat()
        #expect(lstat("/dev/stdout", &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
    }

    @Test("Names in /dev, /dev/fd and /proc are written directly; files in folders such as /dev/shm are not")
    func directNames() {
        for path in ["/dev/stdout", "/dev/null", "/dev/fd/1", "/proc/self/fd/1", "/dev/./stdout"] {
            #expect(AtomicOutput.writesDirectly(to: path), "\(path)")
        }
        for path in ["/dev/shm/out.gif", "/tmp/out.gif", "out.gif"] { #expect(!AtomicOutput.writesDirectly(to: path), "\(path)") }
    }

    @Test("An output name near the 255-byte limit is written (its temporary name is shortened)")
    func longName() throws {
        let dir = try setup()
        let name = String(repeating: "n", count: 250) + ".gif"
        let r = try runSweep(["render", dir + "/in.png", "--look", "noir", "-o", dir + "/" + name, "--fps", "5", "--quiet"])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(try GIFReader(path: dir + "/" + name).frames.count > 1)
    }

    @Test("An output that is one of the inputs is refused, under any spelling, and the input survives")
    func outputIsInput() throws {
        let dir = try setup()
        let png = try Data(contentsOf: URL(fileURLWithPath: dir + "/in.png"))
        try StillEncoder.write(Resampler.resize(DemoScenes.gradedLandscape(), width: 300, height: 400), to: dir + "/b.png", format: .png)
        let gif = dir + "/anim.gif"
        #expect(try runSweep(["render", dir + "/in.png", dir + "/b.png", "-o", gif, "--fps", "5", "--quiet"]).code == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: gif))
        let cases: [[String]] = [
            ["render", gif, dir + "/b.png", "-o", dir + "/./anim.gif", "--fps", "5"],  // the before image, respelled
            ["preview", dir + "/in.png", dir + "/b.png", "-o", dir + "/b.png"],  // the after image
            ["preview", dir + "/in.png", "--look", "noir", "-o", dir + "/in.png"],  // one photo and its look
        ]
        for args in cases {
            let r = try runSweep(args)
            #expect(r.code == 64 && r.stderr.contains("would replace"), "\(args)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: gif)) == original)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/in.png")) == png)
    }

    @Test("An output that is a look, preset or format file the command reads is refused, and the file survives")
    func outputIsSettingsFile() throws {
        let dir = try setup()
        let files = [
            "look.gif": #"{"version": 1, "contrast": 1.2}"#,
            "still.png": #"{"version": 1, "saturation": 0}"#,
            "anim.gif": #"{"version": 1, "position": [{"time": 0, "value": 1}, {"time": 1, "value": 0}]}"#,
            "fmt.gif": #"{"version": 1, "size": "64x", "fps": 5, "duration": 1, "extension": "gif", "codec": "gif"}"#,
        ]
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/" + name)) }
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        try FileManager.default.linkItem(atPath: dir + "/look.gif", toPath: dir + "/sub/linked.gif")
        let cases: [(args: [String], option: String)] = [
            (["render", dir + "/in.png", "--look", dir + "/look.gif", "-o", dir + "/./look.gif"], "--look"),
            (["render", dir + "/in.png", "--before-look", dir + "/look.gif", "-o", dir + "/sub/linked.gif"], "--before-look"),
            (["render", dir + "/in.png", "--preset", dir + "/anim.gif", "-o", dir + "/anim.gif"], "--preset"),
            (["render", dir + "/in.png", "--format", dir + "/fmt.gif", "-o", dir + "/fmt.gif"], "--format"),
            (["preview", dir + "/in.png", "--look", dir + "/still.png", "-o", dir + "/still.png"], "--look"),
        ]
        for (args, option) in cases {
            let r = try runSweep(args + (args[0] == "render" ? ["--fps", "5"] : []))
            #expect(
                r.code == 64 && r.stderr.contains("the file \(option) reads") && r.stderr.contains("would replace"), "\(args): \(r.stderr)")
        }
        for (name, text) in files { #expect(try String(contentsOfFile: dir + "/" + name, encoding: .utf8) == text, "\(name)") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/sub") == ["linked.gif"])
    }

    @Test("A failure part-way through a PNG sequence removes the frames it wrote")
    func sequence() throws {
        let dir = try setup()
        try FileManager.default.createDirectory(atPath: dir + "/seq", withIntermediateDirectories: true)
        // Frame 3's name is taken by a folder: writing it fails after frames 0–2.
        try FileManager.default.createDirectory(atPath: dir + "/seq/f-0003.png", withIntermediateDirectories: true)
        let r = try runSweep(["render", dir + "/in.png", "--look", "noir", "-o", dir + "/seq/f-%04d.png", "--fps", "10"])
        #expect(r.code == 73)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/seq") == ["f-0003.png"])
    }

    @Test("A PNG sequence replaces or removes only frames sweep wrote; files of the user's at its names need --overwrite")
    func sequenceKeepsOthersFiles() throws {
        let dir = try setup()
        let seq = dir + "/seq"
        try FileManager.default.createDirectory(atPath: seq, withIntermediateDirectories: true)
        func frames() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: seq).filter { !$0.hasPrefix(".") }.sorted() }
        func render(_ seconds: String, _ extra: [String] = []) throws -> (code: Int32, stdout: String, stderr: String) {
            try runSweep(
                ["render", dir + "/in.png", "--look", "noir", "-o", seq + "/f-%04d.png", "--fps", "10", "-d", seconds, "--quiet"] + extra)
        }
        // The user's own 30 files that happen to match the pattern.
        let mine = (0..<30).map { String(format: "f-%04d.png", $0) }
        for (i, name) in mine.enumerated() { try Data("mine \(i)".utf8).write(to: URL(fileURLWithPath: seq + "/" + name)) }
        let refused = try render("1")
        #expect(refused.code == 73 && refused.stderr.contains("--overwrite") && refused.stderr.contains("f-0000.png"), "\(refused.stderr)")
        for (i, name) in mine.enumerated() { #expect(try String(contentsOfFile: seq + "/" + name, encoding: .utf8) == "mine \(i)") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: seq).sorted() == mine)
        // Only the higher names would be removed: refused too.
        try FileManager.default.createDirectory(atPath: dir + "/seq2", withIntermediateDirectories: true)
        let first = try runSweep([
            "render", dir + "/in.png", "--look", "noir", "-o", dir + "/seq2/f-%04d.png", "--fps", "10", "-d", "2", "--quiet",
        ])
        #expect(first.code == 0, "\(first.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: dir + "/seq2").filter { !$0.hasPrefix(".") }.count
        #expect(written == 20)
        try Data("edited".utf8).write(to: URL(fileURLWithPath: dir + "/seq2/f-0015.png"))
        let shorter = try runSweep(["render", dir + "/in.png", "--look", "noir", "-o", dir + "/seq2/f-%04d.png", "--fps", "10", "-d", "1"])
        #expect(shorter.code == 73 && shorter.stderr.contains("f-0015.png") && shorter.stderr.contains("remove"), "\(shorter.stderr)")
        #expect(try String(contentsOfFile: dir + "/seq2/f-0015.png", encoding: .utf8) == "edited")
        // Its own frames are replaced and the older, longer run's removed, once the edit is gone.
        unlink(dir + "/seq2/f-0015.png")
        let again = try runSweep([
            "render", dir + "/in.png", "--look", "noir", "-o", dir + "/seq2/f-%04d.png", "--fps", "10", "-d", "1", "--quiet",
        ])
        #expect(again.code == 0, "\(again.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/seq2").filter { !$0.hasPrefix(".") }.count == 10)
        #expect(try ImageDecoder.decode(path: dir + "/seq2/f-0009.png").width > 0)
        // --overwrite: the user's names are the sequence's, replaced and removed.
        let forced = try render("1", ["--overwrite"])
        #expect(forced.code == 0, "\(forced.stderr)")
        #expect(try frames() == (0..<10).map { String(format: "f-%04d.png", $0) })
        #expect(try ImageDecoder.decode(path: seq + "/f-0000.png").width > 0)
        // And a rerun needs no flag: the record vouches for them.
        #expect(try render("1").code == 0)
    }

    @Test(
        "Disk full gives exit 74 for every kind of output",
        arguments: [["--codec", "gif"], ["--codec", "h264"], ["--codec", "vp9"], ["--codec", "apng"]])
    func diskFull(codec: [String]) throws {
        let dir = try setup()
        let r = try runSweep(["render", dir + "/in.png", "--look", "noir", "-o", "/dev/full", "--fps", "10"] + codec)
        #expect(r.code == 74, "\(r.stderr)")
        let still = try runSweep(["preview", dir + "/in.png", "--look", "noir", "-o", "/dev/full", "--codec", "png"])
        #expect(still.code == 74)
    }
}

/// Root can switch to `nobody` with setpriv; as any other user the checks below cannot run.
private let canDropPrivileges = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

@Suite("Permissions", .serialized, .enabled(if: canDropPrivileges, "needs root and setpriv to run as nobody"))
struct PermissionTests {
    /// Runs sweep as the unprivileged user `nobody` (root ignores file permissions).
    func runAsNobody(_ args: [String]) throws -> (code: Int32, stderr: String) {
        // A copy `nobody` can reach, wherever the checkout lives (it may be under /root).
        let dir = try scratchDir()
        chmod(dir, 0o755)
        let exe = dir + "/sweep"
        try FileManager.default.copyItem(atPath: try sweepBinary(), toPath: exe)
        chmod(exe, 0o755)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", exe] + args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = Pipe()
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: e, as: UTF8.self))
    }

    @Test("An unreadable input exits 66; an unwritable folder exits 73; nothing is written")
    func permissions() throws {
        let dir = try scratchDir()
        chmod(dir, 0o755)
        try StillEncoder.write(RGBAImage(width: 40, height: 30, fill: .white), to: dir + "/in.png", format: .png)
        chmod(dir + "/in.png", 0o644)
        try StillEncoder.write(RGBAImage(width: 40, height: 30, fill: .black), to: dir + "/secret.png", format: .png)
        chmod(dir + "/secret.png", 0o000)
        let writable = try scratchDir()
        chmod(writable, 0o777)
        let unreadable = try runAsNobody(["render", dir + "/secret.png", "-o", writable + "/o.gif"])
        #expect(unreadable.code == 66 && unreadable.stderr.contains("secret.png"), "\(unreadable)")
        let unwritable = try runAsNobody(["render", dir + "/in.png", dir + "/in.png", "-o", dir + "/o.gif"])
        #expect(unwritable.code == 73 && unwritable.stderr.contains("o.gif"), "\(unwritable)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["in.png", "secret.png"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: writable).isEmpty)
    }
}
