import SweepMedia
import SweepSupport
import Testing

@testable import SweepPipeline

/// The encoder-option allow-list: quality, speed and rate settings pass; anything that could
/// name a file, or hide a second key in quoting, does not.
struct EncoderOptionPolicyTests {
    @Test(
        "Refused: file-naming options and sub-options, quoting, bad CRFs",
        arguments: [
            ("h264", "x264-params", "dump-yuv=IN.jpg"), ("h264", "stats", "x.log"), ("h264", "passlogfile", "x"),
            ("h264", "x264opts", "keyint=1"), ("h264", "x264-params", #"keyint=1\:dump-yuv=x"#),
            ("h264", "x264-params", "keyint='1:stats=x'"),
            ("h264", "x264-params", "keyint=1::stats=x"), ("h264", "x264-params", "no-mbtree"), ("h264", "crf", "0"),
            ("h264", "crf", "nan"),
            ("hevc", "x265-params", "csv=a.csv"), ("hevc", "x265-params", "analysis-save=a"), ("hevc", "x265-params", "analysis-load=a"),
            ("hevc", "x265-params", "qpfile=a"), ("hevc", "x265-params", "zonefile=a"), ("hevc", "x265-params", "scaling-list=a"),
            ("hevc", "crf", "52"), ("vp9", "crf", "64"), ("vp9", "stats", "a"), ("vp9", "ts-parameters", "a"),
            ("webp", "crf", "20"), ("apng", "x264-params", "crf=2"), ("prores", "flags", "+pass1"), ("h264", "svtav1-params", "crf=20"),
            ("h264", "tune", "film\u{1B}"),
        ])
    func refused(codec: String, key: String, value: String) throws {
        let c = try #require(VideoCodec.named(codec))
        #expect(throws: SweepError.self) { try EncoderOptionPolicy.check([(key, value)], codec: c) }
        do { try EncoderOptionPolicy.check([(key, value)], codec: c) } catch let e as SweepError {
            #expect(e.field == .codecOptions || e.field == .crf)
        }
    }

    @Test(
        "Allowed: the documented quality, speed and rate settings",
        arguments: [
            ("h264", "crf", "23"), ("h264", "preset", "veryslow"), ("h264", "tune", "film"),
            ("h264", "x264-params", "keyint=60:bframes=3:deblock=-1,-1"),
            ("h264", "b", "5000000"), ("h264", "maxrate", "6M"), ("hevc", "x265-params", "log-level=error:crf=28"), ("hevc", "crf", "0"),
            ("vp9", "crf", "63"), ("vp9", "row-mt", "1"), ("vp9", "deadline", "realtime"), ("vp9", "cpu-used", "4"),
            ("webp", "quality", "90"), ("webp", "lossless", "1"), ("apng", "pred", "mixed"), ("prores", "profile", "2"),
        ])
    func allowed(codec: String, key: String, value: String) throws {
        try EncoderOptionPolicy.check([(key, value)], codec: try #require(VideoCodec.named(codec)))
    }
}
