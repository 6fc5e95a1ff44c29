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
    public static func hasAudio(path: String) -> Bool {
        _ = FFmpegCall.quiet
        guard let input = try? InputFormatContext(untrusted: path, what: "cannot open") else { return false }
        let ctx = input.ptr
        // Most containers describe their streams in the header; the rest need a look at packets.
        if !hasDecodableAudio(ctx) {
            guard (try? FFmpegCall.check(avformat_find_stream_info(ctx, nil), "cannot read stream info", subject: path)) != nil
            else { return false }
        }
        return hasDecodableAudio(ctx)
    }

    /// True when one of `ctx`'s streams is audio with a decoder in this FFmpeg.
    static func hasDecodableAudio(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        (0..<Int(ctx.pointee.nb_streams)).contains { i in
            guard let par = ctx.pointee.streams[i]?.pointee.codecpar else { return false }
            return par.pointee.codec_type == AVMEDIA_TYPE_AUDIO && avcodec_find_decoder(par.pointee.codec_id) != nil
        }
    }
}
