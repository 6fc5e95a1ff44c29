import Foundation
import SweepPipeline
import SweepSupport

/// The files a batch's jobs write, by the line that writes each: plain outputs by their
/// canonical path, PNG sequences by the names their patterns produce (``FramePattern``), so
/// that two spellings of one file, or two patterns that share names, are one claim.
struct OutputClaims {
    /// Pattern pairs compared at most: each takes a few milliseconds, and a stranger's jobs
    /// file must not buy minutes of checking.
    static let maxPatternPairs = 2000

    private var files: [String: Int] = [:]  // canonical path → line
    private var names: [String: [(name: String, line: Int)]] = [:]  // canonical folder → file names
    private var patterns: [String: [(pattern: FramePattern, line: Int)]] = [:]  // canonical folder → patterns
    private var pairs = 0

    /// The line whose output is, or whose sequence writes, `path`.
    func writer(of path: String) -> Int? {
        let key = JobFolder.canonical(path)
        if let line = files[key] { return line }
        let url = URL(fileURLWithPath: key)
        let name = url.lastPathComponent
        return patterns[url.deletingLastPathComponent().path]?.first(where: { $0.pattern.index(of: name) != nil })?.line
    }

    /// Records that `line` writes `path` (a file, or a PNG sequence's pattern).
    ///
    /// - Throws: `.dataError` naming both lines when another job writes it, or a name of it;
    ///   `.usage` when too many patterns share a folder to be checked.
    mutating func claim(_ path: String, line: Int, subject: String) throws {
        func clash(_ other: Int) -> SweepError {
            SweepError(
                .dataError, "line \(line) writes \(path), as line \(other) does", subject: subject, fix: "give each job its own output")
        }
        if let other = writer(of: path) { throw clash(other) }
        let key = JobFolder.canonical(path)
        if URL(fileURLWithPath: path).pathExtension.lowercased() == "png", let pattern = FramePattern(key) {
            let folder = URL(fileURLWithPath: key).deletingLastPathComponent().path
            if let other = names[folder]?.first(where: { pattern.index(of: $0.name) != nil })?.line { throw clash(other) }
            for earlier in patterns[folder, default: []] where earlier.pattern.mayOverlap(pattern) {
                pairs += 1
                guard pairs <= Self.maxPatternPairs else {
                    throw SweepError(
                        .usage, "too many PNG-sequence patterns in \(folder) to check that none writes another's frames",
                        subject: subject, fix: "give each sequence its own folder")
                }
                if earlier.pattern.overlaps(pattern) { throw clash(earlier.line) }
            }
            patterns[folder, default: []].append((pattern, line))
        }
        files[key] = line
        let url = URL(fileURLWithPath: key)
        names[url.deletingLastPathComponent().path, default: []].append((url.lastPathComponent, line))
    }
}
