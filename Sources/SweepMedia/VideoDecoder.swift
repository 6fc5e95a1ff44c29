import CFFmpeg
import Foundation
import SweepImaging
import SweepSupport

/// Plays one video file forward and hands out the frame on screen at a given time, scaled
/// to an output frame.
///
/// Time is the clip's own: 0 is its first frame, whatever the container's start time.
/// Frames are matched by presentation time, so clips of different rates, or variable rate,
/// line up. Only the current frame and the next one are held: memory does not grow with
/// the clip. Frames are converted (matrix, range, bit depth, rotation) to sRGB-ish BT.709
/// pictures at the output size in one swscale pass per frame.
package final class VideoDecoder {
    /// The file, named in errors.
    package let path: String
    /// The picture's upright size (rotation metadata applied).
    package let width: Int
    package let height: Int
    /// Frames per second: the stream's nominal rate (15 for a phone clip averaging 14.99),
    /// else its average rate, else 25; see ``nominalRate(real:average:)``. When the two part,
    /// the highest rate its frames steadily come at (``steadyRate(_:tolerance:)``).
    package let frameRate: Double
    /// The pixel's shape (sample aspect ratio, width over height): 12/11 for a PAL-wide DV
    /// frame, 1 for square pixels. Frames are drawn with square pixels.
    package let pixelAspect: Double
    /// How far after `t` a frame's timestamp may fall and still count as on screen at `t`:
    /// half the stream's time-base step, at least 1 ms. Matroska stores milliseconds, so a
    /// 30 fps frame due at 66.67 ms carries 67 ms.
    let timeTolerance: Double
    /// Seconds from the first frame to the end of the last.
    package private(set) var duration: Double = 0
    /// Where the frames end (clip seconds from the clip's own start) when that is before the
    /// length the file states (`stated`): the file was cut short, or its header is wrong.
    /// The clip plays to its last frame; nil when the two agree.
    package private(set) var statedEnd: (frames: Double, stated: Double)?
    /// The decode timestamp of the last whole packet of a clip cut short: packets after it are
    /// the cut one, and are not decoded.
    private var packetLimit: Int64?
    /// EXIF orientation (1–8) taken from the stream's display matrix: turns and mirrors.
    package let orientation: Int
    /// The container's name (for messages), e.g. "mov,mp4,m4a,3gp,3g2,mj2".
    package let container: String

    private let input: InputFormatContext
    private let decoder: CodecContextHandle
    private let streamIndex: Int32
    private let timeBase: Double
    private let streamTimeBase: AVRational
    private var current: FrameHandle
    private var upcoming: FrameHandle
    private let packet: PacketHandle
    /// The first frame's timestamp in stream ticks: the clip's time 0.
    private var origin: Int64 = 0
    private var hasCurrent = false
    /// The current frame has been the answer to an ``advance(to:)``.
    private var currentShown = false
    /// The frames come on one steady grid (pauses allowed), or not: alternating, drifting
    /// or jittering times (see ``steadyTiming(_:tolerance:)``).
    private let onGrid: Bool
    private var hasUpcoming = false
    /// For a clip whose frames are timed in decode order (``DecodeOrder``): the times of the
    /// packets sent to the decoder whose frames have not come out yet, earliest first.
    private var pendingTimes: [Int64] = []
    /// How frames are timed when the container gives decode times only (AVI); nil otherwise.
    private let decodeOrder: DecodeOrder?
    /// Frames decoded after `upcoming` by ``decodeAhead(limit:)``, oldest first.
    private let ahead = FrameQueue()
    /// What decoding ahead met after the frames held: the clip's end, or an error, which the
    /// frame due then gives (as decoding it then would have).
    private var aheadEnd: Result<Void, any Error>?
    private var demuxEnded = false
    private var drained = false
    /// Changes whenever the frame on screen changes (so callers convert each frame once).
    package private(set) var frameNumber = -1
    /// Seeks made to skip ahead (``advance(to:)``), for tests and benchmarks.
    package private(set) var seeksAhead = 0
    /// The clip times of the key frames the demuxer's index lists (an MP4's sync samples), at
    /// most ``maxKeyFrames`` of them spread evenly: where playing can start without decoding
    /// what comes before. Listed for an MP4 on a steady grid only (see where ``seeksByIndex``
    /// is set); a fragmented MP4 lists the fragments read so far. Empty otherwise.
    package private(set) var keyFrameTimes: [Double] = []
    /// The most key frame times kept (a worker sends them in one message).
    package static let maxKeyFrames = 1000
    /// Whether a skip may seek by the demuxer's index (see ``skipAhead(to:)``).
    private var seeksByIndex = false
    /// How much later than its decode time a key frame shows (B-frames), in stream ticks.
    private var keyDelay: Int64 = 0
    private var scaler: ScalerHandle?
    private var scalerKey: [Int] = []
    private let maxPixels: Int
    /// HDR frames go through it before anything else sees them; nil for SDR clips.
    private let toneMapper: ToneMapper?
    /// A decoded HDR frame on its way to the tone mapper.
    private let hdrFrame: FrameHandle
    /// "PQ" or "HLG" when the clip is HDR and tone-mapped to SDR; nil otherwise.
    package let hdrTransfer: String?
    /// The part of a layered stream that is drawn: a Dolby Vision clip's base layer, a spatial
    /// clip's base view.
    package let layers: LayeredStream
    /// The area of the output frame the last RGBA draw wrote: letterbox bars keep the caller's pixels.
    package private(set) var drawnArea: (x: Int, y: Int, width: Int, height: Int)?
    /// The stored frame size (before rotation and pixel aspect).
    private let storedWidth: Int, storedHeight: Int
    /// The size HDR frames are scaled to before tone-mapping: the output's share of them.
    private var toneMapSize: (width: Int32, height: Int32)?

    /// Containers sweep opens as video (libavformat demuxer names); everything else is refused
    /// before a demuxer meant for something else (HLS, concat lists, …) could run.
    static let containers = ["mov", "mp4", "m4a", "3gp", "3g2", "mj2", "matroska", "webm", "avi", "mpegts", "flv", "gif", "apng"]
    /// Decoders sweep lets FFmpeg use for video.
    static let codecs = [
        "h264", "hevc", "vp8", "vp9", "av1", "libdav1d", "libaom-av1", "mpeg4", "mpeg2video", "mpeg1video", "mjpeg",
        "prores", "gif", "apng", "png", "dnxhd", "ffv1", "qtrle", "rawvideo", "theora", "h263", "flv", "libvpx", "libvpx-vp9",
    ]

    /// Opens the video at `path` and decodes its first frame.
    ///
    /// - Parameters:
    ///   - start: seconds into the clip to begin from (its frame on screen then becomes time 0).
    ///   - maxPixels: the largest picture accepted (a decompression bomb is refused).
    ///   - maxMemory: the bytes the decoder may take (see ``DecoderMemory``); it uses fewer
    ///     threads to fit, and refuses a clip that needs more with one.
    ///   - hdr: tone-map an HDR clip to SDR (the default), or refuse it.
    /// - Throws: `.noInput` (missing, unreadable), `.dataError` (not a video, no video stream,
    ///   corrupt, over the memory budget, HDR when refused, encrypted, Dolby Vision without a
    ///   base layer to show), `.unavailable` (a codec this FFmpeg cannot decode).
    package init(
        path: String, start: Double = 0, maxPixels: Int = ImageDecoder.defaultMaxPixels,
        maxMemory: Int = DecoderMemory.defaultBudget, hdr: HDRHandling = .tonemap
    ) throws {
        _ = FFmpegCall.quiet
        self.path = path
        self.maxPixels = maxPixels
        try FileBytes.checkReadable(path)
        let notVideo = "not a video sweep can read"
        let fix = "give an MP4, MOV, MKV, WebM, AVI, MPEG-TS, 3GP, FLV, GIF or APNG video, or an image"
        // An encrypted MP4 is named before FFmpeg reads it: FFmpeg 5.1 fails on some of their
        // headers and decodes the others' encrypted bytes as garbage.
        let boxes = MovieBoxes.read(path)
        if let locked = boxes?.tracks.first(where: \.encrypted) { throw Self.encrypted(path, scheme: locked.scheme) }
        input = try InputFormatContext(untrusted: path, what: notVideo, fix: fix)
        let ctx = input.ptr
        ctx.pointee.codec_whitelist = av_strdup(Self.codecs.joined(separator: ","))
        container = String(cString: ctx.pointee.iformat.pointee.name)
        // Stream parameters need a look at the first packets; each probing decoder is capped
        // near the pixel limit like the real one.
        let streams = Int(ctx.pointee.nb_streams)
        var probeOptions = [OpaquePointer?](repeating: nil, count: max(1, streams))
        let probeCap = ImageDecoder.decoderPixelCap(width: 0, height: 0, maxPixels: maxPixels)
        for i in 0..<streams { av_dict_set(&probeOptions[i], "max_pixels", String(probeCap), 0) }
        let probed = avformat_find_stream_info(ctx, &probeOptions)
        for i in 0..<streams { av_dict_free(&probeOptions[i]) }
        try FFmpegCall.check(probed, notVideo, subject: path, kind: .dataError, fix: fix)
        let index = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let st = ctx.pointee.streams[Int(index)], let par = st.pointee.codecpar,
            par.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        else {
            throw SweepError(.dataError, "the file has no video stream", subject: path, fix: "give a video or an image")
        }
        streamIndex = index
        if av_stream_get_side_data(st, AV_PKT_DATA_ENCRYPTION_INIT_INFO, nil) != nil { throw Self.encrypted(path, scheme: nil) }
        var layers = LayeredStream()
        if let track = boxes?.tracks.first(where: { $0.id == UInt32(truncatingIfNeeded: st.pointee.id) && $0.handler == "vide" }),
            track.stereo
        {
            layers.baseEye = track.baseViewIsRight ? "right" : "left"
        }
        if let dovi = Self.dolbyVision(st) {
            guard dovi.bl_present_flag != 0, LayeredStream.baseLayers[Int(dovi.dv_bl_signal_compatibility_id)] != nil else {
                throw SweepError(
                    .dataError,
                    "the clip is Dolby Vision profile \(dovi.dv_profile) with no base layer a player without Dolby Vision can show "
                        + "(compatibility id \(dovi.dv_bl_signal_compatibility_id)); drawn as it is stored (IPTPQc2), its colours would be wrong",
                    subject: path,
                    fix: "export it from the camera or editor as HDR10, HLG or SDR, or as Dolby Vision 8.1 or 8.4")
            }
            (layers.dolbyVisionProfile, layers.dolbyVisionCompatibility) =
                (Int(dovi.dv_profile), Int(dovi.dv_bl_signal_compatibility_id))
        }
        self.layers = layers
        let w = Int(par.pointee.width), h = Int(par.pointee.height)
        if w > 0, h > 0, ImageDecoder.exceeds(w, h, maxPixels) { throw ImageDecoder.overLimit(w, h, maxPixels, name: path) }
        let trc = par.pointee.color_trc
        let transfer = trc == AVCOL_TRC_SMPTE2084 ? "PQ" : (trc == AVCOL_TRC_ARIB_STD_B67 ? "HLG" : nil)
        if let transfer, hdr == .refuse {
            throw SweepError(
                .dataError, "the video is HDR (\(transfer)), and HDR inputs are refused", subject: path,
                fix: "let sweep tone-map it to SDR (the default), or convert it first: ffmpeg -i IN -vf \(ToneMapper.chain) OUT.mp4",
                field: .hdr)
        }
        hdrTransfer = transfer
        toneMapper =
            transfer == nil
            ? nil : ToneMapper(subject: path, streamTags: (trc, par.pointee.color_primaries, par.pointee.color_space))
        hdrFrame = try FrameHandle()
        let name = String(cString: avcodec_get_name(par.pointee.codec_id))
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else {
            throw SweepError(
                .unavailable, "this FFmpeg cannot decode the video's codec (\(name))", subject: path,
                fix: "convert the clip to H.264 first, or install an FFmpeg that decodes \(name)")
        }
        guard Self.codecs.contains(String(cString: codec.pointee.name)) else {
            throw SweepError(
                .unavailable, "sweep does not read video coded as \(name)", subject: path,
                fix: "convert the clip to H.264, HEVC, VP9, AV1 or ProRes first")
        }
        decoder = try CodecContextHandle(codec: codec)
        let dec = decoder.ptr
        try FFmpegCall.check(
            avcodec_parameters_to_context(dec, par), "cannot copy codec parameters", subject: path, kind: .internalError)
        let frameBytes = av_image_get_buffer_size(AVPixelFormat(par.pointee.format), Int32(w), Int32(h), 64)
        dec.pointee.thread_count = Int32(
            try DecoderMemory.threads(
                frameBytes: frameBytes > 0 ? Int(frameBytes) : w * h * 3, codec: par.pointee.codec_id, width: w, height: h,
                budget: maxMemory, cores: ProcessInfo.processInfo.activeProcessorCount, path: path))
        // Capped at the pixel limit, not the first picture's size: a WebRTC or MediaRecorder
        // clip grows part-way (640×360 to 1920×1080), and each frame is checked against the
        // limit as it comes.
        dec.pointee.max_pixels = ImageDecoder.decoderPixelCap(width: 0, height: 0, maxPixels: maxPixels)
        dec.pointee.pkt_timebase = st.pointee.time_base
        try FFmpegCall.check(
            avcodec_open2(dec, codec, nil), "cannot open the \(name) decoder", subject: path, kind: .unavailable,
            fix: "convert the clip to H.264 first")
        timeBase = av_q2d(st.pointee.time_base)
        // Only an AVI with B-frames: without them FFmpeg's times are the frames' own, and a
        // packet that gives no frame (before the first key frame) must not shift the rest.
        decodeOrder =
            container == "avi" && par.pointee.video_delay > 0
            ? try Self.decodeOrder(path, stream: index) : nil
        streamTimeBase = st.pointee.time_base
        let sar = st.pointee.sample_aspect_ratio.num > 0 ? st.pointee.sample_aspect_ratio : par.pointee.sample_aspect_ratio
        let aspect = sar.num > 0 && sar.den > 0 ? av_q2d(sar) : 1
        // Beyond 1:4…4:1 a tag is damage, not a pixel shape.
        pixelAspect = aspect.isFinite && aspect >= 0.25 && aspect <= 4 ? aspect : 1
        orientation = Self.orientation(st)
        current = try FrameHandle()
        upcoming = try FrameHandle()
        packet = try PacketHandle()
        // The clip's length: the stream's own, else the container's.
        let streamDuration = st.pointee.duration != sweep_av_nopts_value() ? Double(st.pointee.duration) * timeBase : nil
        let formatDuration =
            ctx.pointee.duration != sweep_av_nopts_value() ? Double(ctx.pointee.duration) / Double(sweep_av_time_base) : nil
        let codedH = h > 0 ? h : Int(dec.pointee.height)
        (storedWidth, storedHeight) = (w > 0 ? w : Int(dec.pointee.width), codedH)
        // Probing decodes a frame when the header has no size; none means the stream is
        // damaged past reading, and a 0×0 clip would render as a 2×2 smear.
        guard storedWidth > 0, storedHeight > 0 else {
            throw SweepError(
                .dataError, "the video stream gives no picture size (the file is damaged)", subject: path,
                fix: "re-encode the clip first: ffmpeg -i IN -c:v libx264 OUT.mp4")
        }
        let codedW = Self.displayWidth(storedWidth, pixelAspect)
        (width, height) = orientation >= 5 ? (codedH, codedW) : (codedW, codedH)
        // The container's length is the video's only when it holds nothing else: a browser's
        // or OBS's recording often has sound running past its last frame.
        // An AVI's header counts the empty chunks of its encoder's delay, which take no time.
        let delay = Double(decodeOrder?.delay ?? 0) * timeBase
        let stated = (streamDuration ?? (ctx.pointee.nb_streams == 1 ? formatDuration : nil)).map { $0 - delay }
        var rate = Self.nominalRate(real: st.pointee.r_frame_rate, average: st.pointee.avg_frame_rate)
        // Frames that do not come at one rate (a phone alternating 30 and 24 fps, a rate that
        // drifts down in the dark, pauses): the stated and the average rate part (or, where the
        // container does not count its frames, the average is a guess from the first few), and
        // at either some frames could never show. The first packets' times give the highest
        // rate the frames steadily come at instead (``steadyTiming(_:tolerance:)``).
        var steadyGrid = true
        let (real, average) = (av_q2d(st.pointee.r_frame_rate), av_q2d(st.pointee.avg_frame_rate))
        let parted = real.isFinite && average.isFinite && real > 0 && average > 0 && abs(real - average) > average * 0.01
        if parted || st.pointee.nb_frames <= 0 {
            let tick = av_q2d(st.pointee.time_base)
            let times = try Self.packetTimes(path, stream: index, limit: parted ? Self.steadyPackets : Self.steadyPackets / 4)
            let timing = Self.steadyTiming(
                times.map { Double($0) * tick }, tolerance: max(tick / 2, 0.001), stated: [real, average].filter(\.isFinite))
            if let steady = timing {
                if parted || abs(steady.rate - rate) > rate * 0.01 { rate = steady.rate }
                steadyGrid = steady.onGrid
            }
        }
        // The packets set the length, read to their end without decoding: a header's length
        // may be bogus (a fragmented MP4 saying 0xFFFFFFFF ticks) or outlast a file cut short.
        // A packet lasts at least one frame at the clip's rate: FLV and Matroska store 1 ms
        // or nothing for the last one, which would leave its frame no time on screen.
        var scan = try Self.scanLength(
            path, stream: index, timeBase: timeBase, start: Ticks.sane(st.pointee.start_time), near: stated ?? formatDuration,
            shortestFrame: Ticks.of(seconds: 1 / rate, in: st.pointee.time_base), decodeTimes: decodeOrder != nil)
        if scan.length > delay { scan.length -= delay }
        var length = stated ?? 0
        if scan.length > 0, length <= 0 || abs(scan.length - length) > Self.lengthSlack(rate: rate) {
            if length > scan.length {
                statedEnd = (frames: scan.length, stated: length)
                if let last = scan.lastPacket { packetLimit = last }
            }
            length = scan.length
        }
        if st.pointee.nb_frames <= 0, rate > 60, length * rate > Self.countedAbove {
            // A high rate a container states without counting its frames (Matroska, WebM, TS:
            // the average comes from the first few) may be a lie: three frames 208 s apart at
            // "240 fps" would make 100 000 output frames. The packets are counted (no
            // decoding); when far fewer than the rate says, the clip's real rate is taken.
            let expected = Int(length * rate)
            let counted = try Self.countPackets(path, stream: index, enough: expected / 2)
            if counted < expected / 2 { rate = Double(max(1, counted)) / length }
        }
        frameRate = rate
        onGrid = steadyGrid
        // Timestamps rounded to the time base may come up to half a tick late. A time base of
        // half a frame or more counts whole frames (AVI's is one frame): nothing is rounded,
        // and half a tick would show each frame early.
        // Frames off a steady grid are matched to the nearest output frame (half a frame each
        // way): a frame a few ms early or late still gets its own.
        timeTolerance =
            !steadyGrid ? 0.5 / frameRate : timeBase * frameRate >= 0.5 ? 0.001 : max(timeBase / 2, 0.001)
        if start > 0, length > 0, start >= length {
            throw SweepError(
                .usage, String(format: "the clip lasts %.2f s, so nothing is left from %g s on", length, start), subject: path,
                fix: "choose an earlier start", field: .start)
        }
        // Time 0 comes from the clip's first frame whatever the start, so a start counts from
        // where playing from the beginning would; then the clip is sought to `start`.
        guard try decodeNext(into: upcoming.ptr, after: nil) else {
            throw SweepError(.dataError, "the video has no frames it can decode", subject: path, fix: "re-export the clip")
        }
        let first = upcoming.ptr.pointee.best_effort_timestamp
        let firstIsKey = upcoming.ptr.pointee.key_frame != 0
        origin = Self.origin(streamStart: st.pointee.start_time, firstFrame: first, timeBase: timeBase)
        hasUpcoming = true
        if start > 0 {
            let startTicks = Ticks.of(seconds: start, in: st.pointee.time_base)
            try seek(to: origin + startTicks)
            // The clip's time 0 becomes `start` after its time 0.
            origin += startTicks
            try advance(to: 0)
            length -= Double(startTicks) * timeBase
        }
        // The stated and scanned lengths count from the stream's start, the clip's time 0: frames
        // at its head that cannot be decoded (a transport stream cut mid-GOP) leave its end where it is.
        if length <= 0 { length = 1 / frameRate }
        duration = length
        // Only an MP4's index is read when it opens (a fragmented one's, as far as the
        // fragments read) and lists key frames alone:
        // Matroska reads its cues at the first seek, a transport stream's entries are the
        // packets a seek probed, and an AVI with B-frames is never sought. Off a steady grid,
        // a frame just due may be held back (``advance(to:)``), which a frame landed on by a
        // seek is not: decoding on gives the frames playing gives.
        seeksByIndex = decodeOrder == nil && onGrid && container.hasPrefix("mov,")
        if seeksByIndex {
            keyDelay = Self.keyDelay(st, firstFrame: firstIsKey ? first : nil, timeBase: timeBase, frameRate: frameRate)
            keyFrameTimes = Self.keyFrames(st, origin: origin, delay: keyDelay, timeBase: timeBase, duration: length)
        }
    }

    /// How much later than its listed time a key frame shows, in stream ticks: an MP4 lists
    /// decode times, which B-frames put before the frames show. Measured on the first key
    /// frame that plays when it is the first frame shown (`firstFrame`, its time; nil when the
    /// first frame shown is not a key frame, as in a clip trimmed by an edit list), constant
    /// as encoders keep it; otherwise, or when that is not between none and a second, the
    /// decoder's reorder delay in frames.
    static func keyDelay(_ st: UnsafeMutablePointer<AVStream>, firstFrame: Int64?, timeBase: Double, frameRate: Double) -> Int64 {
        // The first key frame that plays, looked for among the first 10 000 entries.
        var listed: Int64 = 0
        let found = (0..<min(avformat_index_get_entries_count(st), 10_000)).contains { sweep_index_keyframe(st, $0, &listed) != 0 }
        if found, let ts = Ticks.sane(listed), let first = firstFrame.flatMap(Ticks.sane) {
            let d = Double(first) - Double(ts)
            if d >= 0 && d * timeBase <= 1 { return Int64(d) }
        }
        guard timeBase > 0, frameRate > 0 else { return 0 }
        let frames = Double(max(0, min(16, st.pointee.codecpar.pointee.video_delay)))
        return Int64((frames / frameRate / timeBase).rounded())
    }

    /// The clip times (from `origin`) of the key frames in `st`'s index within the clip's
    /// `duration`, each shown `delay` ticks after its listed (decode) time, thinned evenly to
    /// at most ``maxKeyFrames``. Times a file could not mean (``Ticks/sane(_:)``) are skipped.
    static func keyFrames(
        _ st: UnsafeMutablePointer<AVStream>, origin: Int64, delay: Int64, timeBase: Double, duration: Double
    ) -> [Double] {
        var times: [Double] = []
        var listed: Int64 = 0
        for i in 0..<avformat_index_get_entries_count(st) where sweep_index_keyframe(st, i, &listed) != 0 {
            guard let ts = Ticks.sane(listed) else { continue }
            let t = (Double(ts) + Double(delay) - Double(origin)) * timeBase
            if t >= 0 && t < duration && t > (times.last ?? -1) { times.append(t) }
        }
        guard times.count > maxKeyFrames else { return times }
        return (0..<maxKeyFrames).map { times[$0 * times.count / maxKeyFrames] }
    }

    /// The clip's time 0 in stream ticks: the stream's start, as a player and ``AudioTrack``
    /// count it, so that sound and frames stay together when the first frames cannot be
    /// decoded (a transport stream cut mid-GOP: its first decodable frame is shown from time 0
    /// until the next one is due). The first decoded frame when the stream gives no start,
    /// or one more than 10 s away from it (a crafted time).
    static func origin(streamStart: Int64, firstFrame: Int64, timeBase: Double) -> Int64 {
        guard let start = Ticks.sane(streamStart), Double(abs(firstFrame - start)) * timeBase <= 10 else { return firstFrame }
        return min(start, firstFrame)
    }

    /// The rate a clip is meant to play at: the stream's nominal rate (`r_frame_rate`, the
    /// rate its timestamps are laid out on) when it is a plausible frame rate (``FrameRateRange``) within
    /// 5 % of the average over its length, else the average, else 25. The average of a
    /// phone's 15 fps clip with one late frame is 14.99; played at 14.99 the output would drop
    /// one frame and double another. Further apart, the nominal rate is not the rate frames
    /// come at: 50 for a 25 fps interlaced broadcast (a field rate), or the 60 or 120 ticks
    /// of a screen recording with variable timing.
    static func nominalRate(real: AVRational, average: AVRational) -> Double {
        func plausible(_ r: AVRational) -> Double? {
            guard r.num > 0, r.den > 0 else { return nil }
            let v = av_q2d(r)
            return FrameRateRange.contains(v) ? v : nil
        }
        let nominal = plausible(real), mean = plausible(average)
        let rate: Double
        if let nominal, let mean {
            if abs(nominal - mean) <= mean * 0.05 || (mean < nominal && nominal <= 60 && abs(nominal - 2 * mean) > mean * 0.1) {
                // Within 5 %, or fewer frames than a camera's or screen recorder's clock (up to
                // 60 fps) ticks: a recorder that writes only changed frames, whose frames are held.
                rate = nominal
            } else {
                // A field rate (twice the frames), a time base's tick (120, 1000), or more frames than said.
                rate = mean
            }
        } else {
            rate = nominal ?? mean ?? 25
        }
        // Millisecond timestamps give rates such as 59.94006 for 59.94: take the standard
        // rate within 0.01 %, so that the output's rate is exact.
        let standard = [24, 25, 30, 48, 50, 60, 120].flatMap { [Double($0), Double($0 * 1000) / 1001] }
        return standard.first { abs($0 - rate) < rate * 1e-4 } ?? rate
    }

    /// A stored width in square pixels.
    static func displayWidth(_ stored: Int, _ pixelAspect: Double) -> Int {
        pixelAspect == 1 ? stored : max(1, Int((Double(stored) * pixelAspect).rounded()))
    }

    /// Above this many frames (stated rate × length), a high stated rate is checked by
    /// counting packets: a few seconds of clip are trusted as they are.
    static let countedAbove = 2000.0

    /// Packets whose times ``steadyRate(_:tolerance:)`` looks at: half a minute at 30 fps.
    static let steadyPackets = 1000

    /// How the frames of a stream with decode times only are timed. AVI stores one chunk per
    /// frame tick and no presentation times, so with B-frames FFmpeg 5.1 times each frame by
    /// the packet that let it out of the decoder: the first frames late by the decoder's delay,
    /// the last ones with no time. Frames come out in display order, and the times they are
    /// due are the packets' own; so each frame takes the earliest packet time not yet taken.
    ///
    /// An encoder with B-frames writes empty chunks after the first frame for its delay
    /// (x264vfw, Xvid): they are not frames, FFmpeg decodes none, and they take no time (later
    /// packets move up by `delay`). An empty chunk later on is a dropped frame: the frame
    /// before it stays on screen.
    struct DecodeOrder {
        /// The first packet's time, in stream ticks.
        var first: Int64
        /// Ticks of empty chunks between the first packet and the second.
        var delay: Int64
        /// One frame, in ticks.
        var tick: Int64
    }

    /// The most packet times kept waiting for their frames: far more than a decoder's delay.
    static let maxPendingTimes = 64

    /// The most empty chunks taken for an encoder's delay: B-frame encoders delay a few frames.
    static let maxDelayChunks: Int64 = 16

    /// Reads the first two packets of `stream` for its ``DecodeOrder``.
    static func decodeOrder(_ path: String, stream: Int32) throws -> DecodeOrder {
        let input = try InputFormatContext(untrusted: path, what: "not a video sweep can read")
        let packet = try PacketHandle()
        var times: [Int64] = [], tick: Int64 = 1
        while times.count < 2, av_read_frame(input.ptr, packet.ptr) >= 0 {
            defer { av_packet_unref(packet.ptr) }
            let p = packet.ptr.pointee
            guard p.stream_index == stream, p.size > 0, let t = Ticks.sane(p.dts) ?? Ticks.sane(p.pts) else { continue }
            if times.isEmpty, p.duration > 0 { tick = p.duration }
            times.append(t)
        }
        guard times.count == 2 else { return DecodeOrder(first: times.first ?? 0, delay: 0, tick: tick) }
        let gap = times[1] - times[0] - tick
        return DecodeOrder(first: times[0], delay: gap > 0 && gap <= maxDelayChunks * tick ? gap : 0, tick: tick)
    }

    /// The presentation times of the first `limit` packets of `stream`, read without decoding.
    static func packetTimes(_ path: String, stream: Int32, limit: Int) throws -> [Int64] {
        let input = try InputFormatContext(untrusted: path, what: "not a video sweep can read")
        let packet = try PacketHandle()
        var times: [Int64] = []
        while times.count < limit, av_read_frame(input.ptr, packet.ptr) >= 0 {
            defer { av_packet_unref(packet.ptr) }
            if packet.ptr.pointee.stream_index == stream, let pts = Ticks.sane(packet.ptr.pointee.pts) { times.append(pts) }
        }
        return times
    }

    /// The highest rate frames steadily come at, from their times (seconds): one over the
    /// shortest interval between neighbours, leaving out intervals under ¾ of the 10th
    /// percentile (a glitch, not a rate). Intervals within `tolerance` (the timestamps'
    /// rounding) of the shortest are averaged, and the highest standard rate (or `stated`
    /// one: the stream's own) whose frame time is within `tolerance` of that average is
    /// taken: Matroska's 33 and 34 ms are 30 fps.
    /// `onGrid` tells whether every interval is a whole number of frames at that rate
    /// (within 2 `tolerance`): pauses are, but alternating, drifting or jittering times are
    /// not. `nil` for fewer than three frames.
    ///
    /// Frames alternating 30 and 24 fps give 30; a rate drifting from 30 to 24 gives 30; a
    /// 30 fps clip with pauses gives 30; frames jittering about 30 fps give the rate of their
    /// shortest interval, above 30.
    static func steadyTiming(_ times: [Double], tolerance: Double, stated: [Double] = []) -> (rate: Double, onGrid: Bool)? {
        let sorted = times.filter(\.isFinite).sorted()
        let gaps = zip(sorted.dropFirst(), sorted).map { $0 - $1 }.filter { $0 > 1e-6 }.sorted()
        guard gaps.count >= 2 else { return nil }
        let tenth = gaps[gaps.count / 10]
        let steadyGaps = gaps.filter { $0 >= 0.75 * tenth }
        guard let shortest = steadyGaps.first else { return nil }
        let near = steadyGaps.prefix { $0 <= shortest + tolerance }
        let frameTime = near.reduce(0, +) / Double(near.count)
        let standard = [24, 25, 30, 48, 50, 60, 120].flatMap { [Double($0), Double($0 * 1000) / 1001] } + stated
        let rate = standard.filter { $0 > 0 && abs(1 / $0 - frameTime) <= tolerance }.max() ?? 1 / shortest
        guard FrameRateRange.contains(rate) else { return nil }
        let onGrid = steadyGaps.allSatisfy { abs($0 * rate - ($0 * rate).rounded()) / rate <= 2 * tolerance }
        return (rate, onGrid)
    }

    /// The video packets of `stream`, read without decoding; stops at `enough`.
    static func countPackets(_ path: String, stream: Int32, enough: Int) throws -> Int {
        let input = try InputFormatContext(untrusted: path, what: "not a video sweep can read")
        let packet = try PacketHandle()
        var count = 0
        while count < enough, av_read_frame(input.ptr, packet.ptr) >= 0 {
            if packet.ptr.pointee.stream_index == stream { count += 1 }
            av_packet_unref(packet.ptr)
        }
        return count
    }

    /// A stated length within this of the packets' is taken as it is: Matroska may leave the
    /// last frame's duration out, so its packets end up to a frame early.
    static func lengthSlack(rate: Double) -> Double { max(0.05, 1.5 / rate) }

    /// What the packets of a stream say, read without decoding.
    struct PacketScan {
        /// Seconds from the stream's start (or its first packet) to the end of its last whole packet.
        var length: Double
        /// The decode timestamp of the last whole packet, when the read stopped there.
        var lastPacket: Int64?
    }

    /// The length of a stream: the end of its last whole packet (one the demuxer did not flag
    /// cut), read without decoding, from the stream's first timestamp. Packets an edit list
    /// leaves out (flagged discard: an iPhone clip's frame past its edit) do not count; each
    /// packet lasts at least `shortestFrame` ticks.
    ///
    /// Given the stream's `start` and a length to look near (`near`, seconds: the header's),
    /// only the packets from the key frame 1 s before it on are read; when the seek finds
    /// none there (the header says more than the file holds), the stream is read from its start.
    static func scanLength(
        _ path: String, stream: Int32, timeBase: Double, start: Int64? = nil, near: Double? = nil, shortestFrame: Int64 = 0,
        decodeTimes: Bool = false
    ) throws -> PacketScan {
        func scan(seek: Bool) throws -> (first: Int64?, end: Int64, last: Int64?, packets: Int) {
            let input = try InputFormatContext(untrusted: path, what: "not a video sweep can read")
            let packet = try PacketHandle()
            var first: Int64?, end: Int64 = 0, last: Int64?, packets = 0
            if seek, let start, let near, near.isFinite, near > 2, near < 1e9 {
                let target = Int64((near - 1) * Double(sweep_av_time_base))
                if av_seek_frame(input.ptr, -1, target, sweep_avseek_flag_backward) >= 0 { first = start }
            }
            while av_read_frame(input.ptr, packet.ptr) >= 0 {
                defer { av_packet_unref(packet.ptr) }
                let p = packet.ptr.pointee
                guard p.stream_index == stream, p.flags & (AV_PKT_FLAG_CORRUPT | AV_PKT_FLAG_DISCARD) == 0,
                    let pts = Ticks.sane(p.pts) ?? (decodeTimes ? Ticks.sane(p.dts) : nil)
                else { continue }
                packets += 1
                first = min(first ?? pts, pts)
                end = max(end, pts + min(max(0, p.duration, shortestFrame), Ticks.bound))
                last = Ticks.sane(p.dts) ?? pts
            }
            return (first, end, last, packets)
        }
        var found = try scan(seek: true)
        if found.packets == 0, found.first != nil { found = try scan(seek: false) }
        return PacketScan(length: found.first.map { Double(found.end - $0) * timeBase } ?? 0, lastPacket: found.last)
    }

    /// Tells the decoder the output frame it draws into, so that HDR frames are tone-mapped at
    /// the size they are shown (a 4K phone clip in a 1080p video: a quarter of the work).
    /// Frames of the size the output takes skip a second scale. Without it, or for SDR
    /// clips, nothing changes.
    package func expectOutput(width w: Int, height h: Int, fit: FitMode) {
        guard toneMapper != nil, w > 0, h > 0 else { return }
        let place = FitPlacement(sourceWidth: width, sourceHeight: height, width: w, height: h, mode: fit)
        let s = max(Double(place.destination.width) / place.source.width, Double(place.destination.height) / place.source.height)
        guard s.isFinite, s > 0, s < 0.95 else {
            toneMapSize = nil
            return
        }
        func even(_ v: Int) -> Int32 { Int32(max(2, Int((Double(v) * s / 2).rounded(.up)) * 2)) }
        toneMapSize = (even(storedWidth), even(storedHeight))
    }

    /// The orientation tag for the stream's display matrix: the turn and mirror a player
    /// applies (see ``orientation(matrix:)``).
    static func orientation(_ st: UnsafeMutablePointer<AVStream>) -> Int {
        guard let m = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, nil) else { return 1 }
        return m.withMemoryRebound(to: Int32.self, capacity: 9) { p in orientation(matrix: (0..<9).map { p[$0] }) }
    }

    /// The EXIF orientation (1–8) of a display matrix (a, b, u, c, d, v, x, y, w as a track
    /// header stores it; a displayed point is (a·x + c·y, b·x + d·y)). The larger pair of
    /// a, d and b, c says whether the picture turns a quarter; their signs say which way and
    /// whether it is mirrored, so a transpose (determinant −1) is told from a plain turn. A
    /// matrix between quarter turns takes the nearest one.
    static func orientation(matrix m: [Int32]) -> Int {
        guard m.count >= 5 else { return 1 }
        let (a, b, c, d) = (Double(m[0]), Double(m[1]), Double(m[3]), Double(m[4]))
        if abs(a) + abs(d) >= abs(b) + abs(c) {
            switch (a < 0, d < 0) {
            case (false, false): return 1
            case (true, false): return 2  // mirrored left to right
            case (true, true): return 3  // upside down
            case (false, true): return 4  // mirrored top to bottom
            }
        }
        switch (b < 0, c < 0) {
        case (false, false): return 5  // transposed
        case (false, true): return 6  // 90° clockwise
        case (true, true): return 7  // transversed
        case (true, false): return 8  // 90° counter-clockwise
        }
    }

    /// Seeks to the key frame at or before `target` (stream ticks) and decodes its first
    /// frame into `upcoming`, so that playing forward reaches `target` with every frame before
    /// it decoded.
    ///
    /// A demuxer may land after the target (an index that is coarse or missing): then the
    /// seek goes back 1, 4 and 16 s further, and at last to `floor` (the clip's start unless
    /// given). A first seek the demuxer cannot make keeps the frames as they are: playing
    /// forward reaches `target` too, only slower; a later one tries the next step back.
    private func seek(to target: Int64, floor: Int64? = nil) throws {
        // An AVI with B-frames plays from its start: after a seek to a key frame, the frames
        // coded before it in display order are dropped, and which packet times are left to
        // the frames that come out cannot be told (``DecodeOrder``).
        let backoffs: [Double?] = decodeOrder != nil ? [nil] : [0, 1, 4, 16, nil]
        let floor = max(floor ?? origin, origin)
        var flushed = false
        for back in backoffs {
            let goal = back.map { target - Ticks.of(seconds: $0, in: streamTimeBase) } ?? floor
            // The demuxer seeks by its own times, which an encoder's delay puts later (``DecodeOrder``).
            var at = max(goal, floor)
            if let order = decodeOrder, at > order.first { at += order.delay }
            // A seek that fails before anything was dropped keeps the frames as they are;
            // after, the next step back is tried.
            guard av_seek_frame(input.ptr, streamIndex, at, sweep_avseek_flag_backward) >= 0 else {
                if flushed { continue }
                return
            }
            flushed = true
            avcodec_flush_buffers(decoder.ptr)
            pendingTimes.removeAll()
            // Frames decoded ahead were before the seek.
            while let queued = ahead.popFirst() { ahead.recycle(queued) }
            aheadEnd = nil
            (demuxEnded, drained, hasCurrent, hasUpcoming) = (false, false, false, false)
            hasUpcoming = try decodeNext(into: upcoming.ptr, after: nil)
            guard hasUpcoming else { continue }
            let landed = upcoming.ptr.pointee.best_effort_timestamp
            if Double(landed - target) * timeBase <= timeTolerance || goal <= floor { return }
        }
        guard hasUpcoming else {
            throw corrupt(at: Double(target - origin) * timeBase, detail: "no frame can be decoded from there")
        }
    }

    /// How far ahead of the next frame a time must be, and a key frame before it, for
    /// ``advance(to:)`` to seek rather than decode every frame between.
    static let seekAhead = 1.0

    /// Seeks to the key frame before `t` when the demuxer's index places one more than
    /// ``seekAhead`` past the next frame: decoding from it gives the same frame at `t` as
    /// decoding every frame between, only faster. A size cap's sample jumps so between its
    /// runs, and a GIF's palette samples between theirs. Only an MP4 on a steady grid seeks
    /// so (see where ``seeksByIndex`` is set); other clips decode on.
    private func skipAhead(to t: Double) throws {
        guard seeksByIndex, hasUpcoming, t - seconds(upcoming.ptr) > Self.seekAhead,
            let st = input.ptr.pointee.streams[Int(streamIndex)], let next = Ticks.sane(upcoming.ptr.pointee.best_effort_timestamp)
        else { return }
        let target = origin &+ Ticks.of(seconds: t, in: streamTimeBase)
        // The index is searched by decode time: the key frame showing at or before `target`.
        guard let key = Ticks.sane(sweep_index_keyframe_at_or_before(st, target &- keyDelay)),
            (Double(key) + Double(keyDelay) - Double(next)) * timeBase > Self.seekAhead
        else { return }
        // Should the seek land late, it goes back no further than the next frame's key frame:
        // from there, decoding on as without the seek.
        try seek(to: target, floor: next)
        seeksAhead += 1
    }

    /// The clip's time of a decoded frame.
    private func seconds(_ f: UnsafeMutablePointer<AVFrame>) -> Double {
        (Double(f.pointee.best_effort_timestamp) - Double(origin)) * timeBase
    }

    /// Makes the frame on screen at `t` (clip seconds) current; past the end the last frame stays.
    package func advance(to t: Double) throws {
        try skipAhead(to: t)
        // A frame is on screen from its timestamp on, give or take the timestamps' rounding.
        while hasUpcoming, !hasCurrent || seconds(upcoming.ptr) <= t + timeTolerance {
            // Off a steady grid, a frame not shown yet keeps this output frame when the next one
            // is only just due (less than half a frame ago): the next shows at the next output
            // frame, so that none is lost to rounding.
            if !onGrid, hasCurrent, !currentShown, seconds(upcoming.ptr) > t - timeTolerance { break }
            swap(&current, &upcoming)
            hasCurrent = true
            currentShown = false
            frameNumber += 1
            hasUpcoming = false  // until the next one decodes whole
            hasUpcoming = try nextFrame()
        }
        currentShown = true
        // Frames ran out well before the length the file claims: it was cut short.
        if !hasUpcoming, t < duration - 1e-3, t - currentTime > max(0.5, 3 / frameRate) {
            throw corrupt(at: currentTime, detail: "no frames after it")
        }
    }

    /// The clip time of the frame on screen.
    package var currentTime: Double { hasCurrent ? seconds(current.ptr) : 0 }

    /// The frame after the current one has been decoded, or the clip has ended.
    package var ended: Bool { !hasUpcoming }

    /// Decodes the frame after `current` into `upcoming`, or takes it from those decoded
    /// ahead; `false` at the end.
    private func nextFrame() throws -> Bool {
        if let queued = ahead.popFirst() {
            av_frame_unref(upcoming.ptr)
            av_frame_move_ref(upcoming.ptr, queued)
            ahead.recycle(queued)
            return true
        }
        switch aheadEnd {
        case .success: return false
        case let .failure(error): throw error
        case nil: return try decodeNext(into: upcoming.ptr, after: current.ptr)
        }
    }

    /// Decodes one more frame after those due, so that it is ready when the clip reaches it
    /// (a decode worker calls this while the render composes). Holds at most `limit`; false
    /// when it did nothing: enough are held, the clip's end or an error was met (given by
    /// ``advance(to:)`` when it reaches them), or no frame is on screen yet. HDR frames are
    /// tone-mapped at the size ``expectOutput(width:height:fit:)`` gave before they were decoded.
    package func decodeAhead(limit: Int) -> Bool {
        guard hasCurrent, hasUpcoming, aheadEnd == nil, ahead.count < limit else { return false }
        let previous = ahead.last ?? upcoming.ptr
        do {
            let frame = try ahead.spare()
            if try decodeNext(into: frame, after: previous) {
                ahead.append(frame)
            } else {
                ahead.recycle(frame)
                aheadEnd = .success(())
            }
        } catch {
            aheadEnd = .failure(error)
        }
        return true
    }

    /// Decodes the next frame in presentation order into `frame`; `false` at the end.
    /// `previous` is the frame before it (nil before the first): a frame without a time
    /// follows it, and damage is placed at its time.
    private func decodeNext(into frame: UnsafeMutablePointer<AVFrame>, after previous: UnsafeMutablePointer<AVFrame>?) throws -> Bool {
        // An HDR frame is decoded aside and tone-mapped into `frame`.
        let dec = decoder.ptr, f = toneMapper == nil ? frame : hdrFrame.ptr
        let previousTime = previous.map { seconds($0) } ?? 0
        while true {
            let got = avcodec_receive_frame(dec, f)
            if got >= 0 {
                if f.pointee.decode_error_flags != 0 || (f.pointee.flags & AV_FRAME_FLAG_CORRUPT) != 0 || f.pointee.format < 0
                    || f.pointee.width <= 0 || f.pointee.height <= 0
                {
                    throw corrupt(at: previous == nil ? 0 : seconds(f))
                }
                if let order = decodeOrder {
                    // Frames come out in display order: each takes the earliest time of the
                    // packets still in the decoder (FFmpeg's guess is the decode time of the
                    // packet that let it out: late by the decoder's delay, and none for the last).
                    // The decoder holds at most its delay plus a packet per thread: older times
                    // are packets that gave no frame (before a key frame, damage), dropped.
                    let held = max(Int(dec.pointee.has_b_frames), 2) + max(1, Int(dec.pointee.thread_count)) + 1
                    if pendingTimes.count > held { pendingTimes.removeFirst(pendingTimes.count - held) }
                    f.pointee.best_effort_timestamp =
                        pendingTimes.isEmpty
                        ? previous.map { $0.pointee.best_effort_timestamp + order.tick } ?? 0 : pendingTimes.removeFirst()
                }
                // A frame without a usable time follows the one before it.
                if Ticks.sane(f.pointee.best_effort_timestamp) == nil {
                    f.pointee.best_effort_timestamp = previous.map { $0.pointee.best_effort_timestamp + 1 } ?? 0
                }
                let fw = Int(f.pointee.width), fh = Int(f.pointee.height)
                if ImageDecoder.exceeds(fw, fh, maxPixels) { throw ImageDecoder.overLimit(fw, fh, maxPixels, name: path, claims: false) }
                if let toneMapper {
                    defer { av_frame_unref(f) }
                    try toneMapper.map(f, into: frame, size: toneMapSize)
                }
                return true
            }
            if got == sweep_averror_eof() { return false }
            if got != sweep_averror(EAGAIN) { throw corrupt(at: previousTime) }
            if demuxEnded {
                if drained { return false }
                drained = true
                _ = avcodec_send_packet(dec, nil)
                continue
            }
            let r = av_read_frame(input.ptr, packet.ptr)
            if r == sweep_averror_eof() {
                demuxEnded = true
                continue
            }
            if r < 0 {
                // A read error part-way (truncated or damaged container).
                throw corrupt(at: previousTime, detail: FFmpegCall.message(r))
            }
            defer { av_packet_unref(packet.ptr) }
            guard packet.ptr.pointee.stream_index == streamIndex else { continue }
            if let packetLimit, let dts = Ticks.sane(packet.ptr.pointee.dts) ?? Ticks.sane(packet.ptr.pointee.pts), dts > packetLimit {
                demuxEnded = true
                continue
            }
            var infoSize = 0
            if let data = av_packet_get_side_data(packet.ptr, AV_PKT_DATA_ENCRYPTION_INFO, &infoSize) {
                let info = av_encryption_info_get_side_data(data, infoSize)
                defer { av_encryption_info_free(info) }
                throw Self.encrypted(path, scheme: info.map { Self.fourCC($0.pointee.scheme) })
            }
            if let order = decodeOrder, packet.ptr.pointee.size > 0,
                let time = Ticks.sane(packet.ptr.pointee.dts) ?? Ticks.sane(packet.ptr.pointee.pts)
            {
                let at = time > order.first ? time - order.delay : time
                pendingTimes.insert(at, at: pendingTimes.firstIndex { $0 > at } ?? pendingTimes.count)
                // A decoder holds a few frames; more times waiting are packets it dropped (damage).
                if pendingTimes.count > max(Self.maxPendingTimes, Int(dec.pointee.thread_count) + 24) { pendingTimes.removeFirst() }
            }
            let sent = avcodec_send_packet(dec, packet.ptr)
            if sent < 0 && sent != sweep_averror(EAGAIN) {
                throw corrupt(at: previousTime, detail: FFmpegCall.message(sent))
            }
        }
    }

    /// The refusal of an encrypted clip; `scheme` is its `cenc`, `cbcs`, … when known.
    static func encrypted(_ path: String, scheme: String?) -> SweepError {
        SweepError(
            .dataError, "the clip is encrypted (DRM\(scheme.map { ", scheme \($0)" } ?? "")); sweep cannot decrypt it", subject: path,
            fix: "use the unencrypted original")
    }

    /// A four-character code stored big-endian in an integer, as text.
    static func fourCC(_ v: UInt32) -> String {
        String(
            decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) }.map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x3F }, as: UTF8.self)
    }

    /// The stream's Dolby Vision configuration (`dvcC`, `dvvC` or `dvwC` in MP4, its block
    /// addition mapping in Matroska, its descriptor in MPEG-TS), as FFmpeg 5.1 exports it.
    static func dolbyVision(_ st: UnsafeMutablePointer<AVStream>) -> AVDOVIDecoderConfigurationRecord? {
        var size = 0
        guard let data = av_stream_get_side_data(st, AV_PKT_DATA_DOVI_CONF, &size),
            size >= MemoryLayout<AVDOVIDecoderConfigurationRecord>.size
        else { return nil }
        return UnsafeRawPointer(data).loadUnaligned(as: AVDOVIDecoderConfigurationRecord.self)
    }

    /// Clip time `t` as m:ss.sss (h:mm:ss.sss past an hour); a time a damaged file makes
    /// negative, endless or absurd is said in words (converting it to Int would trap).
    package static func clipTime(_ t: Double) -> String {
        guard t.isFinite, t >= 0, t < 1e9 else { return "an unreadable time" }
        let whole = Int(t), secs = t - Double(whole / 60 * 60)
        if whole < 3600 { return String(format: "%d:%06.3f", whole / 60, secs) }
        return String(format: "%d:%02d:%06.3f", whole / 3600, whole / 60 % 60, secs)
    }

    /// The error for damage found at clip time `t`.
    func corrupt(at t: Double, detail: String? = nil) -> SweepError {
        let when = Self.clipTime(t)
        return SweepError(
            .dataError, "the video is corrupt or truncated at \(when)\(detail.map { " (\($0))" } ?? "")", subject: path,
            fix: "re-export the clip, or end the comparison before that time")
    }

    /// True when the current frames are Y′CbCr and upright: they go to a BT.709 4:2:0 video
    /// by scaling (and, for another matrix, a remix in Y′CbCr), without RGB.
    package var convertsToVideoYUVDirectly: Bool {
        guard orientation == 1, hasCurrent, let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: current.ptr.pointee.format)) else {
            return false
        }
        return desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 && desc.pointee.nb_components >= 3
    }

    /// The Y′CbCr matrix a frame was coded with (see ``matrix(_:)``).
    private func yuvMatrix(_ f: UnsafeMutablePointer<AVFrame>) -> YUVMatrix {
        switch matrix(f) {
        case sweep_sws_cs_itu601: return .bt601
        case SWS_CS_SMPTE240M: return .smpte240m
        case SWS_CS_BT2020: return .bt2020
        default: return .bt709
        }
    }

    /// The swscale matrix for a frame: its tag, or BT.709 for untagged HD and BT.601 below.
    private func matrix(_ f: UnsafeMutablePointer<AVFrame>) -> Int32 {
        switch f.pointee.colorspace {
        case AVCOL_SPC_BT709: return sweep_sws_cs_itu709
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_FCC: return sweep_sws_cs_itu601
        case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020
        default: return f.pointee.height >= 720 ? sweep_sws_cs_itu709 : sweep_sws_cs_itu601
        }
    }

    /// Draws the current frame into `image` (the output frame) placed by `fit`; letterbox
    /// bars keep what `image` holds.
    package func draw(into image: inout RGBAImage, fit: FitMode) throws {
        let f = current.ptr
        let place = placement(of: f, in: image.width, image.height, fit: fit)
        let d = place.destination
        drawnArea = (d.x, d.y, d.width, d.height)
        let turned = orientation >= 5
        // Scale to the destination in the stored orientation, then turn it upright.
        let sw = turned ? d.height : d.width, sh = turned ? d.width : d.height
        let fullRange = f.pointee.color_range == AVCOL_RANGE_JPEG
        try prepareScaler(for: f, crop: crop(place, f, turned: turned), to: AV_PIX_FMT_RGBA, width: sw, height: sh) { s in
            try s.setColorspace(source: matrix(f), sourceFullRange: fullRange, destination: sweep_sws_cs_itu709, destinationFullRange: true)
        }
        let rect = crop(place, f, turned: turned)
        if orientation == 1 {
            try image.pixels.withUnsafeMutableBufferPointer { p in
                try scale(f, rect: rect, into: [p.baseAddress! + (d.y * image.width + d.x) * 4], strides: [image.width * 4], rows: sh)
            }
        } else {
            var scaled = RGBAImage(width: sw, height: sh)
            try scaled.pixels.withUnsafeMutableBufferPointer { p in
                try scale(f, rect: rect, into: [p.baseAddress!], strides: [sw * 4], rows: sh)
            }
            let upright = Orientation.upright(scaled, tag: orientation)
            let (w, row) = (image.width, d.width * 4)
            image.pixels.withUnsafeMutableBufferPointer { dst in
                upright.pixels.withUnsafeBufferPointer { src in
                    for y in 0..<d.height {
                        (dst.baseAddress! + ((d.y + y) * w + d.x) * 4).update(from: src.baseAddress! + y * row, count: row)
                    }
                }
            }
        }
    }

    /// Draws the current frame into 4:2:0 planes (BT.709, limited range) filling `image`.
    ///
    /// Meant for clips whose frames are ``convertsToVideoYUVDirectly`` and cover the output,
    /// chosen from the first frame. A clip may change size or pixel format part-way (an MJPEG
    /// AVI turning greyscale, a stream whose resolution changes): such a frame is drawn in
    /// RGBA, with black bars, and converted.
    package func draw(into image: inout YUVImage, fit: FitMode) throws {
        let f = current.ptr
        let place = placement(of: f, in: image.width, image.height, fit: fit)
        guard place.coversFrame && convertsToVideoYUVDirectly else {
            var rgba = RGBAImage(width: image.width, height: image.height)
            try draw(into: &rgba, fit: fit)
            image = try VideoWriter.yuv420(rgba, subject: path)
            return
        }
        let fullRange = f.pointee.color_range == AVCOL_RANGE_JPEG
        let rect = crop(place, f, turned: false)
        try prepareScaler(for: f, crop: rect, to: AV_PIX_FMT_YUV420P, width: image.width, height: image.height) { s in
            // Between Y′CbCr formats swscale changes range and depth, not the matrix (remixed below).
            try s.setColorspace(
                source: sweep_sws_cs_itu709, sourceFullRange: fullRange, destination: sweep_sws_cs_itu709, destinationFullRange: false)
        }
        let w = image.width
        if !copyPlanes(f, rect: rect, into: &image, fullRange: fullRange) {
            try image.y.withUnsafeMutableBufferPointer { y in
                try image.u.withUnsafeMutableBufferPointer { u in
                    try image.v.withUnsafeMutableBufferPointer { v in
                        try scale(
                            f, rect: rect, into: [y.baseAddress!, u.baseAddress!, v.baseAddress!], strides: [w, w / 2, w / 2],
                            rows: image.height)
                    }
                }
            }
        }
        yuvMatrix(f).convert(&image, to: .bt709)
    }

    /// A 4:2:0 8-bit limited-range frame already at the output size is copied plane by plane.
    private func copyPlanes(
        _ f: UnsafeMutablePointer<AVFrame>, rect: (x: Int, y: Int, w: Int, h: Int), into image: inout YUVImage, fullRange: Bool
    ) -> Bool {
        guard AVPixelFormat(rawValue: f.pointee.format) == AV_PIX_FMT_YUV420P, !fullRange, rect.w == image.width, rect.h == image.height
        else { return false }
        withUnsafeBytes(of: f.pointee.data) { data in
            withUnsafeBytes(of: f.pointee.linesize) { lines in
                func copy(_ p: Int, _ dst: inout [UInt8], _ x: Int, _ y: Int, _ w: Int, _ h: Int) {
                    let base = data.load(fromByteOffset: p * 8, as: UnsafeMutablePointer<UInt8>.self)
                    let stride = Int(lines.load(fromByteOffset: p * 4, as: Int32.self))
                    dst.withUnsafeMutableBufferPointer { d in
                        for row in 0..<h { (d.baseAddress! + row * w).update(from: base + (y + row) * stride + x, count: w) }
                    }
                }
                copy(0, &image.y, rect.x, rect.y, image.width, image.height)
                copy(1, &image.u, rect.x / 2, rect.y / 2, image.width / 2, image.height / 2)
                copy(2, &image.v, rect.x / 2, rect.y / 2, image.width / 2, image.height / 2)
            }
        }
        return true
    }

    /// The stored-pixel rectangle to read (x, y, width, height), even-aligned for chroma.
    private func crop(
        _ place: FitPlacement, _ f: UnsafeMutablePointer<AVFrame>, turned: Bool
    ) -> (x: Int, y: Int, w: Int, h: Int) {
        let s = place.source
        // Fill crops are centred, so in stored orientation they are centred too: swap axes.
        var (x, y, w, h) = turned ? (s.y, s.x, s.height, s.width) : (s.x, s.y, s.width, s.height)
        // The placement counts square pixels; stored pixels are `pixelAspect` of them wide.
        (x, w) = (x / pixelAspect, w / pixelAspect)
        // Within the frame as decoded (a stream may change size part-way).
        let storedW = Int(f.pointee.width), storedH = Int(f.pointee.height)
        let cx = min(Int(x.rounded()) & ~1, max(0, storedW - 1) & ~1), cy = min(Int(y.rounded()) & ~1, max(0, storedH - 1) & ~1)
        return (cx, cy, max(1, min(storedW - cx, Int(w.rounded()))), max(1, min(storedH - cy, Int(h.rounded()))))
    }

    /// Where the decoded frame lands in an output frame: from its own size, which may differ
    /// from the stream's first (a resolution change part-way).
    private func placement(of f: UnsafeMutablePointer<AVFrame>, in w: Int, _ h: Int, fit: FitMode) -> FitPlacement {
        let fw = Self.displayWidth(Int(f.pointee.width), pixelAspect), fh = Int(f.pointee.height)
        let (uw, uh) = orientation >= 5 ? (fh, fw) : (fw, fh)
        return FitPlacement(sourceWidth: uw, sourceHeight: uh, width: w, height: h, mode: fit)
    }

    /// Makes (or reuses) the scaler from the frame's format and crop to `format` at `width × height`.
    private func prepareScaler(
        for f: UnsafeMutablePointer<AVFrame>, crop: (x: Int, y: Int, w: Int, h: Int), to format: AVPixelFormat,
        width: Int, height: Int, configure: (borrowing ScalerHandle) throws -> Void
    ) throws {
        let toRGB = format == AV_PIX_FMT_RGBA
        let key = [
            Int(f.pointee.format), crop.w, crop.h, Int(format.rawValue), width, height, Int(f.pointee.colorspace.rawValue),
            Int(f.pointee.color_range.rawValue),
        ]
        if scaler != nil, key == scalerKey { return }
        let s = try ScalerHandle(
            width: crop.w, height: crop.h, from: AVPixelFormat(rawValue: f.pointee.format), to: format, subject: path,
            kind: .dataError, fix: "convert the clip to H.264 first", outputWidth: width, outputHeight: height, accurate: toRGB)
        try configure(s)
        scaler = consume s
        scalerKey = key
    }

    /// Runs the prepared scaler over `rect` of the frame into the given planes.
    private func scale(
        _ f: UnsafeMutablePointer<AVFrame>, rect: (x: Int, y: Int, w: Int, h: Int), into planes: [UnsafeMutablePointer<UInt8>],
        strides: [Int], rows: Int
    ) throws {
        guard let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: f.pointee.format)) else {
            throw SweepError(.dataError, "unknown pixel format", subject: path)
        }
        var src = [UnsafePointer<UInt8>?](repeating: nil, count: 4)
        var srcStrides = [Int32](repeating: 0, count: 4)
        // Each plane's start moves to the crop's corner (chroma planes by their subsampling).
        var step = [Int32](repeating: 0, count: 4)
        av_image_fill_max_pixsteps(&step, nil, desc)
        withUnsafeBytes(of: f.pointee.data) { data in
            withUnsafeBytes(of: f.pointee.linesize) { lines in
                for p in 0..<4 {
                    guard let base = data.load(fromByteOffset: p * 8, as: UnsafeMutablePointer<UInt8>?.self) else { continue }
                    let stride = Int(lines.load(fromByteOffset: p * 4, as: Int32.self))
                    let chroma = p == 1 || p == 2
                    let x = chroma ? rect.x >> Int(desc.pointee.log2_chroma_w) : rect.x
                    let y = chroma ? rect.y >> Int(desc.pointee.log2_chroma_h) : rect.y
                    src[p] = UnsafePointer(base + y * stride + x * Int(step[p]))
                    srcStrides[p] = Int32(stride)
                }
            }
        }
        var dst = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 4)
        var dstStrides = [Int32](repeating: 0, count: 4)
        for (i, p) in planes.enumerated() {
            dst[i] = p
            dstStrides[i] = Int32(strides[i])
        }
        guard let sws = scaler?.ptr else { throw SweepError(.internalError, "no scaler", subject: path) }
        let r = sws_scale(sws, &src, &srcStrides, 0, Int32(rect.h), &dst, &dstStrides)
        if r != Int32(rows) {
            try FFmpegCall.check(min(r, -1), "colour conversion failed", subject: path, kind: .dataError)
        }
    }
}
