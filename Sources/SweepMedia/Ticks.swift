import CFFmpeg

/// Timestamp arithmetic that a crafted file cannot overflow.
///
/// A container may claim any 64-bit time, and `av_rescale_q` answers `INT64_MIN` when a
/// result does not fit; Swift traps on overflow, so one hostile timestamp would take the
/// process down. Every time read from a file passes through ``sane(_:)`` first: times beyond
/// 2^60 ticks (36 years at a nanosecond time base, 36 million at a millisecond one) are
/// treated as missing, and a sum of up to eight sane times cannot overflow.
enum Ticks {
    /// The largest magnitude a timestamp may have.
    static let bound: Int64 = 1 << 60

    /// `ts`, or nil when it is missing (`AV_NOPTS_VALUE`) or beyond ``bound``.
    static func sane(_ ts: Int64) -> Int64? {
        ts != sweep_av_nopts_value() && ts > -bound && ts < bound ? ts : nil
    }

    /// `ts` from one time base in another, or nil when either end is not ``sane(_:)``.
    static func rescale(_ ts: Int64, _ from: AVRational, _ to: AVRational) -> Int64? {
        guard let ts = sane(ts), from.num > 0, from.den > 0, to.num > 0, to.den > 0 else { return nil }
        return sane(av_rescale_q(ts, from, to))
    }

    /// `seconds` in ticks of `timeBase`, clamped to ``bound`` (0 for NaN).
    static func of(seconds: Double, in timeBase: AVRational) -> Int64 {
        guard timeBase.num > 0, timeBase.den > 0, !seconds.isNaN else { return 0 }
        let ticks = (seconds * Double(timeBase.den) / Double(timeBase.num)).rounded()
        // Compared as doubles, clamped as integers: 2^60 − 1 has no exact double.
        if ticks >= Double(bound) { return bound - 1 }
        if ticks <= -Double(bound) { return -(bound - 1) }
        return Int64(ticks)
    }
}
