import CFFmpeg
import SweepSupport

/// Answers, cheaply, whether a file has sound to carry into a video.
package enum AudioProbe {
    /// True when `path` opens as a media file and has an audio stream this FFmpeg can decode,
    /// at a sample rate sound has (a crafted 8 Hz stream is not carried unasked).
    ///
    /// Meant for choosing a default (carry the before clip's audio only when it has some);
    /// a file that cannot be opened answers `false`, and the decoder that reads it reports why.
    /// - Parameter path: the input file.
    /// - Returns: whether ``VideoWriter`` can take audio from it.
    package static func hasAudio(path: String) -> Bool {
        isSound(rate: audioRate(path: path))
    }

    /// The lowest sample rate taken as sound (telephone audio is 8000 Hz; the lowest AAC rate 7350).
    package static let minimumRate: Int32 = 1000

    /// Whether audio at `rate` (from ``audioRate(path:)``; 0 when its stream does not say) is sound.
    package static func isSound(rate: Int32?) -> Bool {
        rate.map { $0 == 0 || $0 >= minimumRate } ?? false
    }

    /// The highest sample rate of `path`'s decodable audio streams (0 when none says), or nil
    /// when it has none or cannot be opened.
    package static func audioRate(path: String) -> Int32? {
        _ = FFmpegCall.quiet
        guard let input = try? InputFormatContext(untrusted: path, what: "cannot open") else { return nil }
        let ctx = input.ptr
        // Most containers describe their streams in the header; the rest need a look at packets.
        if let rate = decodableAudioRate(ctx) { return rate }
        guard (try? FFmpegCall.check(avformat_find_stream_info(ctx, nil), "cannot read stream info", subject: path)) != nil
        else { return nil }
        return decodableAudioRate(ctx)
    }

    /// The highest sample rate of `ctx`'s audio streams with a decoder in this FFmpeg.
    static func decodableAudioRate(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> Int32? {
        (0..<Int(ctx.pointee.nb_streams)).compactMap { i -> Int32? in
            guard let par = ctx.pointee.streams[i]?.pointee.codecpar, par.pointee.codec_type == AVMEDIA_TYPE_AUDIO,
                avcodec_find_decoder(par.pointee.codec_id) != nil
            else { return nil }
            return par.pointee.sample_rate
        }.max()
    }
}
