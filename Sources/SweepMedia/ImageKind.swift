import CFFmpeg

/// The still-image formats sweep reads, recognised from their first bytes.
///
/// Only these reach FFmpeg, and each through its own demuxer and decoder: an MP4, a PSD or a
/// PPM renamed `.jpg` is refused before any of FFmpeg's many other parsers could run.
enum ImageKind: String, CaseIterable {
    case jpeg, png, gif, webp, tiff, bmp

    /// The kind whose signature `bytes` start with, if any.
    init?(sniffing b: [UInt8]) {
        func starts(_ s: [UInt8], at i: Int = 0) -> Bool { b.count >= i + s.count && Array(b[i..<(i + s.count)]) == s }
        if starts([0xFF, 0xD8, 0xFF]) { self = .jpeg }
        else if starts(PNGChunks.signature) { self = .png }
        else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { self = .gif }
        else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { self = .webp }
        else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { self = .tiff }
        else if starts(Array("BM".utf8)) && b.count >= 26 { self = .bmp }
        else { return nil }
    }

    /// The libavformat demuxer for this kind (no probing among the others).
    var demuxer: String {
        switch self {
        case .jpeg: "jpeg_pipe"
        case .png: "png_pipe"
        case .gif: "gif"
        case .webp: "webp_pipe"
        case .tiff: "tiff_pipe"
        case .bmp: "bmp_pipe"
        }
    }

    /// The one decoder this kind may use.
    var codec: AVCodecID {
        switch self {
        case .jpeg: AV_CODEC_ID_MJPEG
        case .png: AV_CODEC_ID_PNG
        case .gif: AV_CODEC_ID_GIF
        case .webp: AV_CODEC_ID_WEBP
        case .tiff: AV_CODEC_ID_TIFF
        case .bmp: AV_CODEC_ID_BMP
        }
    }
}
