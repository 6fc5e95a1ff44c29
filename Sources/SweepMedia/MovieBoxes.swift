import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The tracks of an MP4 or MOV file as its sample entries describe them, read by sweep itself
/// before FFmpeg opens the file: what FFmpeg 5.1 does not say.
///
/// - Encryption (Common Encryption, `encv`/`enca` entries with a `sinf` naming the scheme):
///   FFmpeg 5.1 either fails on the header (a fragment whose `senc` it cannot read) or hands
///   out the encrypted bytes, which decode as garbage. Read here, the file is refused as
///   encrypted before anything is decoded.
/// - Multiview HEVC (spatial video from an iPhone or a Vision Pro: `lhvC`, and a `vexu` box
///   with `eyes`): FFmpeg 5.1 decodes only the base view.
///
/// Only the `moov` box is read (at most ``movieLimit`` bytes), by box headers from the file's
/// start; `mdat` and fragments are skipped unread. Every read is bounds-checked: a box that does
/// not fit ends the walk with what was found so far.
package struct MovieBoxes: Sendable, Equatable {
    /// One track's first sample entry.
    package struct Track: Sendable, Equatable {
        /// The track's id (`tkhd`): FFmpeg's `AVStream.id` for MP4 and MOV.
        package var id: UInt32 = 0
        /// The handler (`hdlr`): `vide`, `soun`, …
        package var handler = ""
        /// The sample entry's type: `hvc1`, `avc1`, or `encv`/`enca` for an encrypted track.
        package var entry = ""
        /// The protection scheme (`schm` in `sinf`: `cenc`, `cbcs`, `cens`, `cbc1`), if any.
        package var scheme: String?
        /// The types of the visual sample entry's child boxes (`hvcC`, `lhvC`, `vexu`, `dvvC`, …).
        package var children: Set<String> = []
        /// For a stereo `vexu`: the base view shows the right eye (`stri`'s eye_views_reversed).
        package var baseViewIsRight = false

        /// The track's samples are encrypted: an `encv`/`enca` entry, or one with a scheme.
        package var encrypted: Bool { entry == "encv" || entry == "enca" || scheme != nil }

        /// The track holds two views (MV-HEVC stereo): a layered HEVC configuration, or a
        /// video extension box saying it has eyes.
        package var stereo: Bool { children.contains("lhvC") || children.contains("eyes") }
    }

    /// Every track with a sample entry, in file order.
    package private(set) var tracks: [Track] = []

    /// The most of a `moov` box read: the sample tables of hours of clip fit in it.
    static let movieLimit = 64 << 20

    /// The boxes of the file at `path`, or nil when it is not an MP4/MOV, or its `moov` cannot
    /// be found or is over ``movieLimit``.
    package static func read(_ path: String) -> MovieBoxes? {
        let fd = open(OpenedFiles.shared.physical(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(info.st_size)
        func bytes(at offset: Int, count: Int) -> [UInt8]? {
            guard count >= 0, offset >= 0, offset + count <= size else { return nil }
            var out = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, count - got, off_t(offset + got)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return nil }
                got += n
            }
            return out
        }
        // Top-level boxes: a header each, up to the movie box.
        var offset = 0
        for _ in 0..<100_000 {
            guard let head = bytes(at: offset, count: min(16, size - offset)), head.count >= 8 else { return nil }
            let type = fourCC(head, 4)
            var length = Int(be32(head, 0)), header = 8
            if length == 1 {
                guard head.count >= 16 else { return nil }
                let wide = be64(head, 8)
                guard wide <= UInt64(Int.max) else { return nil }
                (length, header) = (Int(wide), 16)
            } else if length == 0 {
                length = size - offset
            }
            // Compared as what is left, so that no stated size can overflow the sum.
            guard length >= header, length <= size - offset || type == "mdat" else { return nil }
            if offset == 0, !MediaProbe.isobmffFirstBoxes.contains(type) { return nil }
            if type == "moov" {
                guard length - header <= movieLimit, let body = bytes(at: offset + header, count: length - header) else { return nil }
                var movie = MovieBoxes()
                movie.readMovie(body)
                return movie
            }
            if length >= size - offset { return nil }  // a last `mdat`, or one said to run past the end
            offset += length
        }
        return nil
    }

    /// Reads the tracks of a `moov` box's body.
    mutating func readMovie(_ b: [UInt8]) {
        for (type, body) in Self.children(b, 0..<b.count) where type == "trak" {
            var track = Track()
            for (type, part) in Self.children(b, body) {
                if type == "tkhd", part.count >= 24 {
                    track.id = Self.be32(b, part.lowerBound + (b[part.lowerBound] == 1 ? 20 : 12))
                } else if type == "mdia" {
                    readMedia(b, part, into: &track)
                }
            }
            if !track.entry.isEmpty { tracks.append(track) }
        }
    }

    /// Reads `mdia`: the handler, and the first sample entry of `minf`/`stbl`/`stsd`.
    private func readMedia(_ b: [UInt8], _ range: Range<Int>, into track: inout Track) {
        for (type, part) in Self.children(b, range) {
            if type == "hdlr", part.count >= 12 { track.handler = Self.fourCC(b, part.lowerBound + 8) }
            guard type == "minf" else { continue }
            for (type, table) in Self.children(b, part) where type == "stbl" {
                for (type, stsd) in Self.children(b, table) where type == "stsd" && stsd.count >= 16 {
                    // Full box (4), entry count (4), then the entries; the first is the one played.
                    let entries = (stsd.lowerBound + 8)..<stsd.upperBound
                    guard let (entry, body) = Self.children(b, entries).first else { continue }
                    track.entry = entry
                    readEntry(b, body, into: &track)
                }
            }
        }
    }

    /// Reads a sample entry's protection scheme and, for a visual entry, its child boxes.
    private func readEntry(_ b: [UInt8], _ body: Range<Int>, into track: inout Track) {
        // A visual sample entry's children follow its 78 bytes of fields; other entries (sound,
        // whose fields vary with QuickTime's versions) are searched for the scheme's box instead.
        if track.handler == "vide", body.count >= 78 {
            for (type, part) in Self.children(b, (body.lowerBound + 78)..<body.upperBound) {
                track.children.insert(type)
                switch type {
                case "sinf":
                    for (inner, box) in Self.children(b, part) where inner == "schm" && box.count >= 8 {
                        track.scheme = Self.fourCC(b, box.lowerBound + 4)
                    }
                case "vexu":
                    for (inner, eyes) in Self.children(b, part) where inner == "eyes" {
                        track.children.insert(inner)
                        for (leaf, stri) in Self.children(b, eyes) where leaf == "stri" && stri.count >= 5 {
                            track.baseViewIsRight = b[stri.lowerBound + 4] & 0x08 != 0
                        }
                    }
                default: break
                }
            }
        } else if let at = Self.find("schm", in: b, body), at + 16 <= body.upperBound {
            track.scheme = Self.fourCC(b, at + 12)
        }
    }

    /// The child boxes in `range` of `b`: each type and body (``HEIFBoxes``' walk); stops at the
    /// first that does not fit, and after ``maxChildren``.
    static func children(_ b: [UInt8], _ range: Range<Int>) -> [(String, Range<Int>)] {
        var out: [(String, Range<Int>)] = []
        try? HEIFBoxes.forEachBox(in: b, range) { type, body throws(HEIFBoxes.Malformed) in
            guard out.count < maxChildren else { throw HEIFBoxes.Malformed(reason: "too many boxes") }
            out.append((type, body))
        }
        return out
    }

    /// The most child boxes read in one box.
    static let maxChildren = 10_000

    /// Where the box of type `type` begins (its size field) within `range`, by its name.
    static func find(_ type: String, in b: [UInt8], _ range: Range<Int>) -> Int? {
        let name = Array(type.utf8)
        guard range.count >= 8 else { return nil }
        for i in (range.lowerBound + 4)...(range.upperBound - 4) where b[i..<(i + 4)].elementsEqual(name) { return i - 4 }
        return nil
    }

    /// The four-character code at `i`, as ``VideoDecoder`` writes one (unprintable bytes as `?`).
    static func fourCC(_ b: [UInt8], _ i: Int) -> String { VideoDecoder.fourCC(be32(b, i)) }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 { PNGChunks.be32(b, i) }

    static func be64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(be32(b, i)) << 32 | UInt64(be32(b, i + 4)) }
}
