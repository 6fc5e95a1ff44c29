import CFFmpeg

/// The still-image formats sweep reads, recognised from their first bytes.
///
/// Only these reach a decoder, each its own: HEIF and AVIF go to libheif, the rest to FFmpeg
/// through one demuxer and decoder per kind. An MP4, a PSD or a PPM renamed `.jpg` is refused
/// before any of FFmpeg's many other parsers could run.
enum ImageKind: String, CaseIterable {
    case jpeg, png, gif, webp, tiff, bmp
    /// HEIC/HEIF (iPhone photos: HEVC in the ISO base media file format).
    case heif
    /// AVIF (AV1 in the same container).
    case avif

    /// `ftyp` brands of still HEIF images (HEVC and generic) and of AVIF.
    static let heifBrands: Set<String> = ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"]
    static let avifBrands: Set<String> = ["avif", "avis"]

    /// The kind whose signature `bytes` start with, if any.
    init?(sniffing b: [UInt8]) {
        func starts(_ s: [UInt8], at i: Int = 0) -> Bool { b.count >= i + s.count && Array(b[i..<(i + s.count)]) == s }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts(PNGChunks.signature) {
            self = .png
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            self = .tiff
        } else if starts(Array("BM".utf8)) && b.count >= 26 {
            self = .bmp
        } else if let kind = Self.isobmff(b) {
            self = kind
        } else {
            return nil
        }
    }

    /// HEIF or AVIF from a leading `ftyp` box: its major brand, then its compatible brands.
    ///
    /// An AVIF also lists `mif1`, so the AV1 brands are looked for first; an MP4 (`isom`,
    /// `mp42`) matches neither and stays refused.
    private static func isobmff(_ b: [UInt8]) -> ImageKind? {
        guard b.count >= 16, b[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let size = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        guard size >= 16, size <= b.count else { return nil }
        // The major brand, then the compatible brands (the minor version sits between them).
        let brands = ([8] + Array(stride(from: 16, to: size - 3, by: 4))).map { String(decoding: b[$0..<($0 + 4)], as: UTF8.self) }
        if brands.contains(where: avifBrands.contains) { return .avif }
        if brands.contains(where: heifBrands.contains) { return .heif }
        return nil
    }

    /// The libavformat demuxer for this kind (no probing among the others); `nil` for the
    /// kinds libheif decodes.
    var demuxer: String? {
        switch self {
        case .jpeg: "jpeg_pipe"
        case .png: "png_pipe"
        case .gif: "gif"
        case .webp: "webp_pipe"
        case .tiff: "tiff_pipe"
        case .bmp: "bmp_pipe"
        case .heif, .avif: nil
        }
    }

    /// The one FFmpeg decoder this kind may use (`AV_CODEC_ID_NONE` for the libheif kinds).
    var codec: AVCodecID {
        switch self {
        case .jpeg: AV_CODEC_ID_MJPEG
        case .png: AV_CODEC_ID_PNG
        case .gif: AV_CODEC_ID_GIF
        case .webp: AV_CODEC_ID_WEBP
        case .tiff: AV_CODEC_ID_TIFF
        case .bmp: AV_CODEC_ID_BMP
        case .heif, .avif: AV_CODEC_ID_NONE
        }
    }
}
