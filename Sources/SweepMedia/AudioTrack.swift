import CFFmpeg
import Foundation
import SweepSupport

/// One input's first audio stream carried into a ``VideoWriter``'s file, cut to the
/// output's span and fed as the video advances.
///
/// Copy or re-encode, by one rule per container (``copies(_:into:)``): MP4 and MOV carry
/// AAC, and copy MP3 and ALAC too; WebM carries Opus, and copies Vorbis; Matroska copies
/// whatever it can hold. The packets of a codec the rule copies are re-timed but not
/// decoded; anything else is decoded, converted by libswresample and re-encoded: to AAC
/// (FFmpeg's `aac`) for MP4, MOV and Matroska, to Opus (`libopus`, else `libvorbis`) for
/// WebM. Apple's players and the social platforms play nothing else from an MP4, and FFmpeg
/// 5.1 writes Opus or FLAC into MP4 only as an experiment.
///
/// The cut: output time 0 is input time `start`, counted from the input's time 0 (see
/// ``origin(_:audio:)``).
/// - A copy cuts at packet boundaries. Its first packet is the first that starts at or after
///   `start`, so the track may open with less than one audio frame (≤ 21 ms of AAC at
///   48 kHz, 20 ms of Opus) of silence, and no container needs negative timestamps or an
///   edit list. Packets are then timed by their samples (see ``copy(_:at:)``). The packet that
///   covers the end is kept with its duration shortened to end there (a player may still
///   sound the rest of that one frame). A copy is not decoded, so only damage that stops
///   the demuxer is caught; re-encoding also catches what stops the decoder.
/// - Re-encoding cuts at sample precision: decoded samples before `start` are dropped and
///   the encoder gets exactly the span's samples (the end of the last video frame, or
///   `duration`, whichever comes first).
///
/// Either way the audio lasts as long as the video to within one audio frame.
///
/// Interleaving: ``write(upTo:)`` runs after each video frame and writes the audio up to that
/// frame's end, and every packet goes through `av_interleaved_write_frame`, so nothing
/// accumulates with the clip's length.
final class AudioTrack {
    /// The input, named in errors.
    let source: String
    /// The output, named in errors about writing.
    let destination: String
    private let input: InputFormatContext
    private let inIndex: Int32
    private let inTimeBase: AVRational
    /// The input's time 0, in `inTimeBase`: see ``origin(_:audio:)``.
    private let origin: Int64
    /// The muxer, borrowed from the ``VideoWriter`` that owns it and this track.
    private let muxer: UnsafeMutablePointer<AVFormatContext>
    private let stream: UnsafeMutablePointer<AVStream>
    private let packet: PacketHandle
    /// Nil when the packets are copied.
    private let transcoder: AudioTranscoder?
    /// The span to carry, in input time (`inTimeBase`): [startTs, endTs).
    private let startTs: Int64
    private var endTs: Int64
    private let duration: Double
    /// `packet` holds a packet read ahead, for a later video frame.
    private var pending = false
    /// Nothing more to read: end of input, or past the span.
    private var exhausted = false
    /// The last packet's input time, for errors.
    private var lastTs: Int64

    /// Packets copied so far.
    private var packetsCopied = 0
    /// Where the next copied packet starts, in samples of output time, once one was placed.
    private var copiedSamples: Int64?
    /// The last copied packet's output time (the stream's time base).
    private var lastCopiedPts: Int64?
    /// Packets handed to the muxer so far (copied or encoded): shows the audio keeps pace with the video.
    var packetsWritten: Int { transcoder?.packetsWritten ?? packetsCopied }

    /// True when the input's packets are copied; false when re-encoded.
    var isCopy: Bool { transcoder == nil }
    /// The input's audio codec and the output's (libavcodec names, e.g. "vorbis", "aac").
    let inputCodec: String
    let outputCodec: String

    /// Opens `audio.path`'s first audio stream and adds a stream for it to `muxer`.
    ///
    /// Called before the muxer writes its header.
    /// - Throws: `.noInput` for a missing file, `.dataError` for one FFmpeg cannot read,
    ///   `.usage` when the file has no audio or the container can hold no audio sweep can
    ///   make, `.unavailable` when this FFmpeg cannot decode the input's codec.
    init(_ audio: AudioInput, muxer: UnsafeMutablePointer<AVFormatContext>, destination: String) throws {
        source = audio.path
        self.destination = destination
        self.muxer = muxer
        guard audio.start.isFinite, audio.start >= 0, audio.duration.isFinite, audio.duration > 0 else {
            throw SweepError(
                .usage, "the audio span must start at 0 s or later and last more than 0 s", subject: audio.path,
                field: .audio)
        }
        duration = audio.duration
        guard FileManager.default.fileExists(atPath: OpenedFiles.shared.physical(audio.path)) else {
            throw SweepError(.noInput, "no such file", subject: audio.path, field: .audio)
        }
        input = try InputFormatContext(untrusted: audio.path, what: "cannot open the audio input")
        let ctx = input.ptr
        try FFmpegCall.check(
            avformat_find_stream_info(ctx, nil), "cannot read the stream info", subject: audio.path, kind: .dataError)
        let index = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0, let inStream = ctx.pointee.streams[Int(index)] else {
            throw SweepError(
                .usage, "this file has no audio stream", subject: audio.path,
                fix: "take the audio from the other input, or leave it out", field: .audio)
        }
        inIndex = index
        // The demuxer skips the other streams' packets instead of handing them over.
        for i in 0..<Int(ctx.pointee.nb_streams) where i != Int(index) { ctx.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL }
        let tb = inStream.pointee.time_base
        inTimeBase = tb
        origin = Self.origin(ctx, audio: inStream)
        startTs = origin + Ticks.of(seconds: audio.start, in: tb)
        endTs = startTs + Ticks.of(seconds: audio.duration, in: tb)
        lastTs = startTs
        packet = try PacketHandle()

        guard let ofmt = muxer.pointee.oformat, let par = inStream.pointee.codecpar else {
            throw SweepError(
                .internalError, "the output or the audio stream has no parameters", subject: destination, fix: "please report it")
        }
        let container = String(cString: ofmt.pointee.name)
        let copy = Self.copies(par.pointee.codec_id, into: ofmt)
        let encoders = copy ? [] : Self.encoders(for: ofmt)
        guard copy || !encoders.isEmpty else {
            throw SweepError(
                .usage, "the \(container) container cannot hold audio", subject: destination,
                fix: "write MP4, MOV, MKV or WebM to keep the sound, or leave the audio out", field: .audio)
        }
        guard let out = avformat_new_stream(muxer, nil) else {
            throw SweepError(.internalError, "cannot add an audio stream", subject: destination)
        }
        stream = out
        inputCodec = String(cString: avcodec_get_name(par.pointee.codec_id))
        outputCodec = copy ? inputCodec : String(cString: avcodec_get_name(encoders[0].pointee.id))
        if copy {
            transcoder = nil
            try FFmpegCall.check(
                avcodec_parameters_copy(out.pointee.codecpar, par), "cannot copy the audio parameters",
                subject: destination, kind: .internalError)
            // The input container's tag may mean nothing in this one: let the muxer pick its own.
            out.pointee.codecpar.pointee.codec_tag = 0
            out.pointee.time_base = tb
        } else {
            transcoder = try AudioTranscoder(
                from: inStream, to: out, encoder: encoders[0], muxer: muxer, startTs: startTs,
                span: audio.duration, source: audio.path,
                destination: destination)
        }
        if startTs > origin {
            // Re-encoding starts half a second early so that the decoder is settled at the
            // cut (AAC's overlap, MP3's bit reservoir, Opus's pre-roll); those samples are
            // dropped. A failed seek (a stream that cannot seek) is not an error: reading
            // from the beginning and dropping everything before the cut gives the same audio.
            let lead = copy ? 0 : Ticks.of(seconds: 0.5, in: tb)
            _ = try? FFmpegCall.check(
                av_seek_frame(ctx, index, max(origin, startTs - lead), sweep_avseek_flag_backward), "cannot seek",
                subject: audio.path)
        }
    }

    /// The input's time 0 in the audio stream's ticks: its video stream's start, the clock
    /// ``VideoDecoder`` matches frames on; without video, the container's start, but not
    /// before 0 (Opus's pre-skip starts its stream 6.5 ms early, samples no one hears).
    /// A time a crafted file makes unusable counts as 0.
    static func origin(_ ctx: UnsafeMutablePointer<AVFormatContext>, audio: UnsafeMutablePointer<AVStream>) -> Int64 {
        let tb = audio.pointee.time_base
        let video = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        if video >= 0, let st = ctx.pointee.streams[Int(video)],
            let start = Ticks.rescale(st.pointee.start_time, st.pointee.time_base, tb)
        {
            return start
        }
        return max(0, Ticks.rescale(ctx.pointee.start_time, AVRational(num: 1, den: AV_TIME_BASE), tb) ?? 0)
    }

    /// The audio codecs each container carries as they are; `nil` means whatever the muxer takes.
    static let copiedCodecs: [String: Set<AVCodecID>?] = [
        "mp4": [AV_CODEC_ID_AAC, AV_CODEC_ID_MP3, AV_CODEC_ID_ALAC],
        "mov": [AV_CODEC_ID_AAC, AV_CODEC_ID_MP3, AV_CODEC_ID_ALAC],
        "webm": [AV_CODEC_ID_OPUS, AV_CODEC_ID_VORBIS],
        "matroska": nil,
    ]

    /// The encoders, best first, for each container's re-encoded sound.
    static let encoderNames: [String: [String]] = [
        "mp4": ["aac"], "mov": ["aac"], "matroska": ["aac", "libopus"], "webm": ["libopus", "libvorbis"],
    ]

    /// True when `codec` is carried into `format` as it is, by the rule above (and the muxer takes it).
    static func copies(_ codec: AVCodecID, into format: UnsafePointer<AVOutputFormat>) -> Bool {
        let name = String(cString: format.pointee.name)
        guard let rule = copiedCodecs[name] else { return false }
        return (rule?.contains(codec) ?? true) && avformat_query_codec(format, codec, sweep_compliance_normal) == 1
    }

    /// The encoders to try, best first, for `format`'s re-encoded sound (none: it holds no sound).
    static func encoders(for format: UnsafePointer<AVOutputFormat>) -> [UnsafePointer<AVCodec>] {
        (encoderNames[String(cString: format.pointee.name)] ?? []).compactMap { name in
            guard let codec = avcodec_find_encoder_by_name(name) else { return nil }
            return avformat_query_codec(format, codec.pointee.id, sweep_compliance_normal) == 1 ? codec : nil
        }
    }

    /// Writes the audio up to `seconds` of output time: the end of the video frame just added.
    func write(upTo seconds: Double) throws {
        try feed(limit: startTs + ticks(seconds), final: false)
        try transcoder?.encode(upTo: min(seconds, duration), final: false)
    }

    /// Writes the rest of the span, ending with the video (`videoEnd` seconds) when that is
    /// shorter than the duration asked for, and flushes the encoder.
    func finish(videoEnd: Double) throws {
        let end = min(duration, videoEnd)
        endTs = min(endTs, startTs + ticks(end))
        try feed(limit: endTs, final: true)
        try transcoder?.encode(upTo: end, final: true)
    }

    /// Seconds in input ticks.
    private func ticks(_ seconds: Double) -> Int64 {
        Ticks.of(seconds: seconds, in: inTimeBase)
    }

    /// Input time of `ts`, in seconds from the file's start, for errors.
    private func inputSeconds(_ ts: Int64) -> String {
        String(format: "%.2f", (Double(ts) - Double(origin)) * Double(inTimeBase.num) / Double(inTimeBase.den))
    }

    /// Reads and passes on packets that end by `limit` (all that start before the span's
    /// end when `final`), keeping the first one past it for the next call.
    private func feed(limit: Int64, final: Bool) throws {
        let p = packet.ptr
        while !exhausted {
            if !pending {
                guard try readAudioPacket() else {
                    exhausted = true
                    break
                }
            }
            // A packet without a usable time follows the one before it.
            let ts = Ticks.sane(p.pointee.pts) ?? Ticks.sane(p.pointee.dts) ?? lastTs
            p.pointee.duration = min(max(p.pointee.duration, 0), Ticks.bound)
            if ts >= endTs {
                av_packet_unref(p)
                pending = false
                exhausted = true
                break
            }
            if !final && ts + p.pointee.duration > limit {
                pending = true
                return
            }
            pending = false
            lastTs = ts
            defer { av_packet_unref(p) }
            if let transcoder {
                try transcoder.decode(p, ts: ts, at: inputSeconds(ts))
            } else {
                try copy(p, at: ts)
            }
        }
        if final { try transcoder?.decode(nil, ts: lastTs, at: inputSeconds(lastTs)) }
    }

    /// Reads the next packet of the audio stream into `packet`; false at the end of the file.
    private func readAudioPacket() throws -> Bool {
        while true {
            let r = av_read_frame(input.ptr, packet.ptr)
            if r == sweep_averror_eof() { return false }
            try FFmpegCall.check(
                r, "the audio cannot be read after \(inputSeconds(lastTs)) s", subject: source, kind: .dataError)
            if packet.ptr.pointee.stream_index == inIndex { return true }
            av_packet_unref(packet.ptr)
        }
    }

    /// Re-times one input packet to output time and writes it; packets that start before the
    /// cut are dropped (see the type's comment).
    ///
    /// Timed by samples where the codec says how many a packet holds (AAC, MP3, AC-3, FLAC,
    /// Opus, PCM, …): the first packet is placed by its timestamp, each one after where the
    /// one before ended. Matroska's millisecond timestamps would otherwise jitter by up to
    /// half a millisecond, and a player's resampler follows the jitter. A packet whose
    /// timestamp is more than 40 ms from that place is placed by its timestamp: the gap is
    /// real, or the codec's count is wrong, and either way the timestamp keeps the sync.
    /// Output times only ever increase, as every muxer demands.
    private func copy(_ p: UnsafeMutablePointer<AVPacket>, at ts: Int64) throws {
        guard ts >= startTs else { return }
        let rate = stream.pointee.codecpar.pointee.sample_rate
        let samples = rate > 0 ? Int64(av_get_audio_frame_duration2(stream.pointee.codecpar, p.pointee.size)) : 0
        let base: AVRational
        var pts: Int64, length: Int64
        if samples > 0, let byTime = Ticks.rescale(ts - startTs, inTimeBase, AVRational(num: 1, den: rate)),
            let end = Ticks.rescale(endTs - startTs, inTimeBase, AVRational(num: 1, den: rate))
        {
            base = AVRational(num: 1, den: rate)
            pts = byTime
            if let next = copiedSamples, abs(next - byTime) <= Int64(rate) / 25 { pts = next }
            guard pts < end else { return }
            length = min(samples, end - pts)
            copiedSamples = pts + samples
        } else {
            base = inTimeBase
            pts = ts - startTs
            length = p.pointee.duration > 0 ? min(p.pointee.duration, endTs - ts) : 0
            copiedSamples = nil
        }
        let out = stream.pointee.time_base
        var outPts = av_rescale_q(pts, base, out)
        if let last = lastCopiedPts, outPts <= last { outPts = last + 1 }
        lastCopiedPts = outPts
        (p.pointee.pts, p.pointee.dts, p.pointee.duration) = (outPts, outPts, av_rescale_q(length, base, out))
        p.pointee.stream_index = stream.pointee.index
        p.pointee.pos = -1
        try Self.write(p, to: muxer, subject: destination)
        packetsCopied += 1
    }

    /// Hands one packet to the muxer's interleaving queue.
    static func write(_ p: UnsafeMutablePointer<AVPacket>, to muxer: UnsafeMutablePointer<AVFormatContext>, subject: String) throws {
        try FFmpegCall.checkWrite(
            av_interleaved_write_frame(muxer, p), "writing failed", subject: subject,
            container: String(cString: muxer.pointee.oformat.pointee.name))
    }
}
