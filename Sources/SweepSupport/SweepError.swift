#if canImport(Glibc)
    import Glibc
#endif

/// A failure a user can act on: what went wrong, where, and what to do.
///
/// Every layer throws this one type so that the CLI can print one line and pick the exit
/// code without guessing.
public struct SweepError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure; each maps to a sysexits exit code.
    public struct Code: Sendable, Equatable, Hashable {
        public let exitCode: Int32
        public let name: String
        /// Bad command line (64, EX_USAGE).
        public static let usage = Code(exitCode: 64, name: "usage")
        /// Input data is wrong: not an image, corrupt, out of range (65, EX_DATAERR).
        public static let dataError = Code(exitCode: 65, name: "data")
        /// An input file does not exist or cannot be read (66, EX_NOINPUT).
        public static let noInput = Code(exitCode: 66, name: "no-input")
        /// An internal fault, a bug (70, EX_SOFTWARE).
        public static let internalError = Code(exitCode: 70, name: "internal")
        /// A needed facility is missing, e.g. an encoder not in this FFmpeg build (69, EX_UNAVAILABLE).
        public static let unavailable = Code(exitCode: 69, name: "unavailable")
        /// The output cannot be created (73, EX_CANTCREAT).
        public static let cannotCreate = Code(exitCode: 73, name: "cannot-create")
        /// Reading or writing failed part-way (74, EX_IOERR).
        public static let ioError = Code(exitCode: 74, name: "io")
    }

    /// A setting the error is about, named neutrally: a front end maps it to its own
    /// spelling (the CLI's `--max-pixels`, an app's preference), so the library never
    /// speaks of command-line flags.
    public struct Field: Sendable, Equatable, Hashable, CustomStringConvertible {
        /// The setting's neutral name, as in `RenderSpec`-style APIs (`maxPixels`).
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        public static let size = Field("size")
        public static let fps = Field("fps")
        public static let codec = Field("codec")
        public static let codecOptions = Field("codecOptions")
        public static let maxPixels = Field("maxPixels")
        public static let maxBytes = Field("maxBytes")
        public static let maxMemory = Field("maxMemory")
        public static let look = Field("look")
        public static let beforeLook = Field("beforeLook")
        public static let preset = Field("preset")
        public static let format = Field("format")
        public static let duration = Field("duration")
        public static let crf = Field("crf")
        public static let poster = Field("poster")
        /// Where a video input's comparison begins and ends.
        public static let start = Field("start")
        public static let end = Field("end")
        /// Where each clip's time 0 lies.
        public static let beforeOffset = Field("beforeOffset")
        public static let afterOffset = Field("afterOffset")
        /// Which input's sound goes into a video, if any.
        public static let audio = Field("audio")
        /// What becomes of HDR inputs (tone-mapped or refused).
        public static let hdr = Field("hdr")
        public static let overwrite = Field("overwrite")
    }

    public let code: Code
    /// What is wrong, in a sentence fragment without trailing period.
    public let message: String
    /// The file or option concerned, if any.
    public let subject: String?
    /// What the user can do about it.
    public let fix: String?
    /// The setting concerned, if any (the subject may still be a file).
    public let field: Field?

    public init(_ code: Code, _ message: String, subject: String? = nil, fix: String? = nil, field: Field? = nil) {
        self.code = code
        self.message = message
        self.subject = subject
        self.fix = fix
        self.field = field
    }

    /// One line: `subject: message; fix`, the field named neutrally where no subject is given.
    public var description: String { describe { $0.name } }

    /// One line, with the field spelled as `spell` says (a front end's own names).
    ///
    /// The field becomes the subject when there is none; otherwise it follows the fix
    /// in parentheses, so the user learns which setting to change.
    public func describe(spelling spell: (Field) -> String) -> String {
        let flag = field.map(spell)
        let subject = self.subject ?? flag
        var s = subject.map { "\($0): \(message)" } ?? message
        if let fix { s += "; \(fix)" }
        if let flag, flag != subject { s += " (\(flag))" }
        return s
    }
}

extension SweepError {
    /// A write that failed with `errno` (exit 74): the file-size limit named as such, since
    /// "File too large" reads like a problem with the picture; anything else with its system
    /// text and a fix about the disk.
    package static func writeFailed(_ what: String, errno code: Int32, subject: String) -> SweepError {
        if code == EFBIG {
            return SweepError(
                .ioError, "\(what): the file reached the file-size limit (ulimit -f)", subject: subject,
                fix: "raise the limit, or make a smaller file")
        }
        return SweepError(
            .ioError, "\(what) (\(String(cString: strerror(code))))", subject: subject, fix: "check free disk space and permissions")
    }
}
