import Foundation
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A multipart upload into one render's folder: the `before` and `after` parts are written
/// to disk as they arrive, under fixed names; the `spec` part is kept (at most 64 KiB).
/// Unless ``handOver()`` is called, the folder is removed when the upload goes (an upload
/// cut short leaves nothing).
package final class RenderUpload: UploadReceiver {
    package let folder: String
    private let store: RenderStore
    private let id: String
    private let complete: @Sendable (RenderUpload) -> HTTPResponse
    /// The written input files, by part name.
    package private(set) var files: [String: String] = [:]
    /// The spec's bytes.
    package private(set) var spec: [UInt8] = []
    private var specSeen = false
    private var open: (part: String, fd: Int32)?
    private var kept = false

    /// The parts an upload may have.
    static let parts: Set<String> = ["before", "after", "spec"]

    package init(store: RenderStore, id: String, complete: @escaping @Sendable (RenderUpload) -> HTTPResponse) {
        (self.store, self.id, self.complete) = (store, id, complete)
        folder = store.folder(id)
    }

    deinit {
        if let open { close(open.fd) }
        if !kept { store.remove(id) }
    }

    /// Keeps the folder after the upload (its render owns it now).
    package func handOver() { kept = true }

    package func receive(part: String, filename: String?, contentType: String?, offset: Int, bytes: UnsafeRawBufferPointer) throws {
        guard Self.parts.contains(part) else {
            throw SweepError(.usage, "unknown part '\(part.prefix(40))'", subject: "body", fix: "send the parts before, after and spec")
        }
        if part == "spec" {
            if offset == 0 {
                guard !specSeen else { throw SweepError(.usage, "the part spec is sent twice", subject: "body", fix: "send it once") }
                specSeen = true
            }
            guard spec.count + bytes.count <= 64 * 1024 else {
                throw SweepError(.usage, "the spec is over 64 KiB", subject: "spec", fix: "shorten it")
            }
            spec += bytes
            return
        }
        if offset == 0 || open?.part != part {
            guard files[part] == nil else {
                throw SweepError(.usage, "the part \(part) is sent twice", subject: "body", fix: "send each file once")
            }
            if let open { close(open.fd) }
            open = nil
            let path = folder + "/" + part + Self.suffix(filename)
            let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw SweepError(.cannotCreate, "cannot store the upload (\(String(cString: strerror(errno))))", subject: part)
            }
            files[part] = path
            open = (part, fd)
        }
        guard let fd = open?.fd, var p = bytes.baseAddress else { return }
        do {
            try store.usage.charge(bytes.count)
        } catch {
            // Past the quota: what was written goes now, not when the body has been read.
            abandon()
            throw error
        }
        var left = bytes.count
        while left > 0 {
            let n = write(fd, p, left)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw SweepError(.ioError, "cannot store the upload (\(String(cString: strerror(errno))))", subject: part)
            }
            left -= n
            p += n
        }
    }

    package func finish() -> HTTPResponse {
        if let open { close(open.fd) }
        open = nil
        let response = complete(self)
        // Refused: the uploads go before the answer does.
        if !kept { abandon() }
        return response
    }

    /// Closes and removes what the upload wrote (its bytes given back to the quota).
    private func abandon() {
        if let open { close(open.fd) }
        open = nil
        store.remove(id)
    }

    /// The uploaded name's extension, kept when it is short and alphanumeric (`.jpg`), so
    /// the decoder's sniffing has a hint; anything else gives no extension.
    static func suffix(_ filename: String?) -> String {
        guard let filename, let dot = filename.lastIndex(of: ".") else { return "" }
        let ext = filename[filename.index(after: dot)...]
        guard (1...5).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return "" }
        return "." + ext.lowercased()
    }
}
