import Foundation
import SweepPipeline
import SweepRequest
import SweepSupport

/// An HTTP answer: a status, headers and a body.
package struct HTTPResponse: Sendable {
    /// Where the body comes from.
    package enum Body: Sendable {
        /// These bytes.
        case bytes([UInt8])
        /// An open file descriptor (handed over: the server closes it) and its size.
        case file(Int32, Int)
        /// Pieces from this function, until it returns nil (it may block: an event stream).
        case stream(@Sendable () -> [UInt8]?)
    }

    package var status: Int
    package var headers: [(String, String)]
    package var body: Body

    package init(status: Int, headers: [(String, String)] = [], body: Body = .bytes([])) {
        (self.status, self.headers, self.body) = (status, headers, body)
    }

    /// `value` as JSON (sorted keys, slashes unescaped).
    package static func json(_ status: Int, _ value: Any, headers: [(String, String)] = []) -> HTTPResponse {
        let data =
            (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return HTTPResponse(
            status: status, headers: [("Content-Type", "application/json")] + headers, body: .bytes(Array(data) + [10]))
    }

    /// `{"error": "<the CLI's one line>", "exit": N}` with the status ``status(for:)`` maps;
    /// `folder` (a render's, on the server) is left out of the line.
    package static func error(_ error: any Error, hiding folder: String? = nil, headers: [(String, String)] = []) -> HTTPResponse {
        let e = error as? SweepError ?? SweepError(.internalError, "internal error: \(error)", fix: "please report it")
        return json(status(for: e), ["error": line(e, hiding: folder), "exit": Int(e.code.exitCode)], headers: headers)
    }

    /// The CLI's one line for `e`, with `folder` (relative or absolute) left out of it: a
    /// client names its files by their parts (`before.png`), never by server paths.
    package static func line(_ e: SweepError, hiding folder: String?) -> String {
        var text = OptionNames.describe(e)
        guard let folder else { return text }
        let absolute = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        for f in [absolute, folder] {
            text = text.replacingOccurrences(of: f + "/out/", with: "").replacingOccurrences(of: f + "/", with: "")
        }
        return text
    }

    /// An error of the service itself (no exit code of the CLI's: a route, a method, a token).
    package static func problem(_ status: Int, _ message: String, headers: [(String, String)] = []) -> HTTPResponse {
        json(status, ["error": message, "exit": 64], headers: headers)
    }

    /// 413 for a body over `limit` bytes.
    package static func tooLarge(_ limit: Int) -> HTTPResponse {
        problem(413, "the upload is over the limit of \(limit) bytes (--max-upload)")
    }

    /// The HTTP status for a CLI error: 64 → 400, 65 → 422, 66 → 404, 69 → 415, 73/74 → 500,
    /// a pixel, byte or memory limit → 413, anything else 500.
    package static func status(for e: SweepError) -> Int {
        if let field = e.field, [.maxPixels, .maxFramePixels, .maxBytes, .maxMemory].contains(field) { return 413 }
        switch e.code.exitCode {
        case 64: return 400
        case 65: return 422
        case 66: return 404
        case 69: return 415
        default: return 500
        }
    }
}
