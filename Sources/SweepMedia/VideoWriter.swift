import CFFmpeg
import Foundation
import SweepImaging
import SweepSupport

/// Encodes RGBA frames to a video file through libavcodec/libavformat.
///
/// Colour: RGB is converted with the BT.709 matrix into limited-range YUV, and the stream
/// and frames are tagged BT.709 (primaries, transfer, matrix, range), so players show the
/// colours sweep rendered. Frames stream through: nothing is kept after it is encoded.
///
/// Sound: given an ``AudioInput``, the writer carries that input's audio along, copied when
/// the container takes its codec and re-encoded otherwise (see `AudioTrack`), cut to the
/// video's span and written as the frames arrive.
package final class VideoWriter {
    /// Frame width in pixels; every frame added must have it.
    package let width: Int
    /// Frame height in pixels; every frame added must have it.
    package let height: Int
    let destination: String
    let codec: VideoCodec
    /// The muxer and its file; `stream` belongs to it.
    private let output: OutputFormatContext
    private let enc: CodecContextHandle
    private let stream: UnsafeMutablePointer<AVStream>
    private let frame: FrameHandle
    private let packet: PacketHandle
    private let scaler: ScalerHandle
    /// The sound carried along, if any.
    private let audioTrack: AudioTrack?
    /// Seconds a frame lasts (from the rational rate the stream is tagged with).
    private let frameDuration: Double
    private var nextPTS: Int64 = 0
    private var finished = false
    /// The file written (a temporary name until the caller commits it).
    private let path: String
    /// Whether the frames keep their alpha: asked for, and the codec has an alpha format.
    private let keepsAlpha: Bool
    /// Keeps large heap blocks fresh while the encoder lives (libx264 reads some it never wrote).
    private let freshBlocks: Allocator.FreshLargeBlocks?
    /// Audio packets handed to the muxer so far (none without audio).
    var audioPacketsWritten: Int { audioTrack?.packetsWritten ?? 0 }
    /// The sound carried along: the input's codec and this file's (libavcodec names such as
    /// "vorbis" and "aac"), and whether the packets were copied; `nil` without sound.
    package var audioCodecs: (input: String, output: String, copied: Bool)? {
        audioTrack.map { ($0.inputCodec, $0.outputCodec, $0.isCopy) }
    }
    /// Frames sent to the encoder.
    package private(set) var framesWritten = 0

    /// Opens `path` for writing with `codec`.
    ///
    /// Every FFmpeg object is owned by a stored property, so when a step fails (an option
    /// the encoder does not take, a folder that does not exist, …) the ones already made are
    /// freed and a half-written file is closed.
    ///
    /// - Parameters:
    ///   - path: where libavformat writes (often a temporary file).
    ///   - destination: the file named in errors; `path` when nil.
    ///   - width: frame width in pixels.
    ///   - height: frame height in pixels.
    ///   - fps: frames per second (may be fractional).
    ///   - codec: the encoder and its defaults.
    ///   - container: a libavformat muxer name overriding the codec's usual one.
    ///   - alpha: keep transparency where the codec can.
    ///   - options: encoder options that override the codec's defaults; an option the
    ///     encoder does not take is an error.
    ///   - audio: an input's audio to carry into the file, starting at output time 0.
    ///   - plays: how often an animated WebP or APNG plays, every play counted (0: forever);
    ///     `nil` keeps the codec's default (forever).
    /// - Throws: `.unavailable` when this FFmpeg lacks the encoder, `.usage` for an
    ///   unused option, `.cannotCreate`/`.ioError` for file problems. With `audio`:
    ///   `.usage` when the input has no audio or the container can hold none (animated
    ///   WebP, APNG), `.noInput`/`.dataError` when the input is missing or unreadable,
    ///   `.unavailable` when this FFmpeg cannot decode it.
    package init(
        path: String, destination: String? = nil, width: Int, height: Int, fps: Double,
        codec: VideoCodec = .h264, container: String? = nil, alpha: Bool = false,
        options: [(String, String)] = [], audio: AudioInput? = nil, plays: Int? = nil
    ) throws {
        _ = FFmpegCall.quiet
        // Before the encoder allocates: x264's and x265's MB-tree read memory they never wrote.
        freshBlocks = ["h264", "hevc"].contains(codec.name) ? Allocator.FreshLargeBlocks() : nil
        self.width = width
        self.height = height
        self.codec = codec
        let dest = destination ?? path
        self.destination = dest
        self.path = path
        keepsAlpha = alpha && codec.alphaPixelFormat != nil
        guard let encoder = avcodec_find_encoder_by_name(codec.encoder) else {
            throw SweepError(
                .unavailable, "this FFmpeg build has no \(codec.encoder) encoder", subject: dest,
                fix: "install a build with \(codec.encoder) or choose another codec", field: .codec)
        }
        output = try OutputFormatContext(container: container ?? codec.container, path: path, subject: dest)
        let oc = output.ptr
        guard let st = avformat_new_stream(oc, nil) else {
            throw SweepError(.internalError, "cannot add a stream", subject: dest)
        }
        stream = st
        enc = try CodecContextHandle(codec: encoder)
        frame = try FrameHandle()
        packet = try PacketHandle()
        let c = enc.ptr
        let rate = av_d2q(fps, 100_000)
        frameDuration = Double(rate.den) / Double(rate.num)
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.time_base = AVRational(num: rate.den, den: rate.num)
        c.pointee.framerate = rate
        let pixName = alpha ? (codec.alphaPixelFormat ?? codec.pixelFormat) : codec.pixelFormat
        let pixFmt = av_get_pix_fmt(pixName)
        guard pixFmt != AV_PIX_FMT_NONE else {
            throw SweepError(.internalError, "this FFmpeg build does not know the pixel format \(pixName)", subject: dest)
        }
        c.pointee.pix_fmt = pixFmt
        if !codec.isRGB {
            c.pointee.color_primaries = AVCOL_PRI_BT709
            c.pointee.color_trc = AVCOL_TRC_BT709
            c.pointee.colorspace = AVCOL_SPC_BT709
            c.pointee.color_range = AVCOL_RANGE_MPEG
        }
        c.pointee.thread_count = 0
        if sweep_fmt_wants_global_header(oc.pointee.oformat) != 0 { c.pointee.flags |= sweep_codec_flag_global_header }
        scaler = try ScalerHandle(width: width, height: height, from: AV_PIX_FMT_RGBA, to: pixFmt, subject: dest)
        // A bit rate asks for rate control, which x264 and x265 ignore beside a CRF: the
        // default CRF gives way to it (VP9 takes both, as constrained quality).
        let asked = Set(options.map(\.0))
        let bitrateWins = asked.contains("b") && !asked.contains("crf") && (codec.name == "h264" || codec.name == "hevc")
        var opts = try DictionaryHandle(codec.defaults.filter { !(bitrateWins && $0.0 == "crf") })
        for (k, v) in options { try opts.set(k, v) }
        try FFmpegCall.check(
            avcodec_open2(c, encoder, &opts.ptr), "\(codec.encoder) refused the settings",
            subject: dest, kind: .usage, fix: "check the encoder options (CRF, preset and the others)",
            field: .codecOptions)
        // Leftover keys were not used: a typo would otherwise fail silently.
        let unused = opts.keys
        if !unused.isEmpty {
            throw SweepError(
                .usage, "\(codec.encoder) does not take the option \(unused.joined(separator: ", "))",
                fix: "run `ffmpeg -h encoder=\(codec.encoder)` for its options", field: .codecOptions)
        }
        try FFmpegCall.check(
            avcodec_parameters_from_context(st.pointee.codecpar, c), "cannot copy codec parameters",
            subject: dest, kind: .internalError)
        if let tag = codec.tag {
            let b = Array(tag.utf8)
            st.pointee.codecpar.pointee.codec_tag = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
        }
        st.pointee.time_base = c.pointee.time_base
        st.pointee.avg_frame_rate = rate
        let f = frame.ptr
        f.pointee.format = pixFmt.rawValue
        f.pointee.width = Int32(width)
        f.pointee.height = Int32(height)
        if !codec.isRGB {
            f.pointee.color_primaries = AVCOL_PRI_BT709
            f.pointee.color_trc = AVCOL_TRC_BT709
            f.pointee.colorspace = AVCOL_SPC_BT709
            f.pointee.color_range = AVCOL_RANGE_MPEG
        }
        try FFmpegCall.check(av_frame_get_buffer(f, 0), "cannot allocate a frame", subject: dest, kind: .internalError)
        // swscale defaults to BT.601; the stream is tagged BT.709, so convert with it.
        try scaler.setColorspace(sweep_sws_cs_itu709, sourceFullRange: true, destinationFullRange: false)
        // Its stream must exist before the header is written; it fails before the file does.
        audioTrack = try audio.map { try AudioTrack($0, muxer: oc, destination: dest) }
        try output.openFile(path)
        // MP4/MOV options only where they apply.
        let muxName = output.muxerName
        var mux = try DictionaryHandle(
            codec.muxerOptions.filter { $0.0 != "movflags" || muxName.contains("mp4") || muxName.contains("mov") }.map { key, value in
                // WebP's loop count and APNG's plays both count every play; 0 is forever.
                (key, (key == "loop" || key == "plays") ? plays.map(String.init) ?? value : value)
            })
        try FFmpegCall.checkWrite(
            avformat_write_header(oc, &mux.ptr), "cannot write the \(muxName) header", subject: dest, container: muxName)
    }

    /// True when the encoder takes 4:2:0 planes that ``add(_:)-yuv`` can fill directly.
    package var acceptsYUV420: Bool { enc.ptr.pointee.pix_fmt == AV_PIX_FMT_YUV420P }

    /// Converts an RGBA picture to the encoder's Y′CbCr 4:2:0 with the same conversion the
    /// per-frame path uses (swscale, BT.709, limited range).
    package func convert(_ image: RGBAImage) throws -> YUVImage {
        precondition(image.width == width && image.height == height && acceptsYUV420)
        try convertIntoFrame(image)
        return Self.planes(of: frame.ptr, width: width, height: height)
    }

    /// The same conversion on its own, for a caller without a writer (or on another thread).
    static func yuv420(_ image: RGBAImage, subject: String) throws -> YUVImage {
        let scaler = try ScalerHandle(
            width: image.width, height: image.height, from: AV_PIX_FMT_RGBA, to: AV_PIX_FMT_YUV420P, subject: subject)
        try scaler.setColorspace(sweep_sws_cs_itu709, sourceFullRange: true, destinationFullRange: false)
        let frame = try FrameHandle()
        let f = frame.ptr
        (f.pointee.width, f.pointee.height, f.pointee.format) = (Int32(image.width), Int32(image.height), AV_PIX_FMT_YUV420P.rawValue)
        try FFmpegCall.check(av_frame_get_buffer(f, 0), "cannot allocate a frame", subject: subject, kind: .internalError)
        try image.pixels.withUnsafeBufferPointer { p in
            try scaler.scale(packed: p.baseAddress!, stride: image.width * 4, height: image.height, into: f)
        }
        return planes(of: f, width: image.width, height: image.height)
    }

    /// A 4:2:0 frame's planes, copied out.
    private static func planes(of f: UnsafeMutablePointer<AVFrame>, width: Int, height: Int) -> YUVImage {
        var out = YUVImage(width: width, height: height)
        func copy(_ plane: Int, _ dst: inout [UInt8], _ w: Int, _ h: Int) {
            let stride = Int(withUnsafeBytes(of: f.pointee.linesize) { $0.load(fromByteOffset: plane * 4, as: Int32.self) })
            let base = withUnsafeBytes(of: f.pointee.data) { $0.load(fromByteOffset: plane * 8, as: UnsafeMutablePointer<UInt8>?.self) }!
            dst.withUnsafeMutableBufferPointer { d in
                for row in 0..<h { (d.baseAddress! + row * w).update(from: base + row * stride, count: w) }
            }
        }
        copy(0, &out.y, width, height)
        copy(1, &out.u, width / 2, height / 2)
        copy(2, &out.v, width / 2, height / 2)
        return out
    }

    /// Encodes one frame given as 4:2:0 planes (no conversion).
    package func add(_ image: YUVImage) throws {
        precondition(image.width == width && image.height == height && acceptsYUV420)
        let f = frame.ptr
        try FFmpegCall.check(av_frame_make_writable(f), "cannot reuse the frame", subject: destination, kind: .internalError)
        func put(_ plane: Int, _ src: [UInt8], _ w: Int, _ h: Int) {
            let stride = Int(withUnsafeBytes(of: f.pointee.linesize) { $0.load(fromByteOffset: plane * 4, as: Int32.self) })
            let base = withUnsafeBytes(of: f.pointee.data) { $0.load(fromByteOffset: plane * 8, as: UnsafeMutablePointer<UInt8>?.self) }!
            src.withUnsafeBufferPointer { s in
                for row in 0..<h { (base + row * stride).update(from: s.baseAddress! + row * w, count: w) }
            }
        }
        put(0, image.y, width, height)
        put(1, image.u, width / 2, height / 2)
        put(2, image.v, width / 2, height / 2)
        try send()
    }

    /// Converts an RGBA picture into the reusable AVFrame.
    private func convertIntoFrame(_ image: RGBAImage) throws {
        let f = frame.ptr
        try FFmpegCall.check(av_frame_make_writable(f), "cannot reuse the frame", subject: destination, kind: .internalError)
        try image.pixels.withUnsafeBufferPointer { p in
            try scaler.scale(packed: p.baseAddress!, stride: width * 4, height: height, into: f)
        }
    }

    /// Converts and encodes one frame.
    package func add(_ image: RGBAImage) throws {
        precondition(image.width == width && image.height == height)
        try convertIntoFrame(image)
        try send()
    }

    private func send() throws {
        let f = frame.ptr
        f.pointee.pts = nextPTS
        nextPTS += 1
        try encode(f)
        framesWritten += 1
        // The sound up to this frame's end joins the muxer's queue now, not all at the end.
        try audioTrack?.write(upTo: Double(nextPTS) * frameDuration)
    }

    /// Sends `frame` (nil: the end) and writes every packet the encoder then has ready.
    private func encode(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        try FFmpegCall.exchange(
            send: { avcodec_send_frame(enc.ptr, frame) }, receive: { avcodec_receive_packet(enc.ptr, packet.ptr) }, "encoding failed",
            subject: destination
        ) {
            av_packet_rescale_ts(packet.ptr, enc.ptr.pointee.time_base, stream.pointee.time_base)
            packet.ptr.pointee.stream_index = stream.pointee.index
            let w = av_interleaved_write_frame(output.ptr, packet.ptr)
            try FFmpegCall.checkWrite(
                w, "writing failed", subject: destination, container: String(cString: output.ptr.pointee.oformat.pointee.name))
        }
    }

    /// Flushes the encoder, writes the trailer (moving the index to the front for
    /// `+faststart`) and closes the file.
    package func finish() throws {
        guard !finished else { return }
        finished = true
        try encode(nil)
        try audioTrack?.finish(videoEnd: Double(nextPTS) * frameDuration)
        try FFmpegCall.checkWrite(
            av_write_trailer(output.ptr), "cannot finish the file", subject: destination,
            container: String(cString: output.ptr.pointee.oformat.pointee.name))
        try output.closeFile()
        if keepsAlpha && String(cString: output.ptr.pointee.oformat.pointee.name) == "webp" { try markSeeThroughWebP() }
    }

    /// Marks a see-through animated WebP as having alpha. libwebp's animation encoder crops
    /// each frame to what it paints, so frames over a transparent background may carry no
    /// alpha at all: it then leaves the VP8X alpha flag clear and the ANIM background colour
    /// at its default, opaque white, which the container's reference decoding paints where
    /// no frame covers the canvas. Both fields have fixed places in the file it writes.
    private func markSeeThroughWebP() throws {
        func failed(_ error: (any Error)? = nil) -> SweepError {
            SweepError(
                .ioError, "cannot mark the WebP as see-through" + (error.map { ": \($0.localizedDescription)" } ?? ""),
                subject: destination, fix: "check free disk space and permissions")
        }
        guard let file = FileHandle(forUpdatingAtPath: path) else { throw failed() }
        defer { try? file.close() }
        do {
            // RIFF, size, WEBP; VP8X, size, flags (alpha: 0x10) at 20, …; ANIM, size, background (BGRA) at 38.
            let head = [UInt8](try file.read(upToCount: 42) ?? Data())
            guard head.count == 42, head[0..<4].elementsEqual("RIFF".utf8), head[8..<16].elementsEqual("WEBPVP8X".utf8),
                head[30..<34].elementsEqual("ANIM".utf8)
            else { return }
            try file.seek(toOffset: 20)
            try file.write(contentsOf: [head[20] | 0x10])
            try file.seek(toOffset: 38)
            try file.write(contentsOf: [0, 0, 0, 0])
        } catch { throw failed(error) }
    }
}
