import Foundation
import SweepMedia
import SweepPipeline
import SweepRequest
import SweepSupport

/// A request's `spec`: a batch job's keys (``RequestKeys``), checked so that none names a
/// path on the server, decoded into the ``RenderRequest`` batch would run.
package struct ServeSpec: Sendable {
    /// The output's bare file name.
    package let output: String
    /// The request as the spec asks it (inputs and output in the render's folder).
    package let options: RenderRequest
    /// What it renders, resolved by the service's door (``RequestDoor/service``: an option
    /// that cannot act on the output is a note).
    package let resolved: ResolvedRender
    /// The render's estimated seconds (``RenderCost``), when the spec fixes its size.
    package private(set) var estimatedSeconds: Double?

    /// Keys whose value may name a file to read (in batch): here only built-in names.
    static let namedKeys: [String: PresetLibrary.Kind] = [
        "format": .formats, "preset": .animations, "look": .looks, "before-look": .looks,
    ]

    /// Extensions a preview (a still) may be written as.
    static let stillExtensions: Set<String> = ["png", "jpg", "jpeg", "webp"]

    /// Checks `text` and builds the render of `inputs` into `folder`.
    ///
    /// - Parameter still: a preview, whose output must be a still.
    /// - Throws: `.usage` (400) for a spec that is not a JSON object, sets `before` or `after`,
    ///   has an output that is not a bare file name, names a file for `format`, `preset`, `look`
    ///   or `before-look`, or fails the batch job's or render's checks.
    /// - Parameter memory: the most a render's clip decoders may take (the server's share per
    ///   job); a spec may lower it, never raise it.
    /// - Parameter maxFramePixels: the most pixels an output frame may have on this server.
    package init(
        _ text: [UInt8], inputs: [String], folder: String, still: Bool, library: PresetLibrary, memory: Int,
        maxFramePixels: Int = ServeOptions().maxFramePixels
    ) throws {
        func bad(_ message: String, fix: String) -> SweepError { SweepError(.usage, message, subject: "spec", fix: fix) }
        guard text.count <= BatchJob.maxLineBytes else {
            throw bad("the spec is \(text.count) bytes, over the limit of \(BatchJob.maxLineBytes)", fix: "shorten it")
        }
        let object = try RequestKeys.object(text) { message, _ in
            bad(message, fix: "send a JSON object such as {\"output\": \"out.gif\"}")
        }
        for key in ["before", "after"] where object[key] != nil {
            throw bad("\"\(key)\" is set by the server to the uploaded file", fix: "send the file as the multipart part \(key)")
        }
        guard case let .string(output)? = object["output"] else {
            throw bad("field output is missing or not a string", fix: "add \"output\": \"out.gif\"")
        }
        try Self.checkName(output)
        if still {
            let ext = URL(fileURLWithPath: output).pathExtension.lowercased()
            guard Self.stillExtensions.contains(ext) else {
                throw bad("a preview is a still: \(output) is not .png, .jpg or .webp", fix: "name the output e.g. preview.png")
            }
        }
        for (key, kind) in Self.namedKeys {
            guard let value = object[key] else { continue }
            let names = library.names(kind)
            for v in value.items {
                guard case let .string(name) = v, names.contains(name), !PresetLibrary.isPath(name) else {
                    throw SweepError(
                        .usage, "\(key) must be a built-in name, not a file", subject: "spec",
                        fix: "one of: " + names.joined(separator: ", "))
                }
            }
        }
        // The spec's keys are the request's named values, as a batch job's (``RequestKeys``).
        var given = ArgumentSplitter.Result()
        given.positionals = inputs
        given.options = [("output", folder + "/" + output)] + (try RequestKeys.values(object) { bad($0, fix: $1) })
        var o = try RenderRequest.interpret(given)
        // A preview is a still before the format is read, as `sweep preview`: a video format
        // then gives its size and framing to the still.
        o.still = o.still || still
        o.quiet = true
        o.spec.maxFramePixels = maxFramePixels
        // The server's limits: a client may lower them, never raise them.
        o.spec.clip.maxMemory = min(o.spec.clip.maxMemory, memory)
        guard o.spec.maxPixels <= ImageDecoder.defaultMaxPixels else {
            throw bad(
                "max-pixels is at most \(ImageDecoder.defaultMaxPixels) on this server",
                fix: "give a smaller max-pixels, or leave it out")
        }
        if o.poster {
            throw bad("a poster is a second file; the service renders one output", fix: "render the still with POST /v1/previews")
        }
        let resolved = try o.resolve(library, door: .service)
        // Refused now, not when the render runs: an output sweep cannot write, limits, encoder
        // options that name files, a size over the server's.
        let work = try Renderer.plannedWork(resolved.spec, to: resolved.output, still: resolved.still)
        if let size = work.size {
            estimatedSeconds = RenderCost.seconds(kind: work.kind, frames: work.frames, width: size.width, height: size.height)
        }
        self.output = URL(fileURLWithPath: resolved.output).lastPathComponent
        self.options = o
        self.resolved = resolved
    }

    /// Refuses an output that is not a bare file name: no folder, not `.` or `..`, not hidden,
    /// no control characters (C0, DEL, C1) and no bidirectional controls (U+200E/F,
    /// U+202A–U+202E, U+2066–U+2069: they make `evil\u{202E}fig.exe` show as `evilexe.gif` in a
    /// download dialog), not a numbered sequence (`%`), at most 200 bytes.
    static func checkName(_ name: String) throws {
        let ok =
            !name.isEmpty && name.utf8.count <= 200 && !name.contains("/") && !name.contains("\\") && !name.hasPrefix(".")
            && !name.contains("%") && !name.unicodeScalars.contains(where: isHidden)
        guard ok else {
            // Shown escaped: the line must not itself be reordered by the characters it refuses.
            let shown = name.unicodeScalars.map { isHidden($0) ? "\\u{\(String($0.value, radix: 16, uppercase: true))}" : String($0) }
                .joined()
            throw SweepError(
                .usage, "the output must be a bare file name, not '\(shown.prefix(240))'", subject: "spec",
                fix: "write e.g. \"output\": \"compare.gif\" (no folder, not hidden, no control characters)")
        }
    }

    /// True for a control character or a bidirectional formatting character.
    static func isHidden(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        return v < 32 || (127...159).contains(v) || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v)
    }
}
