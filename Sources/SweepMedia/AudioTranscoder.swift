import CFFmpeg
import SweepSupport

/// Decodes an input's audio, drops the samples before the cut, converts the rest with
/// libswresample and re-encodes it for an ``AudioTrack`` whose container cannot take the
/// input's codec.
///
/// Sound is timed by its samples: only the first decoded frame's timestamp is read, to find
/// the cut (or a late start, filled with silence); every sample after it follows the one
/// before. Container timestamps are rounded (Matroska keeps milliseconds) or guessed (laced
/// Vorbis packets carry none), and timing each frame by them inserted silence and drifted
/// by seconds over a minute.
///
/// Sample precision: the first sample kept is the one at the cut, and it becomes output
/// sample 0 (swresample keeps input and output aligned, holding back only its filter's
/// delay, which the final flush returns). The encoder is given exactly the span's samples:
/// whole frames while the video advances, then one shorter last frame, whose padding the
/// encoder reports so that players stop where the span ends.
final class AudioTranscoder {
    let source: String
    let destination: String
    private let dec: CodecContextHandle
    private let enc: CodecContextHandle
    private let resampler: ResamplerHandle
    /// The sample format, rate and channel count the resampler was made for: every decoded
    /// frame must have them. The decoder's own context follows the stream, so a stream that
    /// changes part-way (an AC-3 track whose frames go from 2 channels to 1, found by fuzzing)
    /// would otherwise reach swresample with fewer planes than it reads.
    private let resamplerInput: (format: Int32, rate: Int32, channels: Int32)
    private let fifo: AudioFIFOHandle
    /// What the decoder gives.
    private let decoded: FrameHandle
    /// What swresample gives, grown as needed.
    private let converted: FrameHandle
    private var convertedCapacity: Int32 = 0
    /// What the encoder takes.
    private let encoderFrame: FrameHandle
    private let outPacket: PacketHandle
    private let muxer: UnsafeMutablePointer<AVFormatContext>
    private let stream: UnsafeMutablePointer<AVStream>
    private let inTimeBase: AVRational
    /// The cut, in input samples.
    private let startSample: Int64
    /// The input sample the next decoded frame starts at: where the last one ended, or the cut.
    private var nextSample: Int64 = 0
    /// The first frame has been placed by its timestamp; the rest follow it.
    private var placed = false
    /// The span's length in output samples: the most silence a late start can need.
    private let spanSamples: Int64
    /// The input time of the packet last sent to the decoder, for a frame that carries none.
    private var packetTs: Int64
    private let frameSize: Int32
    private let outRate: Int32
    /// Samples sent to the encoder so far.
    private var samplesEncoded: Int64 = 0
    private var flushed = false
    /// Encoded packets handed to the muxer so far.
    private(set) var packetsWritten = 0

    /// Sets up the decoder for `input`, `encoder` for `output` and the conversion between them.
    ///
    /// - Throws: `.unavailable` when this FFmpeg has no decoder for the input's codec,
    ///   `.dataError` when the decoder refuses the stream.
    init(
        from input: UnsafeMutablePointer<AVStream>, to output: UnsafeMutablePointer<AVStream>,
        encoder: UnsafePointer<AVCodec>, muxer: UnsafeMutablePointer<AVFormatContext>, startTs: Int64,
        span: Double, source: String, destination: String
    ) throws {
        self.source = source
        self.destination = destination
        self.muxer = muxer
        stream = output
        guard let par = input.pointee.codecpar else {
            throw SweepError(.dataError, "the audio stream has no parameters", subject: source, fix: "re-export the clip")
        }
        inTimeBase = input.pointee.time_base
        guard let decoder = avcodec_find_decoder(par.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(par.pointee.codec_id))
            throw SweepError(
                .unavailable, "this FFmpeg build cannot decode \(name) audio", subject: source,
                fix: "take the audio from the other input, or leave it out", field: .audio)
        }
        dec = try CodecContextHandle(codec: decoder)
        let d = dec.ptr
        try FFmpegCall.check(
            avcodec_parameters_to_context(d, par), "cannot copy the audio parameters", subject: source,
            kind: .internalError)
        d.pointee.pkt_timebase = inTimeBase
        try FFmpegCall.check(avcodec_open2(d, decoder, nil), "cannot open the audio decoder", subject: source, kind: .dataError)
        guard d.pointee.sample_rate > 0, d.pointee.ch_layout.nb_channels > 0 else {
            throw SweepError(.dataError, "the audio stream does not give its sample rate and channels", subject: source)
        }
        // swresample gives nothing at all from a few samples a second to an encoder's rate.
        guard d.pointee.sample_rate >= AudioProbe.minimumRate else {
            throw SweepError(
                .dataError,
                "the sound's sample rate, \(d.pointee.sample_rate) Hz, is below any sound's (at least \(AudioProbe.minimumRate))",
                subject: source, fix: "leave the sound out", field: .audio)
        }

        enc = try CodecContextHandle(codec: encoder)
        let e = enc.ptr
        e.pointee.sample_fmt = encoder.pointee.sample_fmts?[0] ?? AV_SAMPLE_FMT_FLTP
        e.pointee.sample_rate = Self.rate(for: encoder, near: d.pointee.sample_rate)
        // Mono stays mono; anything wider becomes stereo, which every encoder here takes.
        let channels = min(d.pointee.ch_layout.nb_channels, 2)
        av_channel_layout_default(&e.pointee.ch_layout, channels)
        // 64 kb/s a channel for AAC and Vorbis, 48 for Opus: transparent for most sources.
        let perChannel = encoder.pointee.id == AV_CODEC_ID_OPUS ? 48_000 : 64_000
        e.pointee.bit_rate = Int64(perChannel) * Int64(channels)
        e.pointee.time_base = AVRational(num: 1, den: e.pointee.sample_rate)
        if sweep_fmt_wants_global_header(muxer.pointee.oformat) != 0 { e.pointee.flags |= sweep_codec_flag_global_header }
        let encoderName = String(cString: encoder.pointee.name)
        try FFmpegCall.check(
            avcodec_open2(e, encoder, nil), "the \(encoderName) encoder refused the audio settings", subject: destination,
            kind: .internalError)
        try FFmpegCall.check(
            avcodec_parameters_from_context(output.pointee.codecpar, e), "cannot copy the audio parameters",
            subject: destination, kind: .internalError)
        output.pointee.time_base = e.pointee.time_base
        outRate = e.pointee.sample_rate
        let variable = encoder.pointee.capabilities & sweep_codec_cap_variable_frame_size != 0
        frameSize = e.pointee.frame_size > 0 && !variable ? e.pointee.frame_size : 1024

        resampler = try ResamplerHandle(from: d, to: e, subject: source)
        resamplerInput = (d.pointee.sample_fmt.rawValue, d.pointee.sample_rate, d.pointee.ch_layout.nb_channels)
        fifo = try AudioFIFOHandle(format: e.pointee.sample_fmt, channels: channels, subject: destination)
        decoded = try FrameHandle()
        converted = try FrameHandle()
        encoderFrame = try FrameHandle()
        outPacket = try PacketHandle()
        let inRate = AVRational(num: 1, den: d.pointee.sample_rate)
        startSample = Ticks.rescale(startTs, inTimeBase, inRate) ?? 0
        nextSample = startSample
        packetTs = startTs
        spanSamples = Ticks.of(seconds: span, in: AVRational(num: 1, den: outRate))
        try Self.prepare(encoderFrame.ptr, like: e, samples: frameSize, subject: destination)
    }

    /// The input's rate when the encoder takes it, else 48 kHz, else the encoder's first.
    private static func rate(for encoder: UnsafePointer<AVCodec>, near input: Int32) -> Int32 {
        guard let list = encoder.pointee.supported_samplerates else { return input }
        var rates: [Int32] = []
        var i = 0
        while list[i] != 0 {
            rates.append(list[i])
            i += 1
        }
        if rates.contains(input) { return input }
        return rates.contains(48_000) ? 48_000 : (rates.first ?? input)
    }

    /// Gives `frame` the encoder's format and a buffer of `samples` samples.
    private static func prepare(
        _ frame: UnsafeMutablePointer<AVFrame>, like e: UnsafeMutablePointer<AVCodecContext>, samples: Int32, subject: String
    ) throws {
        av_frame_unref(frame)
        frame.pointee.format = e.pointee.sample_fmt.rawValue
        frame.pointee.sample_rate = e.pointee.sample_rate
        frame.pointee.nb_samples = samples
        try FFmpegCall.check(
            av_channel_layout_copy(&frame.pointee.ch_layout, &e.pointee.ch_layout), "cannot set the channel layout",
            subject: subject, kind: .internalError)
        try FFmpegCall.check(av_frame_get_buffer(frame, 0), "cannot allocate audio", subject: subject, kind: .internalError)
    }

    /// What to do about corrupt audio.
    static let repair = "repair or re-encode the file (e.g. with ffmpeg), or leave the audio out"

    /// Decodes one packet (`nil` drains the decoder) and queues its samples inside the span.
    ///
    /// - Parameters:
    ///   - ts: the packet's input time (`pts`, else `dts`, else the last packet's), used for
    ///     a first frame that carries no time of its own.
    ///   - time: the same in seconds, named when the audio is corrupt.
    /// - Throws: `.dataError` naming the input and the time when the audio is corrupt.
    func decode(_ packet: UnsafeMutablePointer<AVPacket>?, ts: Int64, at time: String) throws {
        if packet != nil { packetTs = ts }
        if packet == nil {
            guard !flushed else { return }
            flushed = true
        }
        try FFmpegCall.exchange(
            send: { avcodec_send_packet(dec.ptr, packet) }, receive: { avcodec_receive_frame(dec.ptr, decoded.ptr) },
            "the audio is corrupt at \(time) s", subject: source, kind: .dataError, fix: Self.repair
        ) { try queue(decoded.ptr, at: time) }
    }

    /// Drops the part of `frame` before the cut and converts the rest into the FIFO.
    private func queue(_ frame: UnsafeMutablePointer<AVFrame>, at time: String) throws {
        let f = frame.pointee
        let r = resamplerInput
        guard f.format == r.format, f.sample_rate == r.rate, f.ch_layout.nb_channels == r.channels else {
            throw SweepError(
                .dataError, "the audio changes its sample format, rate or channels at \(time) s", subject: source,
                fix: "convert the audio to one format first (e.g. with ffmpeg)")
        }
        let n = Int64(f.nb_samples)
        var first = nextSample
        if !placed {
            placed = true
            // `pts`, not the best-effort guess: only `pts` moves past a skip (Opus's pre-skip).
            // Without one, the packet's time: after a seek, the decoder's first frame is up
            // to half a second before the cut, and placing it at the cut would delay the sound.
            let rate = AVRational(num: 1, den: f.sample_rate)
            let ts = Ticks.sane(f.pts) ?? Ticks.sane(f.best_effort_timestamp) ?? packetTs
            first = Ticks.rescale(ts, inTimeBase, rate) ?? first
            // Audio that begins after the cut is preceded by silence, so that it keeps its
            // place; a late start within timestamp rounding (2 ms) is not one.
            let late = first - startSample
            if late > Int64(f.sample_rate) / 500 {
                try silence(min(av_rescale(late, Int64(outRate), Int64(f.sample_rate)), spanSamples))
            }
        }
        nextSample = first + n
        let skip = max(0, startSample - first)
        guard skip < n else { return }
        // Point past the skipped samples: one pointer a channel for planar formats, one in all for packed.
        let format = AVSampleFormat(rawValue: f.format)
        let bytes = Int(av_get_bytes_per_sample(format))
        let planar = av_sample_fmt_is_planar(format) != 0
        let channels = Int(f.ch_layout.nb_channels)
        var planes: [UnsafePointer<UInt8>?] =
            planar
            ? (0..<channels).map { UnsafePointer(f.extended_data[$0]! + Int(skip) * bytes) }
            : [UnsafePointer(f.extended_data[0]! + Int(skip) * bytes * channels)]
        try convert(&planes, count: Int32(n - skip))
    }

    /// Queues `count` samples of silence in the encoder's format.
    private func silence(_ count: Int64) throws {
        var left = count
        while left > 0 {
            let chunk = Int32(min(left, 48_000))
            try reserve(chunk)
            let e = enc.ptr.pointee
            try FFmpegCall.check(
                av_samples_set_silence(converted.ptr.pointee.extended_data, 0, chunk, e.ch_layout.nb_channels, e.sample_fmt),
                "cannot make silence", subject: destination, kind: .internalError)
            try FFmpegCall.check(
                av_audio_fifo_write(fifo.ptr, rawPlanes(converted.ptr), chunk), "cannot buffer audio", subject: destination,
                kind: .internalError)
            left -= Int64(chunk)
        }
    }

    /// Grows the conversion frame to hold `samples` samples.
    private func reserve(_ samples: Int32) throws {
        guard samples > convertedCapacity else { return }
        try Self.prepare(converted.ptr, like: enc.ptr, samples: samples, subject: destination)
        convertedCapacity = samples
    }

    /// A frame's plane pointers as the untyped array the FIFO calls take.
    private func rawPlanes(_ frame: UnsafeMutablePointer<AVFrame>) throws -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        guard let planes = frame.pointee.extended_data else {
            throw SweepError(.internalError, "an audio frame has no sample planes", subject: destination, fix: "please report it")
        }
        return UnsafeMutableRawPointer(planes).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    /// Runs `count` samples (none: the resampler's held-back tail) through swresample into the FIFO.
    private func convert(_ planes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int32) throws {
        let room = swr_get_out_samples(resampler.ptr, count)
        try FFmpegCall.check(room, "audio conversion failed", subject: source, kind: .internalError)
        guard room > 0 else { return }
        try reserve(room)
        let got = try FFmpegCall.check(
            swr_convert(resampler.ptr, converted.ptr.pointee.extended_data, room, planes, count), "audio conversion failed",
            subject: source, kind: .internalError)
        guard got > 0 else { return }
        try FFmpegCall.check(
            av_audio_fifo_write(fifo.ptr, rawPlanes(converted.ptr), got), "cannot buffer audio", subject: destination, kind: .internalError)
    }

    /// Encodes the queued audio up to `seconds` of output time: whole frames only, unless
    /// `final`, which also sends the shorter last frame and drains the encoder.
    func encode(upTo seconds: Double, final: Bool) throws {
        if final { try convert(nil, count: 0) }
        let target = Ticks.of(seconds: seconds, in: AVRational(num: 1, den: outRate))
        while true {
            let queued = Int64(av_audio_fifo_size(fifo.ptr))
            let room = target - samplesEncoded
            let n = min(Int64(frameSize), queued, room)
            guard n > 0, n == Int64(frameSize) || final else { break }
            try send(Int32(n))
        }
        guard final else { return }
        try encode(nil)
    }

    /// Sends the FIFO's next `count` samples to the encoder.
    private func send(_ count: Int32) throws {
        let f = encoderFrame.ptr
        f.pointee.nb_samples = frameSize
        try FFmpegCall.check(av_frame_make_writable(f), "cannot reuse the audio frame", subject: destination, kind: .internalError)
        f.pointee.nb_samples = count
        let read = try FFmpegCall.check(
            av_audio_fifo_read(fifo.ptr, rawPlanes(f), count), "cannot read buffered audio", subject: destination, kind: .internalError)
        f.pointee.nb_samples = read
        f.pointee.pts = samplesEncoded
        samplesEncoded += Int64(read)
        Self.clampFloatSamples(f)
        try encode(f)
    }

    /// Holds float samples to full scale, NaN to silence. A damaged source can decode to
    /// samples of ±1.6e7, on which FFmpeg 5.1's AAC encoder searches its quantizer for minutes
    /// (ffmpeg's own CLI hangs the same way); integer formats are bounded already.
    private static func clampFloatSamples(_ f: UnsafeMutablePointer<AVFrame>) {
        let format = AVSampleFormat(rawValue: f.pointee.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        guard format == AV_SAMPLE_FMT_FLT || format == AV_SAMPLE_FMT_FLTP, let data = f.pointee.extended_data else { return }
        let channels = Int(f.pointee.ch_layout.nb_channels)
        let perPlane = Int(f.pointee.nb_samples) * (planar ? 1 : channels)
        for plane in 0..<(planar ? channels : 1) {
            guard let base = data[plane] else { continue }
            let samples = UnsafeMutableRawPointer(base).assumingMemoryBound(to: Float.self)
            for i in 0..<perPlane {
                let x = samples[i]
                samples[i] = x.isNaN ? 0 : min(max(x, -1), 1)
            }
        }
    }

    /// Sends `frame` (nil: the end) and writes every packet the encoder then has ready.
    private func encode(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        let p = outPacket.ptr
        try FFmpegCall.exchange(
            send: { avcodec_send_frame(enc.ptr, frame) }, receive: { avcodec_receive_packet(enc.ptr, p) }, "audio encoding failed",
            subject: destination, kind: .internalError
        ) {
            av_packet_rescale_ts(p, enc.ptr.pointee.time_base, stream.pointee.time_base)
            p.pointee.stream_index = stream.pointee.index
            try AudioTrack.write(p, to: muxer, subject: destination)
            packetsWritten += 1
        }
    }
}
