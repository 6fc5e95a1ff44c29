import Foundation
import SweepImaging
import SweepMedia
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Writes one lossless PNG per frame, named by a printf-style pattern (`f-%04d.png`).
///
/// The frames go to a hidden folder beside their destination and move into place only on
/// commit, so a failed or interrupted run leaves an older sequence untouched. On commit,
/// higher-numbered frames left by an older, longer run are removed.
struct PNGSequenceSink: FrameSink, ~Copyable {
    let pattern: String
    private let staging: StagingFolder
    let formatName = "png-sequence"
    private(set) var bytes: Int
    private(set) var framesWritten: Int
    /// Files the clean-up of an older sequence must never remove (the render's inputs).
    private let keeping: Set<FileID>

    /// - Parameter keeping: files that are never replaced or removed (the inputs).
    init(pattern: String, keeping: Set<FileID> = []) throws {
        try Self.validate(pattern)
        let folder = URL(fileURLWithPath: pattern).deletingLastPathComponent().path
        // `-o frames/f-%04d.png` names a folder of frames: it is created when missing.
        staging = try StagingFolder(beside: folder + "/frames", reportAs: pattern, createFolder: true)
        self.pattern = pattern
        self.keeping = keeping
        bytes = 0
        framesWritten = 0
    }

    /// One `%d` (with optional zero padding and width) in the file name and no other
    /// conversion: the pattern is handed to a printf-style formatter.
    static func validate(_ pattern: String) throws {
        let name = URL(fileURLWithPath: pattern).lastPathComponent
        let folder = URL(fileURLWithPath: pattern).deletingLastPathComponent().path
        let conversions = name.matches(of: /%(%|0?[0-9]{0,2}d|.?)/).filter { $0.output.1 != "%" }
        guard !folder.contains("%"), conversions.count == 1, conversions[0].output.1.last == "d" else {
            throw SweepError(
                .usage, "a frame pattern needs exactly one %d (or %04d) in the file name and no other %",
                subject: pattern, fix: "write e.g. frames/f-%04d.png (%% for a literal %)")
        }
    }

    /// The path of frame `i`.
    func path(_ i: Int) -> String { String(format: pattern, i) }

    mutating func write(_ plan: FramePlan, observer: FrameObserver) throws {
        // A frame name taken by a folder or a device would fail the commit half-way: refuse first.
        for i in 0..<plan.count {
            var info = stat()
            if lstat(path(i), &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
                throw SweepError(
                    .cannotCreate, "frame \(i)'s name is taken by something that is not a file",
                    subject: path(i), fix: "move it away or choose another pattern")
            }
        }
        let staging = staging, pattern = pattern
        var bytes = 0, written = 0
        try FramePump.run(count: plan.count, width: plan.width, height: plan.height, render: plan.render) { i, frame in
            let data = try StillEncoder.encode(frame, format: .png, name: String(format: pattern, i))
            try FileBytes.write(data, to: staging.path(i), reportAs: String(format: pattern, i))
            bytes += data.count
            written += 1
            observer.saw(frame, done: i + 1)
        }
        self.bytes = bytes
        framesWritten = written
    }

    consuming func commit() throws {
        for i in 0..<framesWritten where FileID(path: path(i)).map(keeping.contains) == true {
            throw SweepError(.usage, "frame \(i) would replace an input image", subject: path(i), fix: "choose another pattern")
        }
        for i in 0..<framesWritten where rename(staging.path(i), path(i)) != 0 {
            throw SweepError(
                .ioError, "cannot move frame \(i) into place (\(String(cString: strerror(errno))))",
                subject: path(i), fix: "check the folder's permissions")
        }
        // Frames of an older, longer sequence would play on after this one.
        // Never an input, and no further than an older sequence could reach.
        var i = framesWritten
        while i < RenderLimits.maxFrames, FileID(path: path(i)).map(keeping.contains) != true, unlink(path(i)) == 0 { i += 1 }
    }
}
