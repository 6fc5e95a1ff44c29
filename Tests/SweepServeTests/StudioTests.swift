import Foundation
import SweepCLI
import SweepPipeline
import SweepRequest
import SweepSupport
import SweepTestSupport
import SweepWeb
import Testing

@testable import SweepMedia
@testable import SweepServe

@Suite("The studio at /")
struct StudioTests {
    let page = StudioPage(library: PresetLibrary(directory: nil))

    /// The text of every `<tag>…</tag>` in `html` that opens exactly as `open`.
    func blocks(_ open: String, _ close: String, in html: String) -> [String] {
        html.components(separatedBy: open).dropFirst().map { $0.components(separatedBy: close)[0] }
    }

    @Test("the policy allows exactly the page's inline script and style, by hash, and nothing external")
    func policy() {
        let csp = page.contentSecurityPolicy
        #expect(csp.hasPrefix("default-src 'none';"))
        #expect(csp.contains("connect-src 'self'") && csp.contains("img-src blob: data: 'self'"))
        #expect(!csp.contains("unsafe"))
        let scripts = blocks("<script>", "</script>", in: page.html)
        #expect(scripts == [ElementScript.source, StudioScript.source])
        for s in scripts { #expect(csp.contains(SHA256.cspSource(s))) }
        let styles = blocks("<style>", "</style>", in: page.html)
        #expect(styles.count == 1 && csp.contains(SHA256.cspSource(styles[0])))
        // No resource from elsewhere: no URL with a scheme, no style attribute (CSP would block it).
        #expect(!page.html.contains("http:") && !page.html.contains("https:") && !page.html.contains(" style="))
        #expect(page.response.headers.contains { $0 == ("Content-Security-Policy", csp) })
    }

    @Test("each control is an option of the CLI's table, labelled and described by its help")
    func controls() throws {
        for name in StudioPage.sections.flatMap(\.options) {
            let o = try #require(OptionSummary.byName[name], "\(name) is not an option of the table")
            #expect(o.inBatch)
            #expect(page.html.contains("<label for=\"o-\(name)\">"))
            #expect(page.html.contains("aria-describedby=\"h-\(name)\""))
            #expect(page.html.contains("<code>--\(name)</code>"))
            // Help written for the studio, not the command line's (which speaks of files and flags).
            let help = try #require(StudioPage.helps[name], "\(name) has no studio help")
            #expect(page.html.contains(HTMLText.escape(help)))
        }
        #expect(Set(StudioPage.helps.keys) == Set(StudioPage.sections.flatMap(\.options)))
        #expect(page.html.contains("<option>reveal</option>") && page.html.contains("<option>vivid</option>"))
        #expect(page.html.contains("<option>og-image</option>") && page.html.contains("<option>spring</option>"))
        #expect(page.html.contains("role=\"status\" aria-live=\"polite\""))
        // A number's range is the parser's: the browser says what a spec would be refused for,
        // and an ease has one name each (the table's aliases are not offered).
        for name in ["fps", "quality", "hold"] where StudioPage.sections.flatMap(\.options).contains(name) {
            let o = try #require(OptionSummary.byName[name])
            let control = try #require(page.html.components(separatedBy: "id=\"o-\(name)\"").first?.components(separatedBy: "<input").last)
            switch o.values {
            case let .number(r):
                #expect(
                    control.contains("min=\"\(r.lowerBound.plainText)\" max=\"\(r.upperBound.plainText)\""), "\(name)")
                #expect(OptionValuesTests.refusal(name, (r.upperBound + 1).plainText) != nil)
            case let .whole(r):
                #expect(control.contains("min=\"\(r.lowerBound)\" max=\"\(r.upperBound)\" step=\"1\""), "\(name)")
                #expect(OptionValuesTests.refusal(name, String(r.upperBound + 1)) != nil)
            default: Issue.record("\(name) is not a number")
            }
        }
        #expect(page.html.contains("<option>ease-in</option>") && !page.html.contains("<option>easeIn</option>"))
        // A token field only where the API asks for one.
        #expect(!page.html.contains("id=\"token\""))
        #expect(StudioPage(library: PresetLibrary(directory: nil), secured: true).html.contains("<label for=\"token\">"))
    }

    @Test("the preview's configuration is the render's: duration, size fitted as the output's, looks")
    func preview() throws {
        let library = PresetLibrary(directory: nil)
        func config(_ spec: String, _ w: Int, _ h: Int, still: Bool = false) throws -> [String: Any] {
            let text = try StudioPreview.config(
                spec: Array(spec.utf8), width: w, height: h, twoSides: true, still: still, library: library)
            return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }
        let gif = try config(#"{"output":"a.gif","duration":2,"preset":"compare"}"#, 4000, 3000)
        #expect(gif["w"] as? Int == 800 && gif["h"] as? Int == 600)
        #expect((gif["t"] as? [String: Any])?["d"] as? Double == 2)
        let video = try config(#"{"output":"a.mp4"}"#, 4001, 1001)
        #expect(video["w"] as? Int == 1920 && video["h"] as? Int == 480)
        let og = try config(#"{"output":"p.png","format":"og-image"}"#, 400, 300, still: true)
        #expect(og["w"] as? Int == 1200 && og["h"] as? Int == 630)
        let look = try config(#"{"output":"a.gif","look":"noir"}"#, 40, 30)
        let after = try #require(((look["t"] as? [String: Any])?["a"] as? [[Any]])?.first?[1] as? [Double])
        #expect(after[2] == 0)  // noir: no saturation
        #expect(throws: SweepError.self) { try config(#"{"output":"a.gif","duration":0}"#, 40, 30) }
        #expect(throws: SweepError.self) { try config(#"{"output":"/etc/a.gif"}"#, 40, 30) }
        #expect(throws: SweepError.self) { try config(#"{"output":"a.gif"}"#, 0, 30) }
    }

    @Test("the service answers / with the page and /studio/element with JSON or a JSON error")
    func routes() throws {
        var options = ServeOptions()
        options.store = try Scratch.folder("studio-store")
        let service = try RenderService(options: options)
        func get(_ path: String, query: [String: String] = [:], origin: String? = nil) -> HTTPResponse? {
            var headers = ["host": "127.0.0.1:8080"]
            headers["origin"] = origin
            guard case let .respond(r) = service.begin(HTTPRequest(method: "GET", path: path, headers: headers, query: query)) else {
                return nil
            }
            return r
        }
        let root = try #require(get("/"))
        #expect(root.status == 200 && root.headers.contains { $0.0 == "Content-Security-Policy" })
        let ok = try #require(get("/studio/element", query: ["spec": #"{"output":"a.gif"}"#, "w": "40", "h": "30", "two": "1"]))
        #expect(ok.status == 200)
        let bad = try #require(get("/studio/element", query: ["spec": #"{"output":"a.gif","ease":"nope"}"#, "w": "40", "h": "30"]))
        #expect(bad.status == 400)
        #expect(try #require(get("/", origin: "https://evil.example")).status == 403)
    }

    @Test("over HTTP: / is the page with its policy header; /studio/element reads its query string (decoded by MHD)")
    func overHTTP() throws {
        let server = try ServeProcess()
        let page = try curl([server.url + "/"])
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["content-security-policy"]?.hasPrefix("default-src 'none';") == true)
        #expect(page.text.contains("<sweep-compare") == false && page.text.contains("id=\"stage\""))
        let element = try curl([
            "-G", "--data-urlencode", #"spec={"output":"a.gif","duration":2.5,"preset":"reveal"}"#, "--data-urlencode", "w=1600",
            "--data-urlencode", "h=1200", server.url + "/studio/element",
        ])
        #expect(element.status == 200)
        #expect(element.json["w"] as? Int == 800 && element.json["h"] as? Int == 600)
        #expect((element.json["t"] as? [String: Any])?["d"] as? Double == 2.5)
        let refused = try curl([
            "-G", "--data-urlencode", #"spec={"output":"../a.gif"}"#, "-d", "w=10", "-d", "h=10", server.url + "/studio/element",
        ])
        #expect(refused.status == 400 && (refused.json["error"] as? String)?.contains("bare file name") == true)
        #expect(try curl(["-H", "Origin: https://evil.example", server.url + "/"]).status == 403)
    }
}

@Suite("The studio's preview drawn by the server")
struct StudioFrameTests {
    /// `sweep preview` of `inputs` with `args`: the PNG's bytes.
    func preview(_ inputs: [String], _ args: [String]) throws -> Data {
        let out = Scratch.path("cli.png")
        let run = try runSweep(["preview"] + inputs + args + ["-o", out, "-q"])
        #expect(run.code == 0, "\(run.stderr)")
        return try #require(FileManager.default.contents(atPath: out))
    }

    @Test("an upload of a clip and a picture is held; each frame is `sweep preview` at the moment its headers name; DELETE removes it")
    func clipFrames() throws {
        let (_, after) = try fixtures(width: 96, height: 64)
        let clip = Scratch.path("counter.mov")
        try ClipMaker.counter(clip, fps: 10, seconds: 2)
        let server = try ServeProcess()
        let up = try curl(["-F", "before=@" + clip, "-F", "after=@" + after, server.url + "/studio/uploads"])
        #expect(up.status == 201)
        let id = try #require(up.json["id"] as? String)
        #expect(FileManager.default.fileExists(atPath: server.store + "/" + id))
        var starts: [Double] = []
        for at in ["0.25", "0.5", "0.75"] {
            let frame = try curl([
                "-G", "--data-urlencode", #"spec={"output":"a.mp4","start":"0.3","look":"vivid"}"#, "-d", "at=" + at,
                server.url + "/studio/uploads/\(id)/frame",
            ])
            #expect(frame.status == 200 && frame.headers["content-type"] == "image/png")
            let position = try #require(frame.headers["x-sweep-position"]), start = try #require(frame.headers["x-sweep-start"])
            starts.append(try #require(Double(start)))
            let cli = try preview([clip, after], ["--look", "vivid", "--position", position, "--start", start])
            #expect(frame.body == cli, "at \(at): not sweep preview --position \(position) --start \(start)")
        }
        // The clip plays on from the start: 1.7 s of it over the pass.
        #expect(starts == starts.sorted() && starts[0] > 0.3 && starts[2] < 2)
        let bad = try curl([
            "-G", "-d", "at=2", "--data-urlencode", #"spec={"output":"a.gif"}"#, server.url + "/studio/uploads/\(id)/frame",
        ])
        #expect(bad.status == 400 && (bad.json["error"] as? String)?.contains("at must be") == true)
        #expect(try curl(["-X", "DELETE", server.url + "/studio/uploads/" + id]).status == 204)
        #expect(!FileManager.default.fileExists(atPath: server.store + "/" + id))
        let gone = try curl([
            "-G", "-d", "at=0", "--data-urlencode", #"spec={"output":"a.gif"}"#, server.url + "/studio/uploads/\(id)/frame",
        ])
        #expect(gone.status == 404 && (gone.json["error"] as? String)?.contains("pick the files again") == true)
        #expect(try curl([server.url + "/studio/uploads"]).status == 405)
    }

    @Test("a preset whose looks change shows each moment's looks; the first is `sweep preview`'s")
    func changingLooks() throws {
        let (before, after) = try fixtures(width: 64, height: 48)
        let server = try ServeProcess()
        let id = try #require(
            try curl(["-F", "before=@" + before, "-F", "after=@" + after, server.url + "/studio/uploads"]).json["id"] as? String)
        func frame(_ at: String) throws -> Reply {
            try curl([
                "-G", "--data-urlencode", #"spec={"output":"a.gif","preset":"look-tour"}"#, "-d", "at=" + at,
                server.url + "/studio/uploads/\(id)/frame",
            ])
        }
        // look-tour: the original until 0.8 s, noir from 3.0 to 4.0 s of its 6.4 s.
        let first = try frame("0"), noir = try frame("0.55")
        #expect(first.status == 200 && noir.status == 200 && first.body != noir.body)
        // The first is the original look: `sweep preview` (which takes no preset) at the split.
        #expect(first.body == (try preview([before, after], ["--position", "0.5"])))
    }

    @Test("the colour probe: a PQ PNG's head is the server's to preview, an SDR one the browser's; bad bodies are 400")
    func probe() throws {
        let (sdr, _) = try fixtures(width: 32, height: 24)
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: sdr)))
        bytes.insert(contentsOf: PNGChunks.chunk("cICP", [9, 16, 0, 1]), at: 8 + 12 + 13)
        let pq = Scratch.path("pq.png")
        try Data(bytes).write(to: URL(fileURLWithPath: pq))
        // No token asked: the probe reads nothing of the server's.
        let server = try ServeProcess(["--token", "t0ken"])
        let url = server.url + "/studio/probe"
        let hdr = try curl(["-F", "before=@" + sdr, "-F", "after=@" + pq, url])
        #expect(hdr.status == 200 && hdr.json["server"] as? Bool == true)
        #expect((hdr.json["why"] as? String) == "the after picture has an HDR transfer (PQ) in its cICP chunk")
        let plain = try curl(["-F", "before=@" + sdr, url])
        #expect(plain.status == 200 && plain.json["server"] as? Bool == false && plain.json["why"] == nil)
        let big = Scratch.path("big.bin")
        try Data(count: HDRSignal.headBytes + 1).write(to: URL(fileURLWithPath: big))
        let long = try curl(["-F", "before=@" + big, url])
        #expect(long.status == 400 && (long.json["error"] as? String)?.contains("first 512 KiB") == true)
        #expect(try curl(["-F", "after=@" + pq, url]).status == 400)
        #expect(try curl(["-F", "spec=x", "-F", "before=@" + pq, url]).status == 400)
        #expect(try curl([url]).status == 405)
        let open = try ServeProcess()
        #expect(try curl(["-H", "Origin: https://evil.example", "-F", "before=@" + pq, open.url + "/studio/probe"]).status == 403)
    }

    @Test("uploads ask for the token, refuse other sites, and need a before part")
    func guarded() throws {
        let (before, _) = try fixtures(width: 32, height: 24)
        let secured = try ServeProcess(["--token", "t0ken"])
        let refused = try curl(["-F", "before=@" + before, secured.url + "/studio/uploads"])
        #expect(refused.status == 401)
        let id = try #require(
            try curl(["-H", "Authorization: Bearer t0ken", "-F", "before=@" + before, secured.url + "/studio/uploads"]).json["id"]
                as? String)
        #expect(try curl(["-X", "DELETE", secured.url + "/studio/uploads/" + id]).status == 401)
        let open = try ServeProcess()
        #expect(try curl(["-H", "Origin: https://evil.example", "-F", "before=@" + before, open.url + "/studio/uploads"]).status == 403)
        let missing = try curl(["-F", "after=@" + before, open.url + "/studio/uploads"])
        #expect(missing.status == 400 && (missing.json["error"] as? String)?.contains("part before") == true)
        // Nothing is left behind by the refused upload.
        #expect(try FileManager.default.contentsOfDirectory(atPath: open.store).filter(RenderStore.isID).isEmpty)
    }

    @Test("the registry holds at most its limit, removes idle uploads, and waits for frames being drawn")
    func registry() throws {
        let store = try RenderStore(root: try Scratch.folder("studio-uploads"))
        let uploads = StudioUploads(store: store, limit: 2)
        let ids = try (0..<3).map { _ in try store.create() }
        #expect(uploads.add(ids[0], files: ["a"]) && uploads.add(ids[1], files: ["b"]))
        #expect(!uploads.add(ids[2], files: ["c"]) && !uploads.hasRoom)
        #expect(uploads.use(ids[0]) == ["a"])
        #expect(uploads.remove(ids[0]))
        // Drawn from now: its folder stays until the frame ends.
        #expect(FileManager.default.fileExists(atPath: store.folder(ids[0])) && uploads.use(ids[0]) == nil)
        uploads.done(ids[0])
        #expect(!FileManager.default.fileExists(atPath: store.folder(ids[0])))
        uploads.expire(now: Date().timeIntervalSince1970 + StudioUploads.idleSeconds + 1)
        #expect(uploads.count == 0 && !FileManager.default.fileExists(atPath: store.folder(ids[1])))
        #expect(!uploads.remove(ids[1]))
    }

    @Test("a picture's moment is the animation's at that share of one pass")
    func pictureMoment() throws {
        // 1 → 0 over 4 s, resting 0.5 s at each end.
        let animation = RenderSpec.sweep()
        func at(_ share: Double) throws -> StudioFrame.Moment {
            try StudioFrame.moment(at: share, animation: animation, options: ClipOptions(), clip: nil, fps: 30, kind: .gif)
        }
        #expect(try at(0).position == 1 && at(0.1).position == 1 && at(1).position == 0)
        #expect(try abs(at(0.5).position - 0.5) < 1e-9)
        #expect(try at(0.25).time == 1 && at(0.25).length == 4 && at(0.25).clipTime == nil)
    }
}
