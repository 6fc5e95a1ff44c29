import Foundation
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The record of the frames of a PNG sequence that sweep wrote, kept beside them as a hidden
/// file (`.f-%04d.png.sweep` for `f-%04d.png`).
///
/// A later run replaces or removes a file at one of the pattern's names only when the record
/// shows sweep wrote it: a user's own files that happen to match the pattern (`f-0000.png`…)
/// are never lost. A frame is known by its device, inode, size and modification time, which
/// moving it into place keeps and editing it changes.
struct FrameManifest: Sendable {
    /// What identifies one written frame.
    struct Stamp: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var seconds: Int64
        var nanoseconds: Int64
    }

    /// The stamps of the frames, by index.
    private(set) var frames: [Int: Stamp] = [:]

    private static let header = "sweep png-sequence 1"

    /// The record's path for a frame pattern.
    static func path(for pattern: String) -> String {
        let url = URL(fileURLWithPath: pattern)
        return url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".sweep").path
    }

    /// The stamp of a regular file (not following a symbolic link), or nil.
    static func stamp(of path: String) -> Stamp? {
        var info = stat()
        guard lstat(OpenedFiles.shared.physical(path), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Stamp(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    /// An empty record.
    init() {}

    /// The record beside `pattern`'s frames; empty when there is none or it is not one (a
    /// damaged or foreign record vouches for nothing).
    init(reading pattern: String) {
        guard let bytes = try? FileBytes.read(Self.path(for: pattern), limit: RenderLimits.maxFrames * 128, regularFileOnly: true)
        else { return }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard lines.first == Substring(Self.header) else { return }
        for line in lines.dropFirst() {
            let f = line.split(separator: " ")
            guard f.count == 6, let i = Int(f[0]), (0..<RenderLimits.maxFrames).contains(i), let device = UInt64(f[1]),
                let inode = UInt64(f[2]), let size = Int64(f[3]), let seconds = Int64(f[4]), let nanoseconds = Int64(f[5])
            else { return }
            frames[i] = Stamp(device: device, inode: inode, size: size, seconds: seconds, nanoseconds: nanoseconds)
        }
    }

    /// The indices of the recorded frames.
    var indices: Dictionary<Int, Stamp>.Keys { frames.keys }

    /// Whether the file at `path` is frame `index` as sweep wrote it.
    func wrote(_ path: String, index: Int) -> Bool {
        guard let recorded = frames[index] else { return false }
        return Self.stamp(of: path) == recorded
    }

    /// Records frame `index` as the file now at `path`.
    mutating func record(_ path: String, index: Int) {
        frames[index] = Self.stamp(of: path)
    }

    /// The record as a file's bytes.
    var bytes: [UInt8] {
        let lines = frames.keys.sorted().map { i -> String in
            let s = frames[i]!
            return "\(i) \(s.device) \(s.inode) \(s.size) \(s.seconds) \(s.nanoseconds)"
        }
        return Array(([Self.header] + lines).joined(separator: "\n").appending("\n").utf8)
    }
}
