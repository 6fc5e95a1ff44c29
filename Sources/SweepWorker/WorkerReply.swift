import Foundation
import SweepImaging
import SweepMedia
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The worker's answer, laid out in the shared-memory file the parent sized:
/// a 64-byte header (magic, kind, width, height, message length, the still's size as
/// decoded before any resize), an error message as JSON
/// from byte 64 (room for a path of any length, escaped), and the picture's RGBA rows from
/// byte 65536, so they are copied once.
enum WorkerReply {
    static let headerBytes = 1 << 16
    static let magic: UInt32 = 0x5357_5052  // "SWPR"

    enum Kind: UInt32 {
        case image = 0, video, animation, animatedWebP, failure
    }

    /// Writes `result` into the shared-memory file `fd` of `size` bytes, through a mapping
    /// of only the bytes it needs, allocated at once (faster than a fault per page).
    static func write(_ result: Result<DecodedInput, SweepError>, to fd: Int32, size: Int) -> Bool {
        var picture = 0
        if case let .success(.image(image, _)) = result { picture = image.pixels.count }
        let used = headerBytes + picture <= size ? headerBytes + picture : headerBytes
        guard let base = mmap(nil, used, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0), base != MAP_FAILED else {
            return false
        }
        defer { munmap(base, used) }
        write(result, to: base, size: used)
        return true
    }

    private static func write(_ result: Result<DecodedInput, SweepError>, to base: UnsafeMutableRawPointer, size: Int) {
        var kind = Kind.failure, width = 0, height = 0, source = (width: 0, height: 0)
        var message: [UInt8] = []
        switch result {
        case let .success(.image(image, decoded)):
            if headerBytes + image.pixels.count <= size {
                (kind, width, height, source) = (.image, image.width, image.height, decoded)
                image.pixels.withUnsafeBytes { (base + headerBytes).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            } else {
                // Only a file-size limit (ulimit -f) makes the shared memory smaller than the pixel limit.
                message = encode(
                    SweepError(
                        .ioError, "the decoded picture (\(image.width)×\(image.height)) does not fit under the file-size limit (ulimit -f)",
                        fix: "raise the limit"))
            }
        case let .success(.clip(clip)):
            kind =
                switch clip {
                case .image: .image
                case .video: .video
                case .animation: .animation
                case .animatedWebP: .animatedWebP
                }
        case let .failure(error):
            message = encode(error)
        }
        if message.count > headerBytes - 64, case let .failure(e) = result {
            message = encode(SweepError(e.code, String(e.message.prefix(200))))
        }
        base.storeBytes(of: magic, toByteOffset: 0, as: UInt32.self)
        base.storeBytes(of: kind.rawValue, toByteOffset: 4, as: UInt32.self)
        base.storeBytes(of: Int64(width), toByteOffset: 8, as: Int64.self)
        base.storeBytes(of: Int64(height), toByteOffset: 16, as: Int64.self)
        base.storeBytes(of: UInt32(message.count), toByteOffset: 24, as: UInt32.self)
        base.storeBytes(of: Int64(source.width), toByteOffset: 32, as: Int64.self)
        base.storeBytes(of: Int64(source.height), toByteOffset: 40, as: Int64.self)
        message.withUnsafeBytes { (base + 64).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    }

    /// Reads the answer from the shared-memory file `fd` of `size` bytes; `name` is the file
    /// in messages. The picture is read straight into its array (faster than mapping it).
    static func read(_ fd: Int32, size: Int, name: String) throws -> DecodedInput {
        let broken = SweepError(.internalError, "the decode worker's answer is malformed", subject: name)
        var header = [UInt8](repeating: 0, count: headerBytes)
        guard size >= headerBytes, readFully(fd, into: &header, at: 0) else { throw broken }
        return try header.withUnsafeBytes { base -> DecodedInput in
            guard base.load(fromByteOffset: 0, as: UInt32.self) == magic,
                let kind = Kind(rawValue: base.load(fromByteOffset: 4, as: UInt32.self))
            else { throw broken }
            switch kind {
            case .video: return .clip(.video)
            case .animation: return .clip(.animation)
            case .animatedWebP: return .clip(.animatedWebP)
            case .failure:
                let count = Int(base.load(fromByteOffset: 24, as: UInt32.self))
                guard count <= headerBytes - 64 else { throw broken }
                guard let e = decode(UnsafeRawBufferPointer(rebasing: base[64..<64 + count])) else { throw broken }
                throw e.subject == nil ? SweepError(e.code, e.message, subject: name, fix: e.fix, field: e.field) : e
            case .image:
                let w = Int(base.load(fromByteOffset: 8, as: Int64.self)), h = Int(base.load(fromByteOffset: 16, as: Int64.self))
                let sw = Int(base.load(fromByteOffset: 32, as: Int64.self)), sh = Int(base.load(fromByteOffset: 40, as: Int64.self))
                guard w > 0, h > 0, w <= 1 << 20, h <= 1 << 20, headerBytes + w * h * 4 <= size,
                    sw > 0, sh > 0, sw <= 1 << 20, sh <= 1 << 20
                else { throw broken }
                var pixels = [UInt8](unsafeUninitializedCapacity: w * h * 4) { _, count in count = w * h * 4 }
                guard readFully(fd, into: &pixels, at: headerBytes) else { throw broken }
                return .image(RGBAImage(width: w, height: h, pixels: pixels), source: (sw, sh))
            }
        }
    }

    /// Fills `buffer` from `fd` at `offset`.
    private static func readFully(_ fd: Int32, into buffer: inout [UInt8], at offset: Int) -> Bool {
        buffer.withUnsafeMutableBytes { out in
            var done = 0
            while done < out.count {
                let n = pread(fd, out.baseAddress! + done, out.count - done, off_t(offset + done))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
    }

    /// The error's fields as JSON (the code by its name).
    static func encode(_ e: SweepError) -> [UInt8] {
        var body: [String: String] = ["code": e.code.name, "message": e.message]
        body["subject"] = e.subject
        body["fix"] = e.fix
        body["field"] = e.field?.name
        return (try? JSONSerialization.data(withJSONObject: body)).map { [UInt8]($0) } ?? []
    }

    private static let codes: [SweepError.Code] = [
        .usage, .dataError, .noInput, .internalError, .unavailable, .cannotCreate, .ioError,
    ]

    /// The error `encode` wrote, or nil when `bytes` are not one.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> SweepError? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String],
            let message = object["message"], let code = codes.first(where: { $0.name == object["code"] })
        else { return nil }
        return SweepError(code, message, subject: object["subject"], fix: object["fix"], field: object["field"].map(SweepError.Field.init))
    }
}
