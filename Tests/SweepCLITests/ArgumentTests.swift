import SweepImaging
import SweepPipeline
import SweepSupport
import SweepTimeline
import Testing

@testable import SweepCLI
@testable import SweepRequest

func parse(_ args: [String]) throws -> RenderRequest {
    try RenderRequest.interpret(ArgumentSplitter(RenderRequest.common).split(args))
}

func usageError(_ args: [String]) -> SweepError? {
    do { _ = try parse(args); return nil } catch let e as SweepError { return e } catch { return nil }
}

@Suite("Argument parsing")
struct ArgumentTests {
    @Test("--opt value, --opt=value and short forms are the same")
    func forms() throws {
        let a = try parse(["a.jpg", "b.jpg", "-o", "x.gif", "--size", "64x48", "--fps=12"])
        let b = try parse(["a.jpg", "b.jpg", "--output=x.gif", "-s64x48", "--fps", "12"])
        #expect(a.output == "x.gif" && b.output == "x.gif")
        #expect(a.spec.width == 64 && b.spec.height == 48)
        #expect(a.spec.fps == 12 && b.spec.fps == 12)
        #expect(a.inputs == ["a.jpg", "b.jpg"])
    }

    @Test("-- ends options, so a file may start with a dash")
    func doubleDash() throws {
        let o = try parse(["-o", "x.gif", "--", "-before.jpg", "after.jpg"])
        #expect(o.inputs == ["-before.jpg", "after.jpg"])
    }

    @Test("Sweep shortcuts build the animation")
    func shortcuts() throws {
        let o = try parse(["--from", "0.8", "--to", "0.2", "--duration", "2", "--hold", "0", "--ease", "linear", "--loop", "once"])
        let a = o.spec.animation
        #expect(a.passDuration == 2)
        #expect(a.state(at: 0).position == 0.8)
        #expect(abs(a.state(at: 1).position - 0.5) < 1e-9)
        #expect(a.loop == .once)
    }

    @Test("Style flags")
    func style() throws {
        let o = try parse(["--no-handle", "--no-labels", "--rtl", "--vertical", "--before-label", "Antes", "--background", "#ff000080"])
        #expect(!o.spec.style.showHandle && !o.spec.style.showLabels)
        #expect(o.spec.style.rightToLeft && o.spec.style.orientation == .vertical)
        #expect(o.spec.style.beforeLabel == "Antes")
        #expect(o.spec.style.background.a == 128)
    }

    @Test(
        "Bad values name the option and the fix",
        arguments: [
            (["--size", "100y"], "--size"), (["--size", "0x10"], "--size"), (["--fps", "nan"], "--fps"),
            (["--from", "1.5"], "--from"), (["--ease", "bouncey"], "--ease"), (["--colors", "1"], "--colors"),
            (["--loop", "sometimes"], "--loop"), (["--fps"], "--fps"), (["--no-handle=yes"], "--no-handle"),
            (["--dither", "floyd"], "--dither"),
        ])
    func badValues(args: [String], option: String) {
        let e = usageError(args)
        #expect(e?.code == .usage)
        #expect(e?.subject == option)
        #expect(e?.fix != nil)
    }

    @Test("Unknown options suggest the nearest name")
    func suggestions() {
        #expect(usageError(["--durtion", "3"])?.fix == "did you mean --duration?")
        #expect(usageError(["--no-handles"])?.fix == "did you mean --no-handle?")
        #expect(usageError(["--ease", "easeInOutt"])?.fix == "did you mean easeInOut?")
    }
}

@Suite("GIF options")
struct GIFOptionTests {
    @Test("--max-bytes takes units; --quality, --colors, --lossy and --dither are range-checked")
    func options() throws {
        #expect(try parse(["--max-bytes", "15MB"]).spec.maxBytes == 15_000_000)
        #expect(try parse(["--max-bytes=10MiB"]).spec.maxBytes == 10_485_760)
        #expect(usageError(["--max-bytes", "-5"])?.subject == "--max-bytes")
        #expect(usageError(["--max-bytes", "lots"])?.subject == "--max-bytes")
        #expect(usageError(["--colors", "1"])?.subject == "--colors")
        #expect(usageError(["--colors", "257"])?.subject == "--colors")
        #expect(usageError(["--lossy", "-1"])?.subject == "--lossy")
        #expect(try parse(["--colors", "2", "--lossy", "0", "--dither", "ordered"]).spec.gifColors == 2)
        #expect(try parse([]).spec.quality == 90)
        #expect(try parse(["--quality", "55"]).spec.quality == 55)
        #expect(try parse(["--quality=100"]).spec.quality == 100)
        #expect(usageError(["--quality", "0"])?.subject == "--quality")
        #expect(usageError(["--quality", "101"])?.subject == "--quality")
    }

    @Test("Library errors get the command line's spelling of their field")
    func fieldSpelling() {
        let noSubject = SweepError(.usage, "unknown codec 'x'", fix: "use h264", field: .codec)
        #expect(OptionNames.describe(noSubject) == "--codec: unknown codec 'x'; use h264")
        let onFile = SweepError(.dataError, "too many pixels", subject: "a.png", fix: "raise the pixel limit", field: .maxPixels)
        #expect(OptionNames.describe(onFile) == "a.png: too many pixels; raise the pixel limit (--max-pixels)")
        #expect(onFile.description == "a.png: too many pixels; raise the pixel limit (maxPixels)")
    }
}
