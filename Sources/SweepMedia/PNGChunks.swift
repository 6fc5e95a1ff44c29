import CZlib
import SweepSupport

/// Checks a PNG's chunks before any decoder sees them, and keeps only what sweep needs.
///
/// Ancillary chunks are where decompression bombs hide: a 1.7 MB file can carry a colour
/// profile (`iCCP`) or text (`zTXt`, `iTXt`) that inflates to gigabytes, and decoders
/// inflate them whole. So every chunk's CRC is checked (a damaged file is refused, as libpng
/// does), text chunks are dropped unread, a colour profile is inflated here under a cap, and
/// the orientation in an `eXIf` chunk is read (FFmpeg's PNG decoder ignores it).
package enum PNGChunks {
    /// The largest colour profile accepted, inflated (real profiles are a few KB to 1 MB).
    package static let maxProfileBytes = 4 << 20

    /// What the walk found.
    package struct Result: Sendable {
        /// The PNG without text chunks, ready for the decoder.
        package var bytes: [UInt8]
        /// The EXIF orientation tag (1…8) from an `eXIf` chunk, if any.
        package var orientation: Int?
        /// The coding-independent code points of a `cICP` chunk (colour primaries, transfer,
        /// matrix, full range), which FFmpeg 5.1's PNG decoder leaves unread: an HDR PNG
        /// says PQ (16) or HLG (18) here.
        package var cicp: (primaries: UInt8, transfer: UInt8, matrix: UInt8, fullRange: Bool)? = nil
    }

    package static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Walks `png`'s chunks; `name` is used in errors.
    ///
    /// - Throws: ``SweepError/Code/dataError`` for a damaged chunk (length past the end,
    ///   wrong CRC), a missing image header or a colour profile over the cap.
    package static func sanitize(_ png: [UInt8], name: String) throws -> Result {
        func corrupt(_ what: String) -> SweepError {
            SweepError(.dataError, "the PNG is corrupt: \(what)", subject: name, fix: "re-export it from the original")
        }
        guard png.count >= 8, Array(png[0..<8]) == signature else { throw corrupt("no PNG signature") }
        var out = signature
        out.reserveCapacity(png.count)
        var orientation: Int?
        var cicp: (primaries: UInt8, transfer: UInt8, matrix: UInt8, fullRange: Bool)?
        var at = 8
        var sawHeader = false, sawEnd = false
        var expected: Int?  // bytes of filtered scanlines the header promises
        var idat: [UInt8] = [], idatAt: Int?
        while at + 12 <= png.count, !sawEnd {
            let length = Int(be32(png, at))
            guard length <= Int(Int32.max), length <= png.count - at - 12 else {
                throw corrupt("chunk at byte \(at) runs past the end of the file")
            }
            let type = String(decoding: png[(at + 4)..<(at + 8)], as: UTF8.self)
            let body = (at + 8)..<(at + 8 + length)
            let crc = be32(png, at + 8 + length)
            guard crc == crc32(png[(at + 4)..<(at + 8 + length)]) else { throw corrupt("chunk \(type) fails its CRC check") }
            if !sawHeader && type != "IHDR" { throw corrupt("it does not start with an image header") }
            sawHeader = true
            var keep = true
            switch type {
            case "tEXt", "zTXt", "iTXt":
                keep = false  // text is never shown; compressed text is a bomb waiting to be inflated
            case "iCCP":
                try checkProfile(png[body], name: name)
            case "eXIf":
                orientation = exifOrientation(Array(png[body]))
            case "cICP" where length == 4:
                let c = Array(png[body])
                cicp = (c[0], c[1], c[2], c[3] != 0)
            case "IHDR":
                expected = rawSize(header: Array(png[body]))
            case "IDAT":
                // Gathered into one chunk, cut where the picture is complete (below).
                keep = false
                if idatAt == nil { idatAt = out.count }
                idat += png[body]
            case "IEND":
                sawEnd = true
            default: break
            }
            if keep { out += png[at..<(at + 12 + length)] }
            at += 12 + length
        }
        guard sawHeader else { throw corrupt("it has no image header") }
        if let idatAt {
            let data = expected.map { Array(idat[..<completeLength(idat, rawSize: $0)]) } ?? idat
            out.insert(contentsOf: chunk("IDAT", data), at: idatAt)
        }
        return Result(bytes: out, orientation: orientation, cicp: cicp)
    }

    /// The bytes of filtered scanlines an image header promises (Adam7 passes included), or
    /// nil for a header that makes no sense (the decoder will say so).
    static func rawSize(header h: [UInt8]) -> Int? {
        guard h.count >= 13 else { return nil }
        let w = Int(be32(h, 0)), ht = Int(be32(h, 4)), depth = Int(h[8]), interlaced = h[12] == 1
        let channels: Int
        switch h[9] {
        case 0, 3: channels = 1
        case 2: channels = 3
        case 4: channels = 2
        case 6: channels = 4
        default: return nil
        }
        guard w > 0, ht > 0, w <= 1 << 24, ht <= 1 << 24, [1, 2, 4, 8, 16].contains(depth) else { return nil }
        func lines(_ pw: Int, _ ph: Int) -> Int { pw == 0 || ph == 0 ? 0 : ph * (1 + (pw * channels * depth + 7) / 8) }
        guard interlaced else { return lines(w, ht) }
        let passes = [(0, 8, 0, 8), (4, 8, 0, 8), (0, 4, 4, 8), (2, 4, 0, 4), (0, 2, 2, 4), (1, 2, 0, 2), (0, 1, 1, 2)]
        return passes.reduce(0) { sum, p in
            sum + lines((w - p.0 + p.1 - 1) / p.1, (ht - p.2 + p.3 - 1) / p.3)
        }
    }

    /// How much of the zlib stream `data` yields `rawSize` bytes: the rest is inflated by
    /// nobody. A decoder would inflate everything after a complete picture too, and a 1 MB
    /// file can carry gigabytes of it (seconds of CPU for nothing).
    static func completeLength(_ data: [UInt8], rawSize: Int) -> Int {
        guard let r = inflate(data[...], upTo: rawSize), r.produced >= rawSize, r.going else { return data.count }
        return r.consumed
    }

    /// Inflates the zlib stream `data` until it has yielded `limit` bytes, ends, runs out
    /// of input or fails. The output is dropped 64 KB at a time, so memory stays flat
    /// whatever the stream claims to hold.
    ///
    /// - Returns: the bytes produced (at most `limit`), the bytes of `data` consumed, and
    ///   whether the stream could go on; nil when zlib cannot start.
    static func inflate(_ data: ArraySlice<UInt8>, upTo limit: Int) -> (produced: Int, consumed: Int, going: Bool)? {
        var stream = z_stream()
        guard sweep_inflate_init(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var sink = [UInt8](repeating: 0, count: 64 << 10)
        var produced = 0
        var status = Z_OK
        var consumed = 0
        data.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while status == Z_OK && produced < limit && stream.avail_in > 0 {
                sink.withUnsafeMutableBufferPointer { buf in
                    let room = min(buf.count, limit - produced)
                    stream.next_out = buf.baseAddress
                    stream.avail_out = uInt(room)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    produced += room - Int(stream.avail_out)
                }
            }
            consumed = input.count - Int(stream.avail_in)
        }
        return (produced, consumed, status == Z_OK)
    }

    /// A chunk with its length and CRC.
    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        let crc = crc32(typed[...])
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        return be(UInt32(body.count)) + typed + be(crc)
    }

    /// Inflates an `iCCP` body (name, 0, method, zlib data) only as far as the cap allows.
    static func checkProfile(_ body: ArraySlice<UInt8>, name: String) throws {
        guard let nul = body.firstIndex(of: 0), nul + 2 <= body.endIndex,
            let r = inflate(body[(nul + 2)...], upTo: maxProfileBytes + 1), r.produced > maxProfileBytes
        else { return }
        throw SweepError(
            .dataError, "the PNG's colour profile inflates to more than \(maxProfileBytes >> 20) MB",
            subject: name, fix: "re-export it with a standard profile (sRGB or Display P3)")
    }

    /// The orientation tag (0x0112) of an EXIF block in TIFF layout, if present and valid.
    static func exifOrientation(_ exif: [UInt8]) -> Int? {
        guard exif.count >= 8 else { return nil }
        let little: Bool
        switch (exif[0], exif[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ i: Int) -> Int? {
            guard i >= 0, i + 2 <= exif.count else { return nil }
            return little ? Int(exif[i]) | Int(exif[i + 1]) << 8 : Int(exif[i]) << 8 | Int(exif[i + 1])
        }
        func u32(_ i: Int) -> Int? {
            guard let a = u16(i), let b = u16(i + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        for k in 0..<min(count, 1000) {
            let entry = ifd + 2 + k * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112, let type = u16(entry + 2), type == 3, let value = u16(entry + 8), (1...8).contains(value) {
                return value
            }
        }
        return nil
    }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    /// CRC-32 as PNG defines it (zlib's), over type and data.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
    }
}
