import CFFmpeg
import SweepSupport

// Owners of FFmpeg objects, in swift-system's `FileDescriptor` discipline: each is a
// `~Copyable` struct with exactly one owner, freed in `deinit` on every path (a thrown
// error included), so a half-built encoder or decoder cannot leak. They are `package` so
// that the test-only readers in `SweepTestSupport` use the same owners and checks.

/// Owns one AVFrame (`av_frame_alloc` / `av_frame_free`).
package struct FrameHandle: ~Copyable {
    package let ptr: UnsafeMutablePointer<AVFrame>
    package init() throws {
        guard let p = av_frame_alloc() else { throw SweepError(.internalError, "out of memory allocating a frame") }
        ptr = p
    }
    deinit { var p: UnsafeMutablePointer<AVFrame>? = ptr; av_frame_free(&p) }
}

/// Owns frames decoded ahead (``VideoDecoder/decodeAhead(limit:)``), in order, and the
/// emptied ones kept for reuse; frees them all when it goes.
package final class FrameQueue {
    private var queued: [UnsafeMutablePointer<AVFrame>] = []
    private var spares: [UnsafeMutablePointer<AVFrame>] = []

    package init() {}

    deinit {
        for frame in queued + spares {
            var p: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&p)
        }
    }

    package var count: Int { queued.count }
    package var last: UnsafeMutablePointer<AVFrame>? { queued.last }

    /// An empty frame to decode into: hand it back by ``append(_:)`` or ``recycle(_:)``.
    package func spare() throws -> UnsafeMutablePointer<AVFrame> {
        if let frame = spares.popLast() { return frame }
        guard let frame = av_frame_alloc() else { throw SweepError(.internalError, "out of memory allocating a frame") }
        return frame
    }

    package func append(_ frame: UnsafeMutablePointer<AVFrame>) { queued.append(frame) }

    /// The oldest frame held: hand it back by ``recycle(_:)`` once its picture is moved out.
    package func popFirst() -> UnsafeMutablePointer<AVFrame>? { queued.isEmpty ? nil : queued.removeFirst() }

    /// Keeps an emptied frame for reuse (its picture released).
    package func recycle(_ frame: UnsafeMutablePointer<AVFrame>) {
        av_frame_unref(frame)
        spares.append(frame)
    }
}

/// Owns one AVPacket (`av_packet_alloc` / `av_packet_free`).
package struct PacketHandle: ~Copyable {
    package let ptr: UnsafeMutablePointer<AVPacket>
    package init() throws {
        guard let p = av_packet_alloc() else { throw SweepError(.internalError, "out of memory allocating a packet") }
        ptr = p
    }
    deinit { var p: UnsafeMutablePointer<AVPacket>? = ptr; av_packet_free(&p) }
}

/// Owns one AVCodecContext (`avcodec_alloc_context3` / `avcodec_free_context`).
package struct CodecContextHandle: ~Copyable {
    package let ptr: UnsafeMutablePointer<AVCodecContext>
    package init(codec: UnsafePointer<AVCodec>) throws {
        guard let p = avcodec_alloc_context3(codec) else { throw SweepError(.internalError, "out of memory allocating a codec") }
        ptr = p
    }
    deinit { var p: UnsafeMutablePointer<AVCodecContext>? = ptr; avcodec_free_context(&p) }
}

/// Owns one swscale context (`sws_getContext` / `sws_freeContext`).
package struct ScalerHandle: ~Copyable {
    package let ptr: OpaquePointer
    /// The file the conversions are for, named in errors.
    let subject: String

    /// Makes a `width × height` converter from `source` to `destination` (bicubic, accurate rounding).
    ///
    /// - Throws: `kind` when swscale cannot convert between the two formats.
    /// `outputWidth × outputHeight`, when given, scales as it converts.
    package init(
        width: Int, height: Int, from source: AVPixelFormat, to destination: AVPixelFormat, subject: String,
        kind: SweepError.Code = .internalError, fix: String? = nil, outputWidth: Int? = nil, outputHeight: Int? = nil,
        accurate: Bool = true
    ) throws {
        // Accurate rounding and full chroma interpolation matter for RGB; between Y′CbCr
        // formats they only force swscale off its fast paths.
        guard
            let p = sws_getContext(
                Int32(width), Int32(height), source, Int32(outputWidth ?? width), Int32(outputHeight ?? height), destination,
                sweep_sws_bicubic | (accurate ? sweep_sws_accurate : 0), nil, nil, nil)
        else {
            throw SweepError(kind, "cannot set up colour conversion", subject: subject, fix: fix)
        }
        ptr = p
        self.subject = subject
    }
    deinit { sws_freeContext(ptr) }

    /// Selects the Y′CbCr matrix (`SWS_CS_*`) and ranges for the conversion.
    ///
    /// swscale defaults to BT.601 limited range; callers say what the stream is tagged with.
    package func setColorspace(_ matrix: Int32, sourceFullRange: Bool, destinationFullRange: Bool) throws {
        try setColorspace(source: matrix, sourceFullRange: sourceFullRange, destination: matrix, destinationFullRange: destinationFullRange)
    }

    /// The same with one matrix for the source's Y′CbCr and another for the destination's
    /// (a BT.601 clip converted for a BT.709 video).
    package func setColorspace(source: Int32, sourceFullRange: Bool, destination: Int32, destinationFullRange: Bool) throws {
        // Returns -1 (not an AVERROR) when the pair of formats takes no matrix.
        let r = sws_setColorspaceDetails(
            ptr, sws_getCoefficients(source), sourceFullRange ? 1 : 0, sws_getCoefficients(destination), destinationFullRange ? 1 : 0,
            0, 1 << 16, 1 << 16)
        if r < 0 { throw SweepError(.internalError, "cannot set the colour matrix", subject: subject) }
    }

    /// Converts a packed picture (one plane, `stride` bytes a row) into `frame`'s planes.
    package func scale(packed: UnsafePointer<UInt8>, stride: Int, height: Int, into frame: UnsafeMutablePointer<AVFrame>) throws {
        var src: [UnsafePointer<UInt8>?] = [packed, nil, nil, nil]
        var strides: [Int32] = [Int32(stride), 0, 0, 0]
        let r = withUnsafeMutablePointer(to: &frame.pointee.data) { d in
            d.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { data in
                withUnsafePointer(to: &frame.pointee.linesize) { l in
                    l.withMemoryRebound(to: Int32.self, capacity: 8) { ls in
                        sws_scale(ptr, &src, &strides, 0, Int32(height), data, ls)
                    }
                }
            }
        }
        try FFmpegCall.check(r, "colour conversion failed", subject: subject, kind: .internalError)
    }

    /// Converts `frame`'s planes into a packed picture (one plane, `stride` bytes a row).
    package func scale(
        frame: UnsafeMutablePointer<AVFrame>, height: Int, into packed: UnsafeMutablePointer<UInt8>,
        stride: Int
    ) throws {
        var dst: [UnsafeMutablePointer<UInt8>?] = [packed, nil, nil, nil]
        var strides: [Int32] = [Int32(stride), 0, 0, 0]
        let r = withUnsafePointer(to: &frame.pointee.data) { d in
            d.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { data in
                withUnsafePointer(to: &frame.pointee.linesize) { l in
                    l.withMemoryRebound(to: Int32.self, capacity: 8) { ls in
                        sws_scale(ptr, data, ls, 0, Int32(height), &dst, &strides)
                    }
                }
            }
        }
        try FFmpegCall.check(r, "colour conversion failed", subject: subject, kind: .dataError)
    }
}

/// An AVDictionary of options (`av_dict_set` / `av_dict_free`).
package struct DictionaryHandle: ~Copyable {
    /// The dictionary; `nil` while empty. Passed as `&ptr` to calls that take and return it.
    package var ptr: OpaquePointer?

    package init(_ entries: [(String, String)] = []) throws {
        for (k, v) in entries { try set(k, v) }
    }

    /// Sets `key` to `value`, replacing an earlier value.
    package mutating func set(_ key: String, _ value: String) throws {
        try FFmpegCall.check(
            av_dict_set(&ptr, key, value, 0), "cannot set the option \(key)", subject: key,
            kind: .internalError)
    }

    /// The keys still in the dictionary: after an open call, the options nobody took.
    package var keys: [String] {
        var out: [String] = []
        var e: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(ptr, "", e, AV_DICT_IGNORE_SUFFIX) {
            out.append(String(cString: next.pointee.key))
            e = next
        }
        return out
    }

    deinit { var p = ptr; av_dict_free(&p) }
}

/// Owns an output AVFormatContext (`avformat_alloc_output_context2`) and, once opened, its
/// file (`avio_open`). `deinit` closes the file and frees the context, so an encoder that
/// fails half-way through its set-up leaks neither.
package struct OutputFormatContext: ~Copyable {
    package let ptr: UnsafeMutablePointer<AVFormatContext>
    let subject: String

    /// Allocates a muxer context for `container` (a libavformat short name) writing `path`.
    package init(container: String, path: String, subject: String) throws {
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try FFmpegCall.check(
            avformat_alloc_output_context2(&ctx, nil, container, path),
            "cannot set up the \(container) container", subject: subject, kind: .internalError)
        guard let ctx else { throw SweepError(.internalError, "cannot set up the \(container) container", subject: subject) }
        // No random segment ID (Matroska, WebM) and no library version in the headers, so that
        // the same frames make the same file.
        ctx.pointee.flags |= AVFMT_FLAG_BITEXACT
        ptr = ctx
        self.subject = subject
    }

    /// The muxer's short name, e.g. "mp4" or "webm".
    package var muxerName: String { String(cString: ptr.pointee.oformat.pointee.name) }

    /// Opens `path` for writing unless the muxer writes no file itself.
    package func openFile(_ path: String) throws {
        guard sweep_fmt_needs_no_file(ptr.pointee.oformat) == 0 else { return }
        try FFmpegCall.check(
            avio_open(&ptr.pointee.pb, path, sweep_avio_flag_write), "cannot create the file",
            subject: subject, kind: .cannotCreate, fix: "check the folder exists and is writable")
    }

    /// Reports a deferred write error and closes the file; the context stays until `deinit`.
    package func closeFile() throws {
        guard let pb = ptr.pointee.pb else { return }
        if pb.pointee.error < 0 {
            try FFmpegCall.check(
                pb.pointee.error, "writing failed", subject: subject, kind: .ioError,
                fix: "check free disk space and permissions")
        }
        try FFmpegCall.check(avio_closep(&ptr.pointee.pb), "cannot close the file", subject: subject, kind: .ioError)
    }

    deinit {
        // Only reached with the file still open on a path that already failed (or was
        // abandoned), whose error is the one to report; the close result adds nothing.
        if ptr.pointee.pb != nil { _ = avio_closep(&ptr.pointee.pb) }
        avformat_free_context(ptr)
    }
}

/// Owns an input AVFormatContext opened by `avformat_open_input` (closed by `avformat_close_input`).
package struct InputFormatContext: ~Copyable {
    package let ptr: UnsafeMutablePointer<AVFormatContext>

    /// Opens `url` with the demuxer found from its content.
    ///
    /// - Parameter prepared: a context made by `avformat_alloc_context` (e.g. with custom
    ///   I/O set); on failure libavformat frees it.
    package init(
        url: String?, prepared: UnsafeMutablePointer<AVFormatContext>? = nil,
        format: UnsafePointer<AVInputFormat>? = nil, what: String, subject: String,
        kind: SweepError.Code = .dataError, fix: String? = nil, options: [(String, String)] = []
    ) throws {
        var ctx = prepared
        var opts = try DictionaryHandle(options)
        try FFmpegCall.check(avformat_open_input(&ctx, url, format, &opts.ptr), what, subject: subject, kind: kind, fix: fix)
        guard let ctx else { throw SweepError(kind, what, subject: subject, fix: fix) }
        ptr = ctx
    }

    /// Opens a user's file, which may come from a stranger: only as a local file (no
    /// `concat:`, `http:` or other protocol a crafted playlist could reach for) and only with
    /// the demuxers of the containers sweep reads (``VideoDecoder/containers``). Every open of
    /// a user's clip, for its frames or its sound, goes through here.
    package init(untrusted path: String, what: String, fix: String? = nil) throws {
        try self.init(
            url: OpenedFiles.shared.physical(path), what: what, subject: path, fix: fix,
            options: [("protocol_whitelist", "file"), ("format_whitelist", VideoDecoder.containers.joined(separator: ","))])
    }

    deinit { var p: UnsafeMutablePointer<AVFormatContext>? = ptr; avformat_close_input(&p) }
}

/// Owns a custom-read AVIOContext over bytes in memory and its `av_malloc` buffer.
package struct MemoryIOContext: ~Copyable {
    package let ptr: UnsafeMutablePointer<AVIOContext>
    /// Keeps the bytes and read position alive as long as libavformat may call back.
    private let input: Unmanaged<MemoryInput>

    init(bytes: [UInt8], subject: String) throws {
        let input = Unmanaged.passRetained(MemoryInput(bytes: bytes))
        let bufSize: Int32 = 65536
        guard let buffer = av_malloc(Int(bufSize)) else {
            input.release()
            throw SweepError(.internalError, "out of memory", subject: subject)
        }
        // av_malloc gives fresh untyped memory that avio reads and writes as bytes: bind it once.
        guard
            let avio = avio_alloc_context(
                buffer.bindMemory(to: UInt8.self, capacity: Int(bufSize)), bufSize, 0,
                input.toOpaque(), MemoryInput.read, nil, MemoryInput.seek)
        else {
            av_free(buffer)
            input.release()
            throw SweepError(.internalError, "out of memory", subject: subject)
        }
        ptr = avio
        self.input = input
    }

    deinit {
        // avio may have replaced the buffer while reading, so free the one it holds now.
        av_free(ptr.pointee.buffer)
        var a: UnsafeMutablePointer<AVIOContext>? = ptr
        avio_context_free(&a)
        input.release()
    }
}

/// Owns one libswresample context (`swr_alloc_set_opts2` + `swr_init` / `swr_free`).
package struct ResamplerHandle: ~Copyable {
    package let ptr: OpaquePointer

    /// Converts audio from the decoder's sample format, rate and channel layout to the encoder's.
    ///
    /// - Throws: `.internalError` when swresample cannot convert between the two.
    package init(
        from source: UnsafePointer<AVCodecContext>, to destination: UnsafePointer<AVCodecContext>, subject: String
    ) throws {
        var p: OpaquePointer?
        var inLayout = source.pointee.ch_layout
        // A decoder that only knows the channel count gets the usual layout for it.
        if inLayout.order == AV_CHANNEL_ORDER_UNSPEC { av_channel_layout_default(&inLayout, inLayout.nb_channels) }
        // Past the usual counts (a 64-channel recording) there is no layout to mix down from.
        if inLayout.order == AV_CHANNEL_ORDER_UNSPEC {
            throw SweepError(
                .dataError, "the sound has \(inLayout.nb_channels) channels in no layout sweep can mix down", subject: subject,
                fix: "leave the sound out, or give a file with stereo sound", field: .audio)
        }
        var outLayout = destination.pointee.ch_layout
        try FFmpegCall.check(
            swr_alloc_set_opts2(
                &p, &outLayout, destination.pointee.sample_fmt, destination.pointee.sample_rate,
                &inLayout, source.pointee.sample_fmt, source.pointee.sample_rate, 0, nil),
            "cannot set up audio conversion", subject: subject, kind: .internalError)
        guard let ctx = p else { throw SweepError(.internalError, "cannot set up audio conversion", subject: subject) }
        let r = swr_init(ctx)
        // `self` is not whole yet, so `deinit` would not run: free the context here.
        if r < 0 { swr_free(&p) }
        try FFmpegCall.check(r, "cannot set up audio conversion", subject: subject, kind: .internalError)
        ptr = ctx
    }

    deinit { var p: OpaquePointer? = ptr; swr_free(&p) }
}

/// Owns one AVAudioFifo (`av_audio_fifo_alloc` / `av_audio_fifo_free`): converted samples
/// waiting to fill the encoder's fixed-size frames.
package struct AudioFIFOHandle: ~Copyable {
    package let ptr: OpaquePointer

    package init(format: AVSampleFormat, channels: Int32, subject: String) throws {
        guard let p = av_audio_fifo_alloc(format, channels, 4096) else {
            throw SweepError(.internalError, "out of memory allocating an audio buffer", subject: subject)
        }
        ptr = p
    }

    deinit { av_audio_fifo_free(ptr) }
}
