import SweepMedia
import SweepSupport

/// `POST /studio/probe`: whether the studio's preview of pictures the browser decodes itself
/// must still be drawn by the server, because the browser would show their colours otherwise
/// than the export (HDR transfers, `cICP` primaries, HDR gain maps: ``HDRSignal``). The page
/// sends the head of each file (at most ``HDRSignal/headBytes``) as the parts `before` and
/// `after`; the answer is `{"server": false}` or `{"server": true, "why": "…"}`.
///
/// The rule is the server's, decided by sweep's own reading of the files' colour tags, and
/// not the page's: which tags a browser honours differs by browser and version, and what the
/// export shows is what sweep's decoders make of them, which only sweep knows. The page asks
/// only for what it would otherwise show itself; what it cannot decode is uploaded at once.
///
/// Like `/studio/element` it reads nothing of the server's and renders nothing, so it asks for
/// no token and no preview place; the Host and Origin checks still apply.
final class StudioProbe: UploadReceiver {
    private var heads: [String: [UInt8]] = [:]

    func receive(part: String, filename: String?, contentType: String?, offset: Int, bytes: UnsafeRawBufferPointer) throws {
        guard part == "before" || part == "after" else {
            throw SweepError(.usage, "unknown part '\(part.prefix(40))'", subject: "body", fix: "send the parts before and after")
        }
        let head = heads[part, default: []]
        guard head.count + bytes.count <= HDRSignal.headBytes else {
            throw SweepError(
                .usage, "the part \(part) is over \(HDRSignal.headBytes >> 10) KiB", subject: part,
                fix: "send only the first \(HDRSignal.headBytes >> 10) KiB of the file")
        }
        heads[part] = head + Array(bytes)
    }

    func finish() -> HTTPResponse {
        guard let before = heads["before"] else {
            return .problem(400, "the part before is missing; send the head of the before picture as the part before")
        }
        for (side, head) in [("before", before), ("after", heads["after"])] {
            guard let head, let why = HDRSignal.find(in: head) else { continue }
            return .json(200, ["server": true, "why": "the \(side) picture has \(why)"], headers: [("Cache-Control", "no-store")])
        }
        return .json(200, ["server": false], headers: [("Cache-Control", "no-store")])
    }
}
