import CZlib

/// Finds, in the first bytes of a still picture, colour signalling that a web browser honours
/// and sweep's decoder does not show the same way, so that a preview the browser draws itself
/// would not look like the export:
///
/// - an HDR transfer (PQ or HLG) in a PNG's `cICP` chunk, or in an ICC profile (PNG `iCCP`,
///   JPEG `APP2`, WebP `ICCP`) by its `cicp` tag or its description: a browser tone-maps it to
///   the screen by its own rules (or shows it bright on an HDR screen), while sweep's still
///   decoder reads the samples through the profile, or as sRGB;
/// - wide primaries in a PNG's `cICP` chunk: sweep reads a PNG's samples as sRGB whatever
///   `cICP` says, a browser converts them;
/// - an HDR gain map in a JPEG (Ultra HDR's `hdrgm` XMP, ISO 21496-1, Apple's `HDRGainMap`):
///   a browser brightens the picture with it on an HDR screen; sweep shows the SDR base
///   picture, as the export does.
///
/// An ICC profile of an SDR colour space (Display P3, or BT.2020 with a gamma curve) is no
/// such difference: sweep converts through it to sRGB (lcms2) as a browser does to an sRGB
/// screen. HEIC and AVIF pictures are not looked at: browsers cannot be relied on to decode
/// them at all.
package enum HDRSignal {
    /// How much of a file is read: PNG puts `cICP` and `iCCP` before the pixels, JPEG its
    /// `APP` segments (64 KiB each at most) before the first scan, WebP `ICCP` first.
    package static let headBytes = 512 << 10

    /// What was found, as a phrase for the studio ("an HDR transfer (PQ) in its cICP chunk"),
    /// or nil when the browser shows the picture as sweep does.
    package static func find(in head: [UInt8]) -> String? {
        let b = head.count > headBytes ? Array(head[..<headBytes]) : head
        switch ImageKind(sniffing: b) {
        case .png: return png(b)
        case .jpeg: return jpeg(b)
        case .webp: return webp(b)
        default: return nil
        }
    }

    /// H.273 transfer characteristics: SMPTE ST 2084 (PQ) and ARIB STD-B67 (HLG).
    static func hdrName(transfer: UInt8) -> String? {
        switch transfer {
        case 16: return "PQ"
        case 18: return "HLG"
        default: return nil
        }
    }

    static func png(_ b: [UInt8]) -> String? {
        var at = 8
        while at + 8 <= b.count {
            let length = Int(PNGChunks.be32(b, at))
            let type = String(decoding: b[(at + 4)..<(at + 8)], as: UTF8.self)
            if type == "IDAT" || type == "IEND" { break }
            let body = (at + 8)..<min(b.count, at + 8 + length)
            if type == "cICP", body.count >= 4 {
                let primaries = b[body.lowerBound], transfer = b[body.lowerBound + 1]
                if let name = hdrName(transfer: transfer) { return "an HDR transfer (\(name)) in its cICP chunk" }
                // 1: BT.709 (sRGB's), 2: unspecified.
                if primaries != 1 && primaries != 2 { return "wide-gamut primaries in its cICP chunk" }
            }
            if type == "iCCP", let nul = b[body].firstIndex(of: 0), nul + 2 <= body.upperBound,
                let profile = inflate(b[(nul + 2)..<body.upperBound], limit: PNGChunks.maxProfileBytes),
                let found = icc(profile)
            {
                return found
            }
            at += 12 + length
        }
        return nil
    }

    static func jpeg(_ b: [UInt8]) -> String? {
        var at = 2
        var profile: [Int: [UInt8]] = [:]
        while at + 4 <= b.count {
            guard b[at] == 0xFF else { break }
            let marker = b[at + 1]
            if marker == 0xFF {
                at += 1
                continue
            }
            // Start of scan or end of image: no more metadata. Markers without a length.
            if marker == 0xDA || marker == 0xD9 { break }
            if marker == 0x01 || (0xD0...0xD8).contains(marker) {
                at += 2
                continue
            }
            let length = Int(b[at + 2]) << 8 | Int(b[at + 3])
            guard length >= 2 else { break }
            let body = Array(b[(at + 4)..<min(b.count, at + 2 + length)])
            if marker == 0xE1, starts(body, "http://ns.adobe.com/xap/1.0/\0") {
                let xmp = String(decoding: body, as: UTF8.self)
                if xmp.contains("hdrgm:") || xmp.contains("HDRGainMap") { return "an HDR gain map" }
            }
            if marker == 0xE2 {
                if starts(body, "urn:iso:std:iso:ts:21496:-1\0") { return "an HDR gain map" }
                if starts(body, "ICC_PROFILE\0"), body.count > 14 { profile[Int(body[12])] = Array(body[14...]) }
            }
            at += 2 + length
        }
        guard !profile.isEmpty else { return nil }
        return icc(profile.keys.sorted().flatMap { profile[$0]! })
    }

    static func webp(_ b: [UInt8]) -> String? {
        var at = 12
        while at + 8 <= b.count {
            let type = String(decoding: b[at..<(at + 4)], as: UTF8.self)
            let size = Int(b[at + 4]) | Int(b[at + 5]) << 8 | Int(b[at + 6]) << 16 | Int(b[at + 7]) << 24
            if type == "ICCP" { return icc(Array(b[(at + 8)..<min(b.count, at + 8 + size)])) }
            if ["VP8 ", "VP8L", "ALPH", "ANIM"].contains(type) { break }
            at += 8 + size + (size & 1)
        }
        return nil
    }

    /// An HDR transfer in an ICC profile: its `cicp` tag (ICC v4.4), else words of its
    /// description that only HDR profiles use (PQ, HLG, ST 2084, BT.2100).
    static func icc(_ p: [UInt8]) -> String? {
        guard p.count >= 132 else { return nil }
        let count = min(Int(PNGChunks.be32(p, 128)), 200)
        var description: String?
        for i in 0..<count {
            let entry = 132 + 12 * i
            guard entry + 12 <= p.count else { break }
            let signature = String(decoding: p[entry..<(entry + 4)], as: UTF8.self)
            let offset = Int(PNGChunks.be32(p, entry + 4)), size = Int(PNGChunks.be32(p, entry + 8))
            guard offset >= 0, size >= 0, offset <= p.count, size <= p.count - offset else { continue }
            let data = Array(p[offset..<(offset + size)])
            if signature == "cicp", data.count >= 12, let name = hdrName(transfer: data[9]) {
                return "an HDR transfer (\(name)) in its colour profile"
            }
            if signature == "desc" { description = text(data) }
        }
        guard let description else { return nil }
        let words = Set(description.uppercased().split { !$0.isLetter && !$0.isNumber }.map(String.init))
        if words.contains("PQ") || words.contains("2084") || words.contains("2100") { return "an HDR transfer (PQ) in its colour profile" }
        if words.contains("HLG") { return "an HDR transfer (HLG) in its colour profile" }
        return nil
    }

    /// The text of a `desc` tag: ICC v2's `desc` type (ASCII) or v4's `mluc` (UTF-16, the
    /// first record).
    static func text(_ d: [UInt8]) -> String? {
        guard d.count >= 12 else { return nil }
        if starts(d, "desc") {
            let n = min(Int(PNGChunks.be32(d, 8)), d.count - 12)
            return String(decoding: d[12..<(12 + max(0, n))].filter { $0 != 0 }, as: UTF8.self)
        }
        if starts(d, "mluc"), d.count >= 28, PNGChunks.be32(d, 8) > 0 {
            let length = Int(PNGChunks.be32(d, 20)), offset = Int(PNGChunks.be32(d, 24))
            guard offset <= d.count, length <= d.count - offset else { return nil }
            let units = stride(from: offset, to: offset + length - 1, by: 2).map { UInt16(d[$0]) << 8 | UInt16(d[$0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        }
        return nil
    }

    static func starts(_ b: [UInt8], _ prefix: String) -> Bool {
        let p = Array(prefix.utf8)
        return b.count >= p.count && Array(b[..<p.count]) == p
    }

    /// Inflates a zlib stream, at most `limit` bytes of it; nil when it is larger or broken
    /// before anything came out.
    static func inflate(_ data: ArraySlice<UInt8>, limit: Int) -> [UInt8]? {
        var stream = z_stream()
        guard sweep_inflate_init(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var status = Z_OK
        data.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while status == Z_OK && out.count <= limit {
                let produced = chunk.withUnsafeMutableBufferPointer { buf -> Int in
                    stream.next_out = buf.baseAddress
                    stream.avail_out = uInt(buf.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return buf.count - Int(stream.avail_out)
                }
                out += chunk[..<produced]
                if produced == 0 { break }
            }
        }
        return out.isEmpty || out.count > limit ? nil : out
    }
}
