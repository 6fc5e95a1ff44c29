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
///
/// Only files sweep wrote (``FrameManifest``) are replaced or removed: a file at one of the
/// pattern's names that the record does not vouch for stops the render before it starts,
/// unless `overwrite` (`--overwrite`) says the names are the sequence's.
struct PNGSequenceSink: FrameSink, ~Copyable {
    let pattern: String
    private let staging: StagingFolder
    let formatName = "png-sequence"
    private(set) var bytes: Int
    private(set) var framesWritten: Int
    /// Files the clean-up of an older sequence must never remove (the render's inputs).
    private let keeping: Set<FileID>
    /// Files at the pattern's names may be replaced and removed without a record.
    private let overwrite: Bool
    /// The frames an earlier run wrote.
    private let written: FrameManifest

    /// - Parameters:
    ///   - keeping: files that are never replaced or removed (the inputs).
    ///   - overwrite: replace and remove files at the pattern's names that sweep did not write.
    init(pattern: String, keeping: Set<FileID> = [], overwrite: Bool = false) throws {
        try Self.validate(pattern)
        let folder = URL(fileURLWithPath: pattern).deletingLastPathComponent().path
        // `-o frames/f-%04d.png` names a folder of frames: it is created when missing.
        staging = try StagingFolder(beside: folder + "/frames", reportAs: pattern, createFolder: true)
        self.pattern = pattern
        self.keeping = keeping
        self.overwrite = overwrite
        written = FrameManifest(reading: pattern)
        bytes = 0
        framesWritten = 0
    }

    /// One `%d` (with optional zero padding and width) in the file name and no other
    /// conversion (``FramePattern``).
    static func validate(_ pattern: String) throws {
        guard FramePattern(pattern) != nil else {
            throw SweepError(
                .usage, "a frame pattern needs exactly one %d (or %04d) in the file name and no other %",
                subject: pattern, fix: "write e.g. frames/f-%04d.png (%% for a literal %)")
        }
    }

    /// The path of frame `i`.
    func path(_ i: Int) -> String { String(format: pattern, i) }

    /// Refuses, for a sequence of `count` frames, a name that holds an input, a folder or a
    /// device, or a file sweep did not write (unless `overwrite`): among the `count` names
    /// it replaces and the higher ones an older, longer sequence left, which it removes.
    func checkNames(count: Int) throws {
        var i = 0
        while i < RenderLimits.maxFrames {
            let name = path(i)
            var info = stat()
            guard lstat(OpenedFiles.shared.physical(name), &info) == 0 else {
                if i >= count { return }
                i += 1
                continue
            }
            let replaced = i < count
            if FileID(path: name).map(keeping.contains) == true {
                if !replaced { return }  // the clean-up stops there
                throw SweepError(.usage, "frame \(i) would replace an input image", subject: name, fix: "choose another pattern")
            }
            if replaced && (info.st_mode & S_IFMT) != S_IFREG {
                // It would fail the commit half-way.
                throw SweepError(
                    .cannotCreate, "frame \(i)'s name is taken by something that is not a file",
                    subject: name, fix: "move it away or choose another pattern")
            }
            if !overwrite && !written.wrote(name, index: i) {
                throw SweepError(
                    .cannotCreate,
                    "the sequence would \(replaced ? "replace" : "remove") this file, which sweep did not write "
                        + "(it is not in \(URL(fileURLWithPath: FrameManifest.path(for: pattern)).lastPathComponent))",
                    subject: name, fix: "choose another pattern or folder, or allow replacing what is at the pattern's names",
                    field: .overwrite)
            }
            i += 1
        }
    }

    mutating func write(_ plan: FramePlan, observer: FrameObserver) throws {
        try checkNames(count: plan.count)
        let staging = staging, pattern = pattern
        var bytes = 0, written = 0
        try FramePump.run(count: plan.count, width: plan.width, height: plan.height, render: plan.render) { i, frame in
            let data = try StillEncoder.encode(frame, format: .png, name: String(format: pattern, i))
            try FileBytes.write(data, to: staging.path(i), reportAs: String(format: pattern, i))
            bytes += data.count
            written += 1
            try observer.saw(frame, done: i + 1)
        }
        self.bytes = bytes
        framesWritten = written
    }

    consuming func commit() throws {
        try checkNames(count: framesWritten)  // again: a file may have appeared while it rendered
        var record = FrameManifest()
        for i in 0..<framesWritten {
            guard rename(staging.path(i), OpenedFiles.shared.physical(path(i))) == 0 else {
                throw SweepError(
                    .ioError, "cannot move frame \(i) into place (\(String(cString: strerror(errno))))",
                    subject: path(i), fix: "check the folder's permissions")
            }
            record.record(path(i), index: i)
        }
        // Frames of an older, longer sequence would play on after this one: every one the
        // record vouches for goes, and with `overwrite` whatever is at the names as far as
        // they run on (never an input).
        for i in written.indices where i >= framesWritten && written.wrote(path(i), index: i) {
            unlink(OpenedFiles.shared.physical(path(i)))
        }
        var i = framesWritten
        while overwrite, i < RenderLimits.maxFrames, FileID(path: path(i)).map(keeping.contains) == false,
            unlink(OpenedFiles.shared.physical(path(i))) == 0
        {
            i += 1
        }
        // The record goes last and whole (renamed into place): without it, the next run
        // refuses to touch these frames rather than trusting a half-written one.
        let staged = staging.path + "/record"
        if (try? FileBytes.write(record.bytes, to: staged, reportAs: pattern)) != nil {
            rename(staged, OpenedFiles.shared.physical(FrameManifest.path(for: pattern)))
        }
    }
}
