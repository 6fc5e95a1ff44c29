import SweepMedia
import SweepSupport

/// Which encoder options a render may pass to libavcodec: an allow-list per codec.
///
/// Encoder options come from strangers (a `--codec-opt` on a shared command line, a batch
/// job line) and libavcodec's encoders accept options that name files: x264's `stats` and
/// `dump-yuv`, x265's `csv`, `analysis-save`, `qpfile`, `zonefile`, `scaling-list`… One of
/// those turned `x264-params=dump-yuv=IN.jpg` into an overwritten input. A deny-list would
/// miss the next one an FFmpeg release adds, so only options known to be about quality,
/// speed and rate control pass. Values packed into one option (`x264-params`,
/// `x265-params`, `svtav1-params`, `k=v:k=v`) are split and each key checked the same way,
/// and their values are restricted to plain tokens, so that FFmpeg's quoting and escapes
/// (`\:`, `'…'`) cannot smuggle a second key past the check.
package enum EncoderOptionPolicy {
    /// Options every video encoder here may take: libavcodec's generic rate control.
    static let generic: Set<String> = [
        "b", "maxrate", "minrate", "bufsize", "g", "keyint_min", "bf", "refs", "qmin", "qmax",
        "level",
    ]

    /// Top-level options per codec (by ``VideoCodec/name``), besides ``generic``.
    static let allowed: [String: Set<String>] = [
        "h264": [
            "crf", "crf_max", "qp", "preset", "tune", "profile", "level", "x264-params", "aq-mode", "aq-strength", "psy",
            "psy-rd", "rc-lookahead", "weightb", "weightp", "b-bias", "b-pyramid", "mixed-refs", "8x8dct", "fast-pskip",
            "aud", "mbtree", "deblock", "cplxblur", "partitions", "direct-pred", "coder", "trellis", "me_method",
            "sc_threshold", "forced-idr", "intra-refresh",
        ],
        "hevc": ["crf", "qp", "preset", "tune", "profile", "x265-params", "forced-idr"],
        "vp9": [
            "crf", "deadline", "quality", "cpu-used", "row-mt", "tile-columns", "tile-rows", "frame-parallel",
            "lag-in-frames", "auto-alt-ref", "arnr-maxframes", "arnr-strength", "arnr-type", "aq-mode", "lossless",
            "tune-content", "undershoot-pct", "overshoot-pct", "static-thresh", "sharpness", "noise-sensitivity",
            "corpus-complexity", "enable-tpl", "min-gf-interval", "error-resilient",
        ],
        "webp": [
            "lossless", "quality", "preset", "compression_level", "cr_threshold", "cr_size", "kmin", "kmax",
            "allow_mixed",
        ],
        "apng": ["pred", "compression_level", "dpi", "dpm"],
        "prores": ["profile", "vendor", "bits_per_mb", "quant_mat", "mbs_per_slice", "alpha_bits"],
    ]

    /// Sub-keys allowed inside each packed option. None of them names a file.
    static let packed: [String: Set<String>] = [
        "x264-params": [
            "crf", "qp", "keyint", "min-keyint", "bframes", "b-adapt", "b-pyramid", "ref", "aq-mode",
            "aq-strength", "psy-rd", "psy", "no-psy", "deblock", "no-deblock", "me", "subme", "merange",
            "trellis", "rc-lookahead", "mbtree", "no-mbtree", "weightp", "weightb", "no-weightb", "direct",
            "partitions", "vbv-maxrate", "vbv-bufsize", "scenecut", "no-scenecut", "open-gop", "cabac",
            "no-cabac", "8x8dct", "no-8x8dct", "fast-pskip", "no-fast-pskip", "dct-decimate",
            "no-dct-decimate", "colorprim", "transfer", "colormatrix", "range", "nal-hrd", "aud", "level",
            "profile", "tune", "preset", "qpmin", "qpmax", "qpstep", "ipratio", "pbratio", "chroma-qp-offset",
            "deadzone-inter", "deadzone-intra", "log", "slices", "keyint-min",
        ],
        "x265-params": [
            "crf", "qp", "keyint", "min-keyint", "bframes", "b-adapt", "ref", "aq-mode", "aq-strength",
            "psy-rd", "psy-rdoq", "deblock", "no-deblock", "sao", "no-sao", "limit-sao", "selective-sao",
            "rd", "me", "subme", "merange", "rc-lookahead", "vbv-maxrate", "vbv-bufsize", "scenecut",
            "open-gop", "no-open-gop", "strong-intra-smoothing", "no-strong-intra-smoothing", "colorprim",
            "transfer", "colormatrix", "range", "log-level", "tu-intra-depth", "tu-inter-depth", "ctu",
            "min-cu-size", "rect", "no-rect", "amp", "no-amp", "early-skip", "no-early-skip", "tskip",
            "weightp", "no-weightp", "weightb", "cutree", "no-cutree", "qcomp", "ipratio", "pbratio",
            "cbqpoffs", "crqpoffs", "hdr10-opt", "repeat-headers", "info", "no-info", "level-idc",
            "high-tier", "no-high-tier", "hrd", "aud", "profile", "tune", "preset",
        ],
        "svtav1-params": [
            "crf", "preset", "tune", "keyint", "scd", "enable-overlays", "film-grain", "fast-decode",
            "enable-tf", "lookahead", "irefresh-type", "color-primaries", "transfer-characteristics",
            "matrix-coefficients", "color-range", "enable-qm", "qm-min", "qm-max",
        ],
    ]

    /// CRF ranges per codec. x264 reads CRF 0 as lossless, which the High profile sweep uses
    /// cannot carry (x264 fails with its own message), so H.264 starts at 1.
    static let crfRange: [String: ClosedRange<Double>] = ["h264": 1...51, "hevc": 0...51, "vp9": 0...63]

    /// Longest value accepted (a packed option holds a few dozen settings at most).
    static let maxValueLength = 1024

    /// Throws unless every option in `options` is allowed for `codec`.
    ///
    /// - Throws: `.usage` with ``SweepError/Field/codecOptions`` naming the first key that
    ///   is not allowed (or whose value is malformed), and the keys that are.
    package static func check(_ options: [(String, String)], codec: VideoCodec) throws {
        let top = (allowed[codec.name] ?? []).union(generic)
        for (key, value) in options {
            guard top.contains(key) else {
                throw refusal("'\(key)' is not an option sweep passes to \(codec.name)", allowed: top)
            }
            guard value.utf8.count <= maxValueLength, !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw SweepError(
                    .usage, "the value of \(key) is too long or holds control characters",
                    fix: "give a plain value of at most \(maxValueLength) bytes", field: .codecOptions)
            }
            if key == "crf" { try checkCRF(value, codec: codec, key: key) }
            if let subKeys = packed[key] {
                for (sub, subValue) in try split(value, option: key) {
                    guard subKeys.contains(sub) else {
                        throw refusal("'\(sub)' in \(key) is not an option sweep passes to \(codec.name)", allowed: subKeys)
                    }
                    if sub == "crf" { try checkCRF(subValue, codec: codec, key: "\(key) crf") }
                }
            }
        }
    }

    /// Splits a packed value `k=v:k=v` into pairs, refusing anything FFmpeg's tokenizer
    /// would read differently from this plain split: quotes, backslashes, whitespace, and
    /// value characters beyond a plain token (`[A-Za-z0-9._,+-]`). Every item needs `=` (FFmpeg
    /// refuses a bare switch: write `mbtree=0`).
    ///
    /// - Throws: `.usage` with ``SweepError/Field/codecOptions``.
    package static func split(_ value: String, option: String) throws -> [(String, String)] {
        let keyChars = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        let valueChars = keyChars.union(".,+")
        var pairs: [(String, String)] = []
        for item in value.split(separator: ":", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]), v = parts.count > 1 ? String(parts[1]) : ""
            guard parts.count == 2, !key.isEmpty, !v.isEmpty, key.allSatisfy(keyChars.contains),
                v.allSatisfy(valueChars.contains)
            else {
                throw SweepError(
                    .usage, "'\(item)' in \(option) is not a plain key=value setting",
                    fix: "write \(option)=key=value:key=value with letters, digits and . , + - _ only",
                    field: .codecOptions)
            }
            pairs.append((key, v))
        }
        return pairs
    }

    static func checkCRF(_ value: String, codec: VideoCodec, key: String) throws {
        guard let range = crfRange[codec.name] else {
            throw SweepError(
                .usage, "\(codec.name) has no CRF", fix: codec.name == "webp" ? "use quality (0…100)" : "leave out crf",
                field: .codecOptions)
        }
        guard let v = Double(value), v.isFinite, range.contains(v) else {
            let lossless = codec.name == "h264" && Double(value) == 0 ? " (0 would be lossless, which the High profile cannot carry)" : ""
            throw SweepError(
                .usage, "CRF \(value) is outside \(range.lowerBound.plainText)…\(range.upperBound.plainText) for \(codec.name)\(lossless)",
                fix: "use a CRF in \(range.lowerBound.plainText)…\(range.upperBound.plainText) (lower is better quality)",
                field: key == "crf" ? .crf : .codecOptions)
        }
    }

    static func refusal(_ message: String, allowed: Set<String>) -> SweepError {
        SweepError(
            .usage, message + " (only quality, speed and rate settings are; none that names a file)",
            fix: "use one of " + allowed.sorted().joined(separator: ", "), field: .codecOptions)
    }
}
