import SweepSupport

/// Tells a still picture from a moving one by content, before any decoder runs.
///
/// Videos are recognised by their container's signature (ISO BMFF that is not HEIF/AVIF,
/// Matroska/WebM, AVI, MPEG-TS, FLV); GIF and PNG count as moving when they hold more than one
/// frame (an animated GIF, an APNG). Everything else is left to ``ImageDecoder``, which
/// refuses what it cannot read.
package enum MediaProbe {
    /// What a file holds.
    package enum Kind: Sendable, Equatable {
        /// A still picture (or the first frame of an animation, when asked for).
        case image
        /// Frames in time, played by ``VideoDecoder``.
        case video
        /// An animated GIF or APNG: played like a video, or shown as its first frame.
        case animation
        /// An animated WebP: FFmpeg 5.1 decodes only its first frame.
        case animatedWebP

        /// Whether a file of this kind plays as a clip: a video always, an animation unless
        /// only its first frame is wanted.
        package func playsAsClip(firstFrame: Bool) -> Bool {
            self == .video || (self != .image && !firstFrame)
        }
    }

    /// The most of an animated GIF or PNG read to count its frames.
    static let animationScanLimit = 256 << 20

    /// The kind of the file at `path`.
    ///
    /// - Throws: ``SweepError`` `.noInput` when it cannot be opened, as ``FileBytes`` says.
    package static func kind(of path: String) throws -> Kind {
        let head = try FileBytes.prefix(path, count: 4096)
        if let kind = ImageKind(sniffing: head) {
            switch kind {
            case .gif, .png:
                let bytes = try FileBytes.read(path, limit: animationScanLimit, regularFileOnly: true)
                return (kind == .gif ? gifFrames(bytes) : apngFrames(bytes)) > 1 ? .animation : .image
            case .webp:
                return head.count > 20 && head[12..<16].elementsEqual("VP8X".utf8) && head[20] & 0x02 != 0 ? .animatedWebP : .image
            default:
                return .image
            }
        }
        return isVideoContainer(head) ? .video : .image
    }

    /// Box types an ISO BMFF or QuickTime file can start with.
    static let isobmffFirstBoxes = ["ftyp", "moov", "mdat", "wide", "skip", "free", "pnot"]

    /// Signatures of the video containers sweep opens.
    static func isVideoContainer(_ b: [UInt8]) -> Bool {
        func at(_ i: Int, _ s: [UInt8]) -> Bool { b.count >= i + s.count && b[i..<(i + s.count)].elementsEqual(s) }
        // MP4/MOV (HEIF and AVIF were taken as images). QuickTime writers may put any of
        // these boxes first; `ftyp` is optional in a .mov.
        if isobmffFirstBoxes.contains(where: { at(4, Array($0.utf8)) }) { return true }
        if at(0, [0x1A, 0x45, 0xDF, 0xA3]) { return true }  // Matroska/WebM
        if at(0, Array("RIFF".utf8)) && at(8, Array("AVI ".utf8)) { return true }
        if at(0, Array("FLV".utf8) + [1]) { return true }
        if b.count > 376 && b[0] == 0x47 && b[188] == 0x47 && b[376] == 0x47 { return true }  // MPEG-TS
        return false
    }

    /// Image descriptors in a GIF (stops counting at 2, or at damage).
    static func gifFrames(_ b: [UInt8]) -> Int {
        guard b.count >= 13 else { return 0 }
        var i = 13
        if b[10] & 0x80 != 0 { i += 3 << (Int(b[10] & 7) + 1) }
        var frames = 0
        func skipSubBlocks() {
            while i < b.count {
                let n = Int(b[i])
                i += 1 + n
                if n == 0 { return }
            }
        }
        while i < b.count, frames < 2 {
            switch b[i] {
            case 0x21:
                i += 2
                skipSubBlocks()
            case 0x2C:
                frames += 1
                guard i + 10 <= b.count else { return frames }
                let flags = b[i + 9]
                i += 10
                if flags & 0x80 != 0 { i += 3 << (Int(flags & 7) + 1) }
                i += 1  // LZW minimum code size
                skipSubBlocks()
            default:
                return frames  // the trailer, or damage
            }
        }
        return frames
    }

    /// Frames an APNG declares in its `acTL` chunk (1 for a plain PNG).
    static func apngFrames(_ b: [UInt8]) -> Int {
        var i = 8
        while i + 12 <= b.count {
            let length = Int(PNGChunks.be32(b, i))
            let type = b[(i + 4)..<(i + 8)]
            if type.elementsEqual("acTL".utf8), length >= 8, i + 12 <= b.count {
                return Int(PNGChunks.be32(b, i + 8))
            }
            if type.elementsEqual("IDAT".utf8) { return 1 }  // acTL must come before the image data
            i += 12 + length
        }
        return 1
    }
}
