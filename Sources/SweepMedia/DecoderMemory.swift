import CFFmpeg
import Foundation
import SweepSupport

/// How much memory a clip's decoder may take, judged from the stream's header before a
/// frame is decoded: a 295 KB H.264 file can declare 100 MP frames and 16 reference frames,
/// and each decoding thread holds frames of its own (5 GB for one side).
package enum DecoderMemory {
    /// The default budget for all clip decoders together: half the machine's memory (or
    /// of the container's cgroup limit, when lower).
    package static let defaultBudget: Int = {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), size = sysconf(Int32(_SC_PAGESIZE))
        var total = pages > 0 && size > 0 ? pages * size : 8 << 30
        if let text = try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8),
            let limit = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0
        {
            total = min(total, limit)
        }
        return total / 2
    }()

    /// The frames a decoder of `codec` may keep for reference, at most: what the format
    /// allows (H.264 and HEVC 16, VP9 and AV1 8), since a header can claim the most.
    static func referenceFrames(_ codec: AVCodecID) -> Int {
        switch codec {
        case AV_CODEC_ID_H264, AV_CODEC_ID_HEVC: 16
        case AV_CODEC_ID_VP9, AV_CODEC_ID_AV1: 8
        case AV_CODEC_ID_VP8, AV_CODEC_ID_MPEG4, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG1VIDEO: 3
        default: 1
        }
    }

    /// The bytes a decoder needs with `threads` threads: its reference frames, the frames
    /// being decoded, shown and converted, and for each thread a frame in flight and its
    /// working copies (measured: 355 MB for a 4K H.264 clip with 16 references on two
    /// threads, against 323 MB here; the rest is the encoder's).
    static func need(frameBytes: Int, codec: AVCodecID, threads: Int) -> Int {
        let frames = referenceFrames(codec) + 4 + 3 * threads
        return frameBytes.multipliedReportingOverflow(by: frames).overflow ? Int.max : frameBytes * frames
    }

    /// The decoding threads to use (at most `cores`) so that the decoder fits `budget`.
    ///
    /// - Throws: `.dataError` naming `path` and the memory setting when even one thread
    ///   would need more.
    static func threads(
        frameBytes: Int, codec: AVCodecID, width: Int, height: Int, budget: Int, cores: Int, path: String
    ) throws -> Int {
        let fitting = (1...max(1, cores)).last { need(frameBytes: frameBytes, codec: codec, threads: $0) <= budget }
        guard let fitting else {
            let name = String(cString: avcodec_get_name(codec))
            throw SweepError(
                .dataError,
                "decoding needs about \(text(need(frameBytes: frameBytes, codec: codec, threads: 1))) (\(width)×\(height) frames, up to \(referenceFrames(codec)) kept by the \(name) decoder), over the \(text(budget)) a clip may take",
                subject: path, fix: "raise the memory budget (each clip may take half) if the clip is genuine, or re-export it smaller",
                field: .maxMemory)
        }
        return fitting
    }

    /// Bytes in words: "5.0 GB", "640.00 MB".
    static func text(_ bytes: Int) -> String { ByteCount.text(bytes) }
}
