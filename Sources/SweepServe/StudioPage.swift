import Foundation
import SweepMedia
import SweepPipeline
import SweepRequest
import SweepSupport
import SweepWeb

/// The studio that `sweep serve` shows at `/`: pick or drop two pictures, tune the animation
/// by eye in a live `<sweep-compare>`, export through the API, and copy the equivalent
/// `sweep render …` line and batch job.
///
/// One page with nothing external: the element's script and style (``ElementScript``,
/// ``ElementStyle``, the same as every exported page), the studio's own script
/// (``StudioScript``) and style inline, allowed by their SHA-256 hashes under a
/// Content-Security-Policy that refuses everything else (`default-src 'none'`); pictures come
/// from `blob:` object URLs and requests go to this server only (`connect-src 'self'`).
///
/// Its controls are made from ``OptionSummary`` (the CLI's option table): each control is an
/// option, labelled by its name and described by its help, so that the command line and the
/// spec the page writes use the CLI's own spellings.
package struct StudioPage: Sendable {
    /// The whole page.
    package let html: String
    /// The Content-Security-Policy sent as a header; a `<meta>` element repeats it (without
    /// `frame-ancestors`, which only a header may carry) for a saved copy of the page.
    package let contentSecurityPolicy: String

    /// The options the studio offers, in the order the page shows them; the script writes
    /// them in the option table's order.
    static let sections: [(title: String, options: [String])] = [
        ("Animation", ["preset", "ease", "duration", "hold", "reduce-motion"]),
        ("Look", ["look", "brightness", "contrast", "saturation", "hue"]),
        ("Labels and layout", ["before-label", "after-label", "vertical", "rtl"]),
        ("Output", ["format", "size", "fit", "fps", "quality"]),
        ("Clips", ["start", "end"]),
    ]

    /// Each offered control's help, written for the studio (the option table's help speaks of
    /// files and flags the page does not have). A test checks that every offered option has one.
    static let helps: [String: String] = [
        "preset": "A named animation: how the split moves and which looks play. Leave it on default for a plain sweep.",
        "ease": "How the split speeds up and slows down as it moves.",
        "duration": "Seconds for one pass, the holds included.",
        "hold": "Seconds the split rests at each end of the pass.",
        "reduce-motion": "What plays for viewers who ask for less motion: a cut, a cross-fade, or auto.",
        "look": "A photo look for the after side (with one picture, the after side is that picture with the look).",
        "brightness": "Brightness of the after side: 0 leaves it, −1…1.",
        "contrast": "Contrast of the after side: 1 leaves it, 0…4.",
        "saturation": "Saturation of the after side: 1 leaves it, 0 is grey, up to 4.",
        "hue": "Turns the after side's hues by this many degrees.",
        "before-label": "The tag on the before side (Before when empty).",
        "after-label": "The tag on the after side (After when empty).",
        "vertical": "The split moves from top to bottom instead of across.",
        "rtl": "For right-to-left languages: the before side and its tag are on the right.",
        "format":
            "A social format: its size, frame rate, length and file-size limit (story, og-image, …). "
            + "The picture is cropped to its shape, as the preview shows; a still format (og-image) exports a PNG still.",
        "size": "The output's size in pixels, WxH (640x640), or one side (640x) with the other from the picture.",
        "fit":
            "How a picture of another shape than the output fills it: fill crops it, fit shows it whole between bars, stretch distorts it.",
        "fps": "Frames per second of a GIF or video, \(FrameRateRange.text).",
        "quality": "GIF and still quality, 1…100: lower is smaller.",
        "start": "For clips: the second where the comparison begins in both (12.5 or 1:05).",
        "end": "For clips: the second where it ends (the shorter clip's end when empty).",
    ]

    /// Labels that the option's name does not make by itself (`Rtl`).
    static let labels: [String: String] = [
        "rtl": "Right to left (RTL)", "hold": "Holds", "look": "Look (after side)", "fps": "Frame rate", "size": "Size",
    ]

    /// What the studio can export: a value of the output-type control, its file name, and
    /// what it is called. Stills go through `POST /v1/previews`, the rest through renders.
    static let outputs: [(value: String, file: String, label: String)] = [
        ("gif", "compare.gif", "GIF"), ("mp4", "compare.mp4", "MP4 video"), ("webm", "compare.webm", "WebM video"),
        ("html", "compare.html", "Interactive page (HTML)"), ("png", "still.png", "PNG still"),
        ("poster", "poster.jpg", "Poster (og:image, 1200×630)"),
    ]

    /// The page for a server whose presets are `library`'s; `secured` (the server has a
    /// `--token`) adds a field for the bearer token the API asks for.
    package init(library: PresetLibrary, secured: Bool = false) {
        let named: [String: [String]] = [
            "preset": library.names(.animations), "look": library.names(.looks), "format": library.names(.formats),
        ]
        let offered = Set(Self.sections.flatMap(\.options))
        // The script's list: every offered option in the table's order, with how to read it.
        var data: [String] = []
        for o in OptionSummary.all where offered.contains(o.name) {
            data.append("{\"n\":\(HTMLText.jsonString(o.name)),\"k\":\"\(Self.kind(o, named: named[o.name]))\"}")
        }
        // Formats whose output is a still: choosing one makes the export a still.
        let stills = library.names(.formats).filter { (try? library.format($0))?.still == true }
        let studioData =
            "{\"options\":[" + data.joined(separator: ",") + "],\"outputs\":{"
            + Self.outputs.map { "\(HTMLText.jsonString($0.value)):\(HTMLText.jsonString($0.file))" }.joined(separator: ",")
            + "},\"stills\":[" + stills.map(HTMLText.jsonString).joined(separator: ",") + "],\"head\":\(HDRSignal.headBytes)}"
        let css = ElementStyle.source + StudioStyle.source
        let policy =
            "default-src 'none'; img-src blob: data: 'self'; media-src blob: 'self'; connect-src 'self'; "
            + "style-src \(SHA256.cspSource(css)); script-src \(SHA256.cspSource(ElementScript.source)) "
            + "\(SHA256.cspSource(StudioScript.source)); base-uri 'none'; form-action 'none'"
        // frame-ancestors (no framing: clickjacking) works only as a header; a <meta> policy
        // that names it makes the browser log an error.
        contentSecurityPolicy = policy + "; frame-ancestors 'none'"
        var form = ""
        for section in Self.sections {
            form += "<fieldset><legend>\(section.title)</legend>\n"
            for name in section.options {
                guard let o = OptionSummary.byName[name] else { continue }
                form += Self.control(o, choices: named[name]) + "\n"
            }
            if section.title == "Output" {
                form +=
                    "<div class=\"c\"><label for=\"output-type\">Export as</label><select id=\"output-type\">"
                    + Self.outputs.map { "<option value=\"\($0.value)\">\(HTMLText.escape($0.label))</option>" }.joined()
                    + "</select></div>\n"
            }
            form += "</fieldset>\n"
        }
        html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width,initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="\(policy)">
            <title>sweep studio</title>
            <link rel="icon" href="data:,">
            <style>\(css)</style>
            </head>
            <body>
            <header><h1>sweep studio</h1><p>Drop two pictures (or one and choose a look), tune the animation, export it, and take the command line to a batch.</p></header>
            <main>
            <section class="pane" aria-labelledby="h-in">
            <h2 id="h-in">Pictures</h2>
            <div id="drop" class="drop">
            <p>Drop one or two pictures or clips here, or pick them:</p>
            <div class="c"><label for="before">Before picture</label><input type="file" id="before" accept="image/*,video/*,.heic,.heif,.avif"><output id="before-name" for="before"></output></div>
            <div class="c"><label for="after">After picture (optional)</label><input type="file" id="after" accept="image/*,video/*,.heic,.heif,.avif"><output id="after-name" for="after"></output></div>
            </div>
            <form id="form" novalidate>
            \(form)</form>
            </section>
            <section class="pane" aria-labelledby="h-pv">
            <h2 id="h-ex">Export</h2>
            \(secured ? "<div class=\"c\"><label for=\"token\">Bearer token (this server has one)</label><input type=\"password\" id=\"token\" autocomplete=\"off\"></div>" : "")
            <div class="row"><button type="button" id="export">Export</button>
            <progress id="progress" max="1" value="0" aria-labelledby="h-ex"></progress>
            <a id="download" hidden></a></div>
            <p id="status" role="status" aria-live="polite"></p>
            <h2 id="h-pv">Preview</h2>
            <div id="stage" class="stage"><p class="empty">The animation plays here once a picture is chosen.</p></div>
            <p id="served" class="served" hidden></p>
            <button type="button" id="play" hidden>Play</button>
            <div class="c"><label for="scrub">Timeline</label><input type="range" id="scrub" min="0" max="1000" value="0" aria-describedby="scrub-help"><small id="scrub-help">Move through one pass of the animation (pauses the preview).</small></div>
            <h2 id="h-cmd">Command line</h2>
            <pre id="command" tabindex="0" aria-labelledby="h-cmd"></pre>
            <h2 id="h-job">Batch job (one line of a .jsonl)</h2>
            <pre id="job" tabindex="0" aria-labelledby="h-job"></pre>
            </section>
            </main>
            <script type="application/json" id="studio-data">\(studioData)</script>
            <script>\(ElementScript.source)</script>
            <script>\(StudioScript.source)</script>
            </body>
            </html>

            """
    }

    /// The answer to `GET /`.
    package var response: HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/html; charset=utf-8"), ("Content-Security-Policy", contentSecurityPolicy),
                ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
            ], body: .bytes(Array(html.utf8)))
    }

    /// How the script reads an option's control: `switch` (a checkbox), `choice` (a list),
    /// `number` or `text`.
    static func kind(_ o: OptionSummary, named: [String]?) -> String {
        switch o.values {
        case .none: return "switch"
        case .choice: return "choice"
        case .number, .whole: return named == nil ? "number" : "choice"
        default: return named == nil ? "text" : "choice"
        }
    }

    /// One option's labelled control, described by its help: `o-NAME`, its help `h-NAME`.
    static func control(_ o: OptionSummary, choices: [String]?) -> String {
        let e = HTMLText.escape, id = "o-" + o.name
        let label = labels[o.name] ?? o.name.prefix(1).uppercased() + o.name.dropFirst().replacingOccurrences(of: "-", with: " ")
        let help = "<small id=\"h-\(o.name)\">\(e(helps[o.name] ?? o.help)) <code>--\(e(o.name))</code></small>"
        let described = "id=\"\(id)\" name=\"\(e(o.name))\" aria-describedby=\"h-\(o.name)\""
        switch kind(o, named: choices) {
        case "switch":
            return "<div class=\"c s\"><input type=\"checkbox\" \(described)><label for=\"\(id)\">\(e(label))</label>\(help)</div>"
        case "choice":
            var words: [String] = []
            if case let .choice(declared, _) = o.values { words = declared }
            let list = (choices ?? words).map { "<option>\(e($0))</option>" }.joined()
            return
                "<div class=\"c\"><label for=\"\(id)\">\(e(label))</label><select \(described)><option value=\"\">default</option>\(list)</select>\(help)</div>"
        case "number":
            // The declared range, so that the browser says what the parser would refuse.
            var range = ""
            switch o.values {
            case let .number(r):
                range = "min=\"\(r.lowerBound.plainText)\" max=\"\(r.upperBound.plainText)\" step=\"any\" inputmode=\"decimal\""
            case let .whole(r): range = "min=\"\(r.lowerBound)\" max=\"\(r.upperBound)\" step=\"1\" inputmode=\"numeric\""
            default: range = "step=\"any\" inputmode=\"decimal\""
            }
            return
                "<div class=\"c\"><label for=\"\(id)\">\(e(label))</label><input type=\"number\" \(range) \(described)>\(help)</div>"
        default:
            return "<div class=\"c\"><label for=\"\(id)\">\(e(label))</label><input type=\"text\" \(described)>\(help)</div>"
        }
    }
}
