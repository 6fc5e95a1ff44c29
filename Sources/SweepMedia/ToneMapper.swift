import CFFmpeg
import SweepImaging
import SweepSupport

/// Turns HDR frames (PQ or HLG transfer, BT.2020 primaries) into SDR BT.709 frames through
/// libavfilter, by the chain FFmpeg's own documentation gives: linear light at a nominal
/// 100 cd/m² peak, BT.709 primaries in linear float, Hable's curve without desaturation,
/// then the BT.709 transfer and matrix in limited range, 8-bit 4:2:0.
///
/// Every iPhone records HLG HEVC by default; shown as SDR without this, its pictures are
/// flat and washed out. One graph serves every frame of a size and format (zimg caches its
/// conversion); a frame of another size or format builds a new one.
package final class ToneMapper {
    /// The filters between the source and the sink; the same text `ffmpeg -vf` takes.
    package static let chain = chain(size: nil, still: false)
    /// The chain for a photo: the same steps, ending in 8-bit R′G′B′ rather than 4:2:0 Y′CbCr,
    /// since a still is not going to a video (halving its chroma would blur coloured edges).
    package static let stillChain = chain(size: nil, still: true)

    /// The chain, scaling to `size` in its first step when given.
    static func chain(size: (width: Int32, height: Int32)?, still: Bool) -> String {
        let scale = size.map { "w=\($0.width):h=\($0.height):f=bicubic:" } ?? ""
        return "zscale=\(scale)t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
            + (still ? "zscale=t=bt709,format=gbrp" : "zscale=t=bt709:m=bt709:r=tv,format=yuv420p")
    }

    /// The file, named in errors.
    let subject: String
    /// A photo's chain (``stillChain``) rather than a clip's.
    let still: Bool
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    /// What the graph was built for: width, height, pixel format, and the size it scales to.
    private var key: [Int32] = []

    /// The stream's colour tags, for frames that come without them.
    private let streamTags: (trc: AVColorTransferCharacteristic, primaries: AVColorPrimaries, space: AVColorSpace)?

    /// Tone-maps the frames of `subject`; `streamTags` (the stream's transfer, primaries and
    /// matrix) stand in for a frame's own when it has none.
    init(
        subject: String,
        streamTags: (trc: AVColorTransferCharacteristic, primaries: AVColorPrimaries, space: AVColorSpace)? = nil,
        still: Bool = false
    ) {
        self.subject = subject
        self.streamTags = streamTags
        self.still = still
    }

    deinit { avfilter_graph_free(&graph) }

    /// Tone-maps `input` into `output` (which is reset first), keeping its timestamps; with
    /// `size`, scaled to it first (bicubic, as FFmpeg's own chain would be given `w` and `h`),
    /// so that the float stages work on no more pixels than the output shows.
    func map(_ input: UnsafeMutablePointer<AVFrame>, into output: UnsafeMutablePointer<AVFrame>, size: (width: Int32, height: Int32)?)
        throws
    {
        // A frame part-way through an HDR clip may come untagged (a greyscale stretch): it is
        // taken to be coded as the stream says, as a player would, not refused by zimg.
        if let streamTags {
            if input.pointee.color_trc == AVCOL_TRC_UNSPECIFIED { input.pointee.color_trc = streamTags.trc }
            if input.pointee.color_primaries == AVCOL_PRI_UNSPECIFIED { input.pointee.color_primaries = streamTags.primaries }
            if input.pointee.colorspace == AVCOL_SPC_UNSPECIFIED { input.pointee.colorspace = streamTags.space }
        }
        try Self.checkConvertible(input, subject: subject)
        let f = input.pointee
        let wanted = [f.width, f.height, f.format, size?.width ?? 0, size?.height ?? 0]
        if wanted != key || graph == nil { try build(for: input, size: size, key: wanted) }
        guard let source, let sink else { throw failure("no filter graph") }
        try check(av_buffersrc_add_frame_flags(source, input, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)), "cannot pass the frame on", frame: input)
        av_frame_unref(output)
        try check(av_buffersink_get_frame(sink, output), "the tone-mapping gave no frame", frame: input)
        output.pointee.best_effort_timestamp = f.best_effort_timestamp
        output.pointee.pts = f.pts
    }

    /// Builds `buffer → chain → buffersink` for frames like `frame`.
    private func build(for frame: UnsafeMutablePointer<AVFrame>, size: (width: Int32, height: Int32)?, key wanted: [Int32]) throws {
        avfilter_graph_free(&graph)
        (source, sink) = (nil, nil)
        guard let g = avfilter_graph_alloc() else { throw failure("out of memory") }
        graph = g
        g.pointee.nb_threads = 0  // as many as there are cores: zscale works in slices
        let f = frame.pointee
        let aspect = f.sample_aspect_ratio.num > 0 && f.sample_aspect_ratio.den > 0 ? f.sample_aspect_ratio : AVRational(num: 1, den: 1)
        let args =
            "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=1/90000:pixel_aspect=\(aspect.num)/\(aspect.den)"
        var src: UnsafeMutablePointer<AVFilterContext>?
        var snk: UnsafeMutablePointer<AVFilterContext>?
        try check(
            avfilter_graph_create_filter(&src, avfilter_get_by_name("buffer"), "in", args, nil, g), "cannot feed frames to libavfilter")
        try check(
            avfilter_graph_create_filter(&snk, avfilter_get_by_name("buffersink"), "out", nil, nil, g),
            "cannot take frames from libavfilter")
        // The graph's open ends: its input is the source's output, its output the sink's input.
        // Parsing consumes both lists and leaves in them what it did not link; freed after.
        var outputs = avfilter_inout_alloc()
        var inputs = avfilter_inout_alloc()
        defer {
            avfilter_inout_free(&outputs)
            avfilter_inout_free(&inputs)
        }
        guard let o = outputs, let i = inputs else { throw failure("out of memory") }
        o.pointee.name = av_strdup("in")
        o.pointee.filter_ctx = src
        o.pointee.pad_idx = 0
        i.pointee.name = av_strdup("out")
        i.pointee.filter_ctx = snk
        i.pointee.pad_idx = 0
        try check(
            avfilter_graph_parse_ptr(g, Self.chain(size: size, still: still), &inputs, &outputs, nil),
            "this FFmpeg cannot tone-map (zscale, tonemap)")
        try check(avfilter_graph_config(g, nil), "cannot set up the tone-mapping")
        (source, sink) = (src, snk)
        key = wanted
    }

    /// A tone-mapped frame (BT.709: limited-range Y′CbCr from a clip's chain, R′G′B′ from a photo's) as sRGB-ish RGBA.
    static func rgba(of frame: UnsafeMutablePointer<AVFrame>, subject: String) throws -> RGBAImage {
        let (w, h) = (Int(frame.pointee.width), Int(frame.pointee.height))
        let scaler = try ScalerHandle(
            width: w, height: h, from: AVPixelFormat(rawValue: frame.pointee.format), to: AV_PIX_FMT_RGBA, subject: subject)
        if frame.pointee.format != AV_PIX_FMT_GBRP.rawValue {
            try scaler.setColorspace(sweep_sws_cs_itu709, sourceFullRange: false, destinationFullRange: true)
        }
        var image = RGBAImage(width: w, height: h)
        let rows = image.pixels.withUnsafeMutableBufferPointer { out -> Int32 in
            withUnsafeBytes(of: frame.pointee.data) { d in
                withUnsafeBytes(of: frame.pointee.linesize) { l in
                    var src = (0..<4).map { UnsafePointer(d.load(fromByteOffset: $0 * 8, as: UnsafeMutablePointer<UInt8>?.self)) }
                    var srcStrides = (0..<4).map { l.load(fromByteOffset: $0 * 4, as: Int32.self) }
                    var dst: [UnsafeMutablePointer<UInt8>?] = [out.baseAddress, nil, nil, nil]
                    var dstStrides: [Int32] = [Int32(w * 4), 0, 0, 0]
                    return sws_scale(scaler.ptr, &src, &srcStrides, 0, Int32(h), &dst, &dstStrides)
                }
            }
        }
        guard rows == Int32(h) else { throw SweepError(.internalError, "colour conversion failed", subject: subject) }
        return image
    }

    /// Throws, with the reason, for colours zimg cannot convert: BT.2020's constant-luminance
    /// matrix is defined for the BT.2020 transfer only, so with PQ or HLG zimg refuses it
    /// ("invalid colorspace definition") on any FFmpeg build.
    static func checkConvertible(_ frame: UnsafeMutablePointer<AVFrame>, subject: String) throws {
        guard frame.pointee.colorspace == AVCOL_SPC_BT2020_CL else { return }
        let transfer = frame.pointee.color_trc == AVCOL_TRC_ARIB_STD_B67 ? "HLG" : "PQ"
        throw SweepError(
            .unavailable,
            "HDR to SDR: the picture is coded with BT.2020's constant-luminance matrix and \(transfer), which zimg (FFmpeg's zscale) cannot convert",
            subject: subject,
            fix:
                "re-encode it with BT.2020's usual non-constant-luminance matrix (bt2020nc), or convert it to SDR with the tool that made it",
            field: .hdr)
    }

    /// The error for a step of the chain that failed: the filters missing from this FFmpeg,
    /// or the frame's colours, named, that they declined.
    private func failure(_ what: String, frame: UnsafeMutablePointer<AVFrame>? = nil) -> SweepError {
        let filters: [String] = ["zscale", "tonemap"]
        let missing = filters.filter { avfilter_get_by_name($0) == nil }
        guard missing.isEmpty, let frame else {
            return SweepError(
                .unavailable, "HDR to SDR: \(what)", subject: subject,
                fix: missing.isEmpty
                    ? "convert the clip to SDR first"
                    : "install an FFmpeg with \(missing.joined(separator: " and ")) (libzimg), or convert the clip to SDR first",
                field: .hdr)
        }
        func name(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "unknown" }
        let f = frame.pointee
        let colours =
            "matrix \(name(av_color_space_name(f.colorspace))), transfer \(name(av_color_transfer_name(f.color_trc))), "
            + "primaries \(name(av_color_primaries_name(f.color_primaries))), \(name(av_get_pix_fmt_name(AVPixelFormat(rawValue: f.format))))"
        return SweepError(
            .unavailable, "HDR to SDR: \(what): zimg (FFmpeg's zscale) declines these colours (\(colours))", subject: subject,
            fix: "convert the clip to SDR first, or re-encode it with standard HDR tags (bt2020nc, PQ or HLG)", field: .hdr)
    }

    private func check(_ code: Int32, _ what: String, frame: UnsafeMutablePointer<AVFrame>? = nil) throws {
        guard code < 0 else { return }
        throw failure("\(what) (\(FFmpegCall.message(code)))", frame: frame)
    }
}
