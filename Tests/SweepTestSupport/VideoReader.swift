import CFFmpeg
import Foundation
import SweepImaging
import SweepMedia
import SweepSupport

/// Reads a video back through libavformat/libavcodec: stream facts and frames as RGBA
/// (converted with the stream's tagged matrix). Test-only: it checks what `VideoWriter`
/// wrote, with SweepMedia's owners and its one call-through point for return codes.
public struct VideoReader: Sendable {
    /// libavcodec's name for the codec, e.g. "h264".
    public let codecName: String
    /// Pixel format name, e.g. "yuv420p".
    public let pixelFormat: String
    public let width: Int
    public let height: Int
    /// Frames per second as stored (avg_frame_rate).
    public let frameRate: Double
    /// Container duration in seconds.
    public let duration: Double
    /// Colour tags: primaries, transfer, matrix and range names.
    public let primaries: String, transfer: String, matrix: String, range: String
    /// The four-character codec tag, e.g. "avc1" or "hvc1".
    public let codecTag: String
    /// H.264/HEVC profile name, if any.
    public let profile: String?
    public let level: Int
    /// The stream's metadata tags (e.g. `alpha_mode` for VP9 with alpha in WebM).
    public let tags: [String: String]
    /// Decoded frames (only when asked for).
    public let frames: [RGBAImage]
    /// Number of decoded frames.
    public let frameCount: Int

    /// Opens `path`; decodes every frame, keeping them when `keepFrames` is set.
    public init(path: String, keepFrames: Bool = true) throws {
        _ = FFmpegCall.quiet
        let input = try InputFormatContext(url: path, what: "cannot open the video", subject: path)
        let ctx = input.ptr
        try FFmpegCall.check(avformat_find_stream_info(ctx, nil), "cannot read stream info", subject: path, kind: .dataError)
        let si = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard si >= 0, let st = ctx.pointee.streams[Int(si)], let par = st.pointee.codecpar else {
            throw SweepError(.dataError, "no video stream", subject: path)
        }
        codecName = String(cString: avcodec_get_name(par.pointee.codec_id))
        width = Int(par.pointee.width)
        height = Int(par.pointee.height)
        let r = st.pointee.avg_frame_rate
        frameRate = r.den != 0 ? Double(r.num) / Double(r.den) : 0
        duration = ctx.pointee.duration > 0 ? Double(ctx.pointee.duration) / Double(AV_TIME_BASE) : 0
        primaries = av_color_primaries_name(par.pointee.color_primaries).map { String(cString: $0) } ?? "unknown"
        transfer = av_color_transfer_name(par.pointee.color_trc).map { String(cString: $0) } ?? "unknown"
        matrix = av_color_space_name(par.pointee.color_space).map { String(cString: $0) } ?? "unknown"
        range = av_color_range_name(par.pointee.color_range).map { String(cString: $0) } ?? "unknown"
        let t = par.pointee.codec_tag
        codecTag = String(decoding: [UInt8(t & 0xff), UInt8((t >> 8) & 0xff), UInt8((t >> 16) & 0xff), UInt8(t >> 24)], as: UTF8.self)
        profile = avcodec_profile_name(par.pointee.codec_id, par.pointee.profile).map { String(cString: $0) }
        level = Int(par.pointee.level)
        var tags: [String: String] = [:]
        var e: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(st.pointee.metadata, "", e, AV_DICT_IGNORE_SUFFIX) {
            tags[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
            e = next
        }
        self.tags = tags
        guard let decoder = avcodec_find_decoder(par.pointee.codec_id) else {
            throw SweepError(.unavailable, "no decoder for \(codecName)", subject: path)
        }
        let dec = try CodecContextHandle(codec: decoder)
        try FFmpegCall.check(
            avcodec_parameters_to_context(dec.ptr, par), "cannot copy codec parameters", subject: path,
            kind: .internalError)
        try FFmpegCall.check(avcodec_open2(dec.ptr, decoder, nil), "cannot open the decoder", subject: path, kind: .dataError)
        let pixName = av_get_pix_fmt_name(AVPixelFormat(rawValue: par.pointee.format))
        pixelFormat = pixName.map { String(cString: $0) } ?? "unknown"
        let frame = try FrameHandle(), packet = try PacketHandle()
        var out: [RGBAImage] = []
        var count = 0
        func receive() throws {
            while try FFmpegCall.received(
                avcodec_receive_frame(dec.ptr, frame.ptr), "decoding failed", subject: path,
                kind: .dataError)
            {
                count += 1
                if keepFrames { out.append(try Self.convert(frame.ptr, name: path)) }
            }
        }
        while true {
            let r = av_read_frame(ctx, packet.ptr)
            if r == sweep_averror_eof() { break }
            try FFmpegCall.check(r, "cannot read a packet", subject: path, kind: .dataError)
            defer { av_packet_unref(packet.ptr) }
            if packet.ptr.pointee.stream_index == si {
                try FFmpegCall.check(avcodec_send_packet(dec.ptr, packet.ptr), "decoding failed", subject: path, kind: .dataError)
                try receive()
            }
        }
        try FFmpegCall.check(avcodec_send_packet(dec.ptr, nil), "cannot flush the decoder", subject: path, kind: .dataError)
        try receive()
        frames = out
        frameCount = count
    }

    /// Converts a decoded frame to RGBA, using BT.709 when the frame says so.
    static func convert(_ f: UnsafeMutablePointer<AVFrame>, name: String) throws -> RGBAImage {
        let w = Int(f.pointee.width), h = Int(f.pointee.height)
        let scaler = try ScalerHandle(
            width: w, height: h, from: AVPixelFormat(rawValue: f.pointee.format), to: AV_PIX_FMT_RGBA,
            subject: name, kind: .dataError)
        let isYUV = f.pointee.colorspace != AVCOL_SPC_RGB
        if isYUV {
            let cs = f.pointee.colorspace == AVCOL_SPC_BT709 ? sweep_sws_cs_itu709 : sweep_sws_cs_itu601
            try scaler.setColorspace(cs, sourceFullRange: f.pointee.color_range == AVCOL_RANGE_JPEG, destinationFullRange: true)
        }
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        try pixels.withUnsafeMutableBufferPointer { p in try scaler.scale(frame: f, height: h, into: p.baseAddress!, stride: w * 4) }
        return RGBAImage(width: w, height: h, pixels: pixels)
    }
}
