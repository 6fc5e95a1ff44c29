import CFFmpeg
import SweepSupport

/// Answers, cheaply, whether a file has sound to carry into a video.
public enum AudioProbe {
    /// True when `path` opens as a media file and has an audio stream this FFmpeg can decode.
    ///
    /// Meant for choosing a default (carry the before clip's audio only when it has some);
    /// a file that cannot be opened answers `false`, and the decoder that reads it reports why.
    /// - Parameter path: the input file.
    /// - Returns: whether ``VideoWriter`` can take audio from it.
    /// - Parameter rate: the lowest sample rate that counts (by default ``minimumRate``).
    public static func hasAudio(path: String, rate: Int32 = minimumRate) -> Bool {
        _ = FFmpegCall.quiet
        guard let input = try? InputFormatContext(untrusted: path, what: "cannot open") else { return false }
        let ctx = input.ptr
        // Most containers describe their streams in the header; the rest need a look at packets.
        if !hasDecodableAudio(ctx, rate: rate) {
            guard (try? FFmpegCall.check(avformat_find_stream_info(ctx, nil), "cannot read stream info", subject: path)) != nil
            else { return false }
        }
        return hasDecodableAudio(ctx, rate: rate)
    }

    /// The lowest sample rate taken as sound (telephone audio is 8000 Hz; the lowest AAC rate 7350).
    public static let minimumRate: Int32 = 1000

    /// True when one of `ctx`'s streams is audio with a decoder in this FFmpeg, at a sample
    /// rate sound has (a crafted 8 Hz stream is not carried unasked).
    static func hasDecodableAudio(_ ctx: UnsafeMutablePointer<AVFormatContext>, rate: Int32) -> Bool {
        (0..<Int(ctx.pointee.nb_streams)).contains { i in
            guard let par = ctx.pointee.streams[i]?.pointee.codecpar else { return false }
            return par.pointee.codec_type == AVMEDIA_TYPE_AUDIO && avcodec_find_decoder(par.pointee.codec_id) != nil
                && (par.pointee.sample_rate == 0 || par.pointee.sample_rate >= rate)
        }
    }
}
