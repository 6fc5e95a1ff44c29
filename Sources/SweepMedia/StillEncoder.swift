import CFFmpeg
import SweepImaging
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Encodes single images (PNG, JPEG, WebP) with FFmpeg's image encoders.
package enum StillEncoder {
    /// A still-image format.
    package enum Format: String, Sendable, CaseIterable {
        case png, jpeg, webp

        /// The format for a file extension, if sweep writes it.
        package init?(extension ext: String) {
            switch ext.lowercased() {
            case "png": self = .png
            case "jpg", "jpeg": self = .jpeg
            case "webp": self = .webp
            default: return nil
            }
        }
    }

    /// Encodes `image` and returns the file's bytes.
    package static func encode(_ image: RGBAImage, format: Format, quality: Int = 90, name: String) throws -> [UInt8] {
        _ = FFmpegCall.quiet
        let (encName, pix): (String, AVPixelFormat) =
            switch format {
            case .png: ("png", image.isOpaque ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_RGBA)
            case .jpeg: ("mjpeg", AV_PIX_FMT_YUVJ444P)
            case .webp: ("libwebp", image.isOpaque ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_YUVA420P)
            }
        guard let codec = avcodec_find_encoder_by_name(encName) else {
            throw SweepError(
                .unavailable, "this FFmpeg build has no \(encName) encoder", subject: name,
                fix: "choose another still format")
        }
        let ctx = try CodecContextHandle(codec: codec)
        let c = ctx.ptr
        c.pointee.width = Int32(image.width)
        c.pointee.height = Int32(image.height)
        c.pointee.pix_fmt = pix
        c.pointee.time_base = AVRational(num: 1, den: 1)
        var opts = try DictionaryHandle()
        switch format {
        case .png: try opts.set("pred", "mixed")
        case .jpeg:
            // mjpeg's quality is a qscale: 2 (best) … 31.
            c.pointee.flags |= AV_CODEC_FLAG_QSCALE
            c.pointee.global_quality = Int32(max(2, min(31, 2 + (100 - quality) * 29 / 100))) * FF_QP2LAMBDA
            c.pointee.color_range = AVCOL_RANGE_JPEG
        case .webp: try opts.set("quality", String(quality))
        }
        try FFmpegCall.check(
            avcodec_open2(c, codec, &opts.ptr), "cannot start the \(encName) encoder", subject: name,
            kind: .internalError)
        let frame = try FrameHandle()
        let f = frame.ptr
        f.pointee.format = pix.rawValue
        f.pointee.width = Int32(image.width)
        f.pointee.height = Int32(image.height)
        f.pointee.color_range = format == .jpeg ? AVCOL_RANGE_JPEG : AVCOL_RANGE_UNSPECIFIED
        try FFmpegCall.check(av_frame_get_buffer(f, 0), "cannot allocate a frame", subject: name, kind: .internalError)
        let scaler = try ScalerHandle(width: image.width, height: image.height, from: AV_PIX_FMT_RGBA, to: pix, subject: name)
        if format == .jpeg {
            // JPEG (JFIF) is BT.601 full range by definition.
            try scaler.setColorspace(sweep_sws_cs_itu601, sourceFullRange: true, destinationFullRange: true)
        }
        try image.pixels.withUnsafeBufferPointer { p in
            try scaler.scale(packed: p.baseAddress!, stride: image.width * 4, height: image.height, into: f)
        }
        f.pointee.pts = 0
        // With a fixed qscale, mjpeg reads the quality from each frame, not the context.
        f.pointee.quality = c.pointee.global_quality
        let packet = try PacketHandle()
        var bytes: [UInt8] = []
        for input in [f, nil] {
            try FFmpegCall.exchange(
                send: { avcodec_send_frame(c, input) }, receive: { avcodec_receive_packet(c, packet.ptr) }, "encoding failed",
                subject: name, kind: .internalError
            ) {
                bytes += UnsafeBufferPointer(start: packet.ptr.pointee.data, count: Int(packet.ptr.pointee.size))
                av_packet_unref(packet.ptr)
            }
        }
        guard !bytes.isEmpty else { throw SweepError(.internalError, "the encoder produced nothing", subject: name) }
        return bytes
    }

    /// Encodes `image` and writes it atomically to `path`.
    package static func write(_ image: RGBAImage, to path: String, format: Format, quality: Int = 90) throws {
        let bytes = try encode(image, format: format, quality: quality, name: path)
        let out = try AtomicOutput(destination: path)
        try FileBytes.write(bytes, to: out.writePath, reportAs: path)
        try out.commit()
    }
}
