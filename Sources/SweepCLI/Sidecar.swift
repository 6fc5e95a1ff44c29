import Foundation
import SweepRequest
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The record beside an output that says it is complete: which job made it, what it read,
/// and the output's size and checksum. `--resume` trusts it, not the file's mere existence,
/// and redoes a job whose inputs changed since.
struct Sidecar {
    let output: String
    let job: String
    /// The files the job read (``BatchJob/reads``).
    let reads: [String]
    var path: String { output + ".sweep.json" }

    /// The record as written, or nil when there is none or it is not JSON.
    private var record: [String: Any]? {
        guard let d = FileManager.default.contents(atPath: OpenedFiles.shared.physical(path)) else { return nil }
        return try? JSONSerialization.jsonObject(with: d) as? [String: Any]
    }

    var recordedBytes: Int? { (record?["bytes"] as? NSNumber)?.intValue }

    /// True when the record names this job, the files it read are as they were (size and
    /// modification time), and the output's size and checksum match.
    func isComplete() -> Bool {
        guard let o = record, o["job"] as? String == Self.hex(BatchJob.fnv1a(Array(job.utf8))),
            let stamps = o["reads"] as? [[String: Any]], stamps.map(Self.stampKey) == inputStamps().map(Self.stampKey),
            let bytes = (o["bytes"] as? NSNumber)?.intValue, let sum = Self.digest(of: output),
            sum.bytes == bytes, o["fnv1a"] as? String == Self.hex(sum.fnv1a)
        else { return false }
        return true
    }

    /// Records the finished output (written atomically, after the output itself), with the
    /// read files' `stamps` as taken before the render began: a file changed during the
    /// render leaves the output stale.
    func write(stamps: [[String: Any]]) throws {
        guard let sum = Self.digest(of: output) else { return }  // sequences: no record
        let record: [String: Any] = [
            "version": 2, "job": Self.hex(BatchJob.fnv1a(Array(job.utf8))), "reads": stamps,
            "bytes": sum.bytes, "fnv1a": Self.hex(sum.fnv1a),
        ]
        let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes])
        let out = try AtomicOutput(destination: path)
        try FileBytes.write([UInt8](data), to: out.writePath, reportAs: path)
        try out.commit()
    }

    /// Each read file's path, size and modification time (ns); a missing file has size -1.
    func inputStamps() -> [[String: Any]] {
        reads.map { file in
            var info = stat()
            guard stat(OpenedFiles.shared.physical(file), &info) == 0 else { return ["path": file, "bytes": -1, "mtime": 0] }
            let ns = Int(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int(info.st_mtim.tv_nsec)
            return ["path": file, "bytes": Int(info.st_size), "mtime": ns]
        }
    }

    private static func stampKey(_ stamp: [String: Any]) -> String {
        "\(stamp["path"] as? String ?? "")|\((stamp["bytes"] as? NSNumber)?.intValue ?? -2)|\((stamp["mtime"] as? NSNumber)?.intValue ?? -2)"
    }

    /// The size and FNV-1a checksum of the regular file at `path`, read in 1 MiB pieces so
    /// that a gigabyte output is never held in memory; nil when it is not a readable file.
    static func digest(of path: String) -> (bytes: Int, fnv1a: UInt64)? {
        let fd = open(OpenedFiles.shared.physical(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var hash = BatchJob.fnv1a([UInt8]())
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            hash = BatchJob.fnv1a(chunk[..<n], continuing: hash)
            total += n
        }
        return (total, hash)
    }

    static func hex(_ v: UInt64) -> String { String(v, radix: 16) }
}
