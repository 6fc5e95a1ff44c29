import CFFmpeg
import Foundation
import SweepImaging
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Decodes still images (JPEG, PNG, WebP, TIFF, BMP, the first frame of a GIF through FFmpeg's
/// decoders; HEIC/HEIF and AVIF through libheif), recognising the format from the bytes, not
/// the file name.
package enum ImageDecoder {
    /// The default pixel limit: 100 megapixels.
    package static let defaultMaxPixels = 100_000_000

    /// The cap given to an FFmpeg decoder (`max_pixels`), so that it refuses to allocate a
    /// picture far over the limit (a decompression bomb) before sweep sees the frame.
    ///
    /// FFmpeg's check counts the row padding too (the width rounded up to its stride
    /// alignment, coded sizes rounded to blocks), so a genuine picture right at the limit
    /// needs slack; the exact limit is checked by sweep from the header and on every frame.
    /// Some decoders also check their scratch buffers against it (MPEG-4's is 192×280 for a
    /// 96×64 picture), hence a megapixel more. `width` and `height` are the header's, or 0
    /// when not known yet (while probing).
    package static func decoderPixelCap(width: Int, height: Int, maxPixels: Int) -> Int64 {
        let padded = width > 0 && height > 0 ? (width + 128) * (height + 128) : maxPixels + maxPixels / 16
        return Int64(min(padded + (1 << 20), Int(Int32.max)))
    }
    /// The largest input file read (a 100-megapixel image is far smaller).
    package static let maxFileBytes = 1 << 30

    /// The fix every "not an image" error gives: the formats sweep reads, stills and videos.
    static let formatsFix =
        "give a JPEG, PNG, WebP, TIFF, BMP, GIF, HEIC or AVIF image, or an MP4, MOV, MKV, WebM, AVI, MPEG-TS, 3GP or FLV video"

    /// The error for a picture of `w × h` over `maxPixels`, the same from every decoder.
    static func overLimit(_ w: Int, _ h: Int, _ maxPixels: Int, name: String, claims: Bool = true) -> SweepError {
        SweepError(
            .dataError, "the image \(claims ? "claims" : "has") \(w)×\(h) pixels, over the limit of \(maxPixels)",
            subject: name, fix: "raise the pixel limit if the image is genuine", field: .maxPixels)
    }

    /// Decodes the first frame of the image at `path` as opaque RGBA over `background`.
    ///
    /// An HDR photo (HEIC or AVIF with a PQ or HLG transfer) is tone-mapped to SDR, or refused
    /// when `hdr` says so.
    ///
    /// - Throws: ``SweepError`` with `.noInput` (missing, unreadable, a folder) or
    ///   `.dataError` (not an image, corrupt, too many pixels).
    package static func decode(
        path: String, background: RGBA8 = .black,
        maxPixels: Int = defaultMaxPixels, hdr: HDRHandling = .tonemap
    ) throws -> RGBAImage {
        _ = FFmpegCall.quiet
        let bytes = try FileBytes.read(path, limit: maxFileBytes, regularFileOnly: true)
        if bytes.isEmpty {
            throw SweepError(.dataError, "the file is empty", subject: path, fix: formatsFix)
        }
        return try decode(bytes: bytes, name: path, background: background, maxPixels: maxPixels, hdr: hdr)
    }

    /// Decodes an image held in memory; `name` is used in error messages.
    package static func decode(
        bytes: [UInt8], name: String, background: RGBA8 = .black,
        maxPixels: Int = defaultMaxPixels, hdr: HDRHandling = .tonemap
    ) throws -> RGBAImage {
        _ = FFmpegCall.quiet
        let notImage = SweepError(
            .dataError, "not an image or video sweep can read", subject: name,
            fix: formatsFix)
        if AnimatedWebP.isAnimated(bytes) {
            return try AnimatedWebPDecoder.firstFrame(bytes: bytes, name: name, background: background, maxPixels: maxPixels)
        }
        if let (w, h) = ImageHeader.dimensions(bytes), Self.exceeds(w, h, maxPixels) {
            throw overLimit(w, h, maxPixels, name: name)
        }
        // Only the formats sweep documents reach FFmpeg, each through its own demuxer.
        guard let kind = ImageKind(sniffing: bytes) else { throw notImage }
        if kind == .heif || kind == .avif {
            return try HEIFDecoder.decode(bytes: bytes, name: name, background: background, maxPixels: maxPixels, hdr: hdr)
        }
        guard let demuxer = kind.demuxer else { throw notImage }
        var bytes = bytes
        var pngOrientation: Int?
        var pngHDR: (primaries: UInt8, transfer: UInt8, fullRange: Bool)?
        switch kind {
        case .png:
            let checked = try PNGChunks.sanitize(bytes, name: name)
            bytes = checked.bytes
            pngOrientation = checked.orientation
            if let c = checked.cicp, c.transfer == 16 || c.transfer == 18 { pngHDR = (c.primaries, c.transfer, c.fullRange) }
        case .jpeg:
            try JPEGMarkers.check(bytes, name: name)
        default: break
        }
        let avio = try MemoryIOContext(bytes: bytes, subject: name)
        guard let prepared = avformat_alloc_context() else { throw SweepError(.internalError, "out of memory", subject: name) }
        prepared.pointee.pb = avio.ptr
        prepared.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        // On failure avformat_open_input frees `prepared` (not the custom avio, which `avio` owns).
        // Declared after `avio`, so it is closed first: it reads through avio to the end.
        let input = try InputFormatContext(
            url: nil, prepared: prepared, format: av_find_input_format(demuxer),
            what: "not an image or video sweep can read", subject: name,
            fix: formatsFix)
        let ctx = input.ptr
        // No avformat_find_stream_info: it would decode a frame with no pixel limit. The
        // image demuxers know the codec from the header; the decoder below is capped.
        let streamIndex = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard streamIndex >= 0, let par = ctx.pointee.streams[Int(streamIndex)]?.pointee.codecpar else { throw notImage }
        // Refuse decompression bombs before anything big is allocated.
        let w = Int(par.pointee.width), h = Int(par.pointee.height)
        if w > 0 && h > 0 && Self.exceeds(w, h, maxPixels) { throw overLimit(w, h, maxPixels, name: name) }
        guard par.pointee.codec_id == kind.codec, let codec = avcodec_find_decoder(kind.codec) else { throw notImage }
        let decHandle = try CodecContextHandle(codec: codec)
        let dec = decHandle.ptr
        try FFmpegCall.check(
            avcodec_parameters_to_context(dec, par), "cannot copy codec parameters", subject: name,
            kind: .internalError)
        dec.pointee.thread_count = 1
        dec.pointee.max_pixels = Self.decoderPixelCap(width: w, height: h, maxPixels: maxPixels)
        try FFmpegCall.check(
            avcodec_open2(dec, codec, nil), "not an image or video sweep can read", subject: name, kind: .dataError,
            fix: formatsFix)
        let frameHandle = try FrameHandle(), packetHandle = try PacketHandle()
        let frame = frameHandle.ptr, packet = packetHandle.ptr
        let corrupt = SweepError(
            .dataError, "the image is corrupt or truncated", subject: name,
            fix: "re-export it from the original")
        var got = false
        while !got {
            let r = av_read_frame(ctx, packet)
            if r < 0 {
                // End of input, or a read error (a truncated file, which the decoder may
                // still have enough of). Drain: some decoders hold the picture until the end.
                // A failed flush or receive leaves `got` false: reported as corrupt below.
                got = avcodec_send_packet(dec, nil) >= 0 && avcodec_receive_frame(dec, frame) >= 0
                break
            }
            defer { av_packet_unref(packet) }
            if packet.pointee.stream_index != streamIndex { continue }
            if avcodec_send_packet(dec, packet) < 0 { got = false; break }
            got = avcodec_receive_frame(dec, frame) >= 0
        }
        if !got, Self.exceeds(Int(dec.pointee.width), Int(dec.pointee.height), maxPixels) {
            throw overLimit(Int(dec.pointee.width), Int(dec.pointee.height), maxPixels, name: name)
        }
        guard got, frame.pointee.width > 0, frame.pointee.height > 0 else { throw corrupt }
        if frame.pointee.decode_error_flags != 0 || (frame.pointee.flags & AV_FRAME_FLAG_CORRUPT) != 0 { throw corrupt }
        let fw = Int(frame.pointee.width), fh = Int(frame.pointee.height)
        if Self.exceeds(fw, fh, maxPixels) { throw overLimit(fw, fh, maxPixels, name: name, claims: false) }
        if let pngHDR {
            // An HDR PNG (PQ or HLG in its cICP chunk): its R′G′B′ tone-mapped by the chain HDR
            // photos and clips take, or refused when asked; any ICC profile is not the signal.
            guard hdr == .tonemap else { throw Self.hdrRefused(name, transfer: pngHDR.transfer == 18 ? "HLG" : "PQ") }
            frame.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(pngHDR.transfer))
            frame.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(pngHDR.primaries))
            frame.pointee.colorspace = AVCOL_SPC_RGB
            frame.pointee.color_range = pngHDR.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
            // The chain has no alpha: a transparent PNG's is taken from its samples and the
            // tone-mapped colours are laid over the background through it, as any PNG's are.
            let alpha =
                (av_pix_fmt_desc_get(AVPixelFormat(rawValue: frame.pointee.format))?.pointee.flags ?? 0) & UInt64(AV_PIX_FMT_FLAG_ALPHA)
                    != 0
                ? try toRGBA(frame, name: name) : nil
            let sdr = try FrameHandle()
            try ToneMapper(subject: name, still: true).map(frame, into: sdr.ptr, size: nil)
            var image = try ToneMapper.rgba(of: sdr.ptr, subject: name)
            if let alpha {
                for i in stride(from: 3, to: image.pixels.count, by: 4) { image.pixels[i] = alpha.pixels[i] }
                image = flatten(image, over: background)
            }
            return pngOrientation.map { Orientation.upright(image, tag: $0) } ?? image
        }
        var image = try toRGBA(frame, name: name)
        // Embedded ICC profile → sRGB (before compositing, while alpha is still straight).
        if let sd = av_frame_get_side_data(frame, AV_FRAME_DATA_ICC_PROFILE), sd.pointee.size > 0 {
            ColorProfile.convertToSRGB(&image, icc: Array(UnsafeBufferPointer(start: sd.pointee.data, count: Int(sd.pointee.size))))
        }
        image = flatten(image, over: background)
        // EXIF orientation, which FFmpeg's JPEG decoder reports as frame metadata.
        if let e = av_dict_get(frame.pointee.metadata, "Orientation", nil, 0),
            let tag = Int(String(cString: e.pointee.value).trimmingCharacters(in: .whitespaces))
        {
            image = Orientation.upright(image, tag: tag)
        } else if let tag = pngOrientation {
            image = Orientation.upright(image, tag: tag)  // PNG's eXIf chunk, which FFmpeg leaves unread
        }
        return image
    }

    /// The refusal of an HDR photo when `--hdr refuse` asks for it (`transfer`: PQ or HLG).
    static func hdrRefused(_ name: String, transfer: String) -> SweepError {
        SweepError(
            .dataError, "the photo is HDR (\(transfer)), and HDR inputs are refused", subject: name,
            fix: "let sweep tone-map it to SDR (the default), or export it as SDR", field: .hdr)
    }

    /// `w × h > limit`, without overflowing on absurd header values.
    package static func exceeds(_ w: Int, _ h: Int, _ limit: Int) -> Bool {
        let (product, overflow) = w.multipliedReportingOverflow(by: h)
        return overflow || product > limit
    }

    /// Converts any decoded frame to 8-bit RGBA with swscale.
    ///
    /// Deeper formats (16-bit PNG, …) go through 16-bit RGBA and are rounded here, because
    /// swscale's own 16 → 8 bit step can be off by one.
    static func toRGBA(_ frame: UnsafeMutablePointer<AVFrame>, name: String) throws -> RGBAImage {
        let w = Int(frame.pointee.width), h = Int(frame.pointee.height)
        let src = AVPixelFormat(rawValue: frame.pointee.format)
        let deep = (av_pix_fmt_desc_get(src)?.pointee.comp.0.depth ?? 8) > 8
        let dstFormat = deep ? AV_PIX_FMT_RGBA64LE : AV_PIX_FMT_RGBA
        let bytesPerPixel = deep ? 8 : 4
        let scaler = try ScalerHandle(
            width: w, height: h, from: src, to: dstFormat, subject: name, kind: .dataError,
            fix: "convert the image to PNG or JPEG")
        var buffer = [UInt8](repeating: 0, count: w * h * bytesPerPixel)
        try buffer.withUnsafeMutableBufferPointer { p in
            try scaler.scale(frame: frame, height: h, into: p.baseAddress!, stride: w * bytesPerPixel)
        }
        guard deep else { return RGBAImage(width: w, height: h, pixels: buffer) }
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        buffer.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: UInt16.self) { s16 in
                for i in 0..<(w * h * 4) {
                    pixels[i] = UInt8((Int(UInt16(littleEndian: s16[i])) * 255 + 32767) / 65535)
                }
            }
        }
        return RGBAImage(width: w, height: h, pixels: pixels)
    }

    /// Composites a straight-alpha image over a background colour ("over"): an opaque
    /// colour gives an opaque image; a see-through one (`--background transparent`) keeps what
    /// the image does not cover see-through, so that a PNG or WebM output keeps its alpha.
    static func flatten(_ image: RGBAImage, over bg: RGBA8) -> RGBAImage {
        if image.isOpaque { return image }
        var out = image
        out.pixels.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                let a = Int(p[i + 3])
                if a == 255 { continue }
                if bg.a < 255 {
                    // Alpha and colour weights in 255² units; straight alpha out.
                    let ba = Int(bg.a) * (255 - a), total = a * 255 + ba
                    guard total > 0 else {
                        (p[i], p[i + 1], p[i + 2], p[i + 3]) = (0, 0, 0, 0)
                        continue
                    }
                    p[i] = UInt8((Int(p[i]) * a * 255 + Int(bg.r) * ba + total / 2) / total)
                    p[i + 1] = UInt8((Int(p[i + 1]) * a * 255 + Int(bg.g) * ba + total / 2) / total)
                    p[i + 2] = UInt8((Int(p[i + 2]) * a * 255 + Int(bg.b) * ba + total / 2) / total)
                    p[i + 3] = UInt8((total + 127) / 255)
                    continue
                }
                p[i] = UInt8((Int(p[i]) * a + Int(bg.r) * (255 - a) + 127) / 255)
                p[i + 1] = UInt8((Int(p[i + 1]) * a + Int(bg.g) * (255 - a) + 127) / 255)
                p[i + 2] = UInt8((Int(p[i + 2]) * a + Int(bg.b) * (255 - a) + 127) / 255)
                p[i + 3] = 255
            }
        }
        return out
    }
}
