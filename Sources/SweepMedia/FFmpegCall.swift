import CFFmpeg
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The one call-through point to FFmpeg: turns a negative return code into a typed error
/// naming the file and the step that failed. Every libav* call whose result can fail goes
/// through here (or, for calls that report by nil, a `guard` beside it).
package enum FFmpegCall {
    /// FFmpeg's text for an error code.
    package static func message(_ code: Int32) -> String {
        var buf = [CChar](repeating: 0, count: 256)
        sweep_av_strerror(code, &buf, buf.count)
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Returns `code` when it is not negative; otherwise throws `kind` naming `subject`.
    @discardableResult
    package static func check(
        _ code: Int32, _ what: String, subject: String, kind: SweepError.Code = .ioError,
        fix: String? = nil, field: SweepError.Field? = nil
    ) throws -> Int32 {
        if code >= 0 { return code }
        var kind = kind
        // Disk full and permission problems are I/O failures whatever the step.
        if code == sweep_averror(ENOSPC) || code == sweep_averror(EIO) { kind = .ioError }
        throw SweepError(kind, "\(what): \(message(code))", subject: subject, fix: fix, field: field)
    }

    /// For the muxer's writes: a full disk, an I/O error or a file-size limit is an I/O failure
    /// (exit 74) with a fix about the disk; anything else is the container refusing what it
    /// was given (a codec it cannot hold, a timestamp it cannot take), exit 69, not a disk
    /// problem.
    package static func checkWrite(_ code: Int32, _ what: String, subject: String, container: String) throws {
        guard code < 0 else { return }
        let disk = [ENOSPC, EIO, EFBIG, EDQUOT, EACCES, EPERM, EROFS].map(sweep_averror)
        if code == sweep_averror(EFBIG) { throw SweepError.writeFailed(what, errno: EFBIG, subject: subject) }
        if disk.contains(code) {
            throw SweepError(.ioError, "\(what): \(message(code))", subject: subject, fix: "check free disk space, limits and permissions")
        }
        throw SweepError(
            .unavailable, "\(what): the \(container) container refused it (\(message(code)))", subject: subject,
            fix: "write another container (.mkv holds the most), or leave the sound out")
    }

    /// For the send/receive calls: `true` when a packet or frame came out, `false` when the
    /// codec wants more input or is drained (EAGAIN, EOF); any other error throws.
    package static func received(
        _ code: Int32, _ what: String, subject: String, kind: SweepError.Code = .ioError,
        fix: String? = nil
    ) throws -> Bool {
        if code == sweep_averror(EAGAIN) || code == sweep_averror_eof() { return false }
        try check(code, what, subject: subject, kind: kind, fix: fix)
        return true
    }

    /// The one send/receive exchange with a codec: sends an input (`send`: a frame to an
    /// encoder, a packet to a decoder, nil to flush), then hands every output the codec has
    /// ready (`receive`: a packet, a frame) to `each`, until it wants more input or is drained.
    /// A failure of either call throws `kind` naming `subject`.
    package static func exchange(
        send: () -> Int32, receive: () -> Int32, _ what: String, subject: String, kind: SweepError.Code = .ioError,
        fix: String? = nil, each: () throws -> Void
    ) throws {
        try check(send(), what, subject: subject, kind: kind, fix: fix)
        while try received(receive(), what, subject: subject, kind: kind, fix: fix) { try each() }
    }

    /// Silences FFmpeg's own logging; sweep reports errors itself, one line each.
    package static let quiet: Void = { av_log_set_level(AV_LOG_QUIET) }()
}
