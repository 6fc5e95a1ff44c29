#ifndef SWEEP_CFFMPEG_SHIM_H
#define SWEEP_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/dict.h>
#include <libavutil/display.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/encryption_info.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>

// Function-like macros do not import into Swift; these wrap them.

/// AVERROR(e): a POSIX errno as a negative FFmpeg error code.
static inline int sweep_averror(int e) { return AVERROR(e); }
/// AVERROR_EOF: end of stream.
static inline int sweep_averror_eof(void) { return AVERROR_EOF; }
/// AV_NOPTS_VALUE: "no timestamp".
static inline int64_t sweep_av_nopts_value(void) { return AV_NOPTS_VALUE; }
/// av_err2str uses a compound literal; this fills a caller's buffer instead.
static inline void sweep_av_strerror(int code, char *buf, size_t size) { av_strerror(code, buf, size); }
/// AVFMT_GLOBALHEADER / AV_CODEC_FLAG_GLOBAL_HEADER are macros over shifts.
static inline int sweep_fmt_wants_global_header(const AVOutputFormat *f) { return (f->flags & AVFMT_GLOBALHEADER) != 0; }
static inline int sweep_fmt_needs_no_file(const AVOutputFormat *f) { return (f->flags & AVFMT_NOFILE) != 0; }
static const int sweep_codec_flag_global_header = AV_CODEC_FLAG_GLOBAL_HEADER;
/// SWS_* flags are macros.
static const int sweep_sws_bicubic = SWS_BICUBIC;
static const int sweep_sws_point = SWS_POINT;
static const int sweep_sws_accurate = SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP;
/// SWS_CS_ITU709 / SWS_CS_ITU601 select the YUV matrix.
static const int sweep_sws_cs_itu709 = SWS_CS_ITU709;
static const int sweep_sws_cs_itu601 = SWS_CS_ITU601;
static const int sweep_avio_flag_write = AVIO_FLAG_WRITE;
static const int sweep_avio_flag_read = AVIO_FLAG_READ;
/// AVERROR_INVALIDDATA is built by a tag macro.
static inline int sweep_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
/// AVSEEK_FLAG_BACKWARD: seek to the packet at or before the time asked for.
static const int sweep_avseek_flag_backward = AVSEEK_FLAG_BACKWARD;
/// The time of the key frame at or before `ts` in the stream's index (the demuxer's table of
/// key frames, such as an MP4's sync samples), or INT64_MIN when the index has none there.
/// AVIndexEntry's flags are a bit-field, read here rather than in Swift.
static inline int64_t sweep_index_keyframe_at_or_before(AVStream *st, int64_t ts) {
    const AVIndexEntry *e = avformat_index_get_entry_from_timestamp(st, ts, AVSEEK_FLAG_BACKWARD);
    return e && (e->flags & AVINDEX_KEYFRAME) ? e->timestamp : INT64_MIN;
}
/// Whether entry `i` of the stream's index is a key frame that plays (not one an edit list
/// drops before the clip's start), and its time in `ts`.
static inline int sweep_index_keyframe(AVStream *st, int i, int64_t *ts) {
    const AVIndexEntry *e = avformat_index_get_entry(st, i);
    if (!e || !(e->flags & AVINDEX_KEYFRAME) || (e->flags & AVINDEX_DISCARD_FRAME)) return 0;
    *ts = e->timestamp;
    return 1;
}
/// AV_TIME_BASE: the time base of container-wide times.
static const int64_t sweep_av_time_base = AV_TIME_BASE;
/// FF_COMPLIANCE_*: how strictly a muxer or encoder follows the standard (experimental encoders need the lowest).
static const int sweep_compliance_normal = FF_COMPLIANCE_NORMAL;
static const int sweep_compliance_experimental = FF_COMPLIANCE_EXPERIMENTAL;
/// AV_CODEC_CAP_* are macros over shifts.
static const int sweep_codec_cap_variable_frame_size = AV_CODEC_CAP_VARIABLE_FRAME_SIZE;
static const int sweep_codec_cap_experimental = AV_CODEC_CAP_EXPERIMENTAL;
#endif
