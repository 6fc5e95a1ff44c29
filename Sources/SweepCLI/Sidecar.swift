import Foundation
import SweepSupport

/// The record beside an output that says it is complete: which job made it, its size and
/// a checksum of its bytes. `--resume` trusts it, not the file's mere existence.
struct Sidecar {
    let output: String
    let job: String
    var path: String { output + ".sweep.json" }

    var recordedBytes: Int? {
        guard let d = FileManager.default.contents(atPath: path),
            let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any]
        else { return nil }
        return (o["bytes"] as? NSNumber)?.intValue
    }

    /// True when the sidecar names this job and the output's size and checksum match it.
    func isComplete() -> Bool {
        guard let d = FileManager.default.contents(atPath: path),
            let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any],
            o["job"] as? String == Self.hex(BatchJob.fnv1a(Array(job.utf8))),
            let bytes = (o["bytes"] as? NSNumber)?.intValue,
            let content = FileManager.default.contents(atPath: output), content.count == bytes,
            o["fnv1a"] as? String == Self.hex(BatchJob.fnv1a(content))
        else { return false }
        return true
    }

    /// Records the finished output (written atomically, after the output itself).
    func write() throws {
        guard let content = FileManager.default.contents(atPath: output) else { return }  // sequences: no record
        let record: [String: Any] = [
            "version": 1, "job": Self.hex(BatchJob.fnv1a(Array(job.utf8))), "bytes": content.count,
            "fnv1a": Self.hex(BatchJob.fnv1a(content)),
        ]
        let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes])
        let out = try AtomicOutput(destination: path)
        try FileBytes.write([UInt8](data), to: out.writePath, reportAs: path)
        try out.commit()
    }

    static func hex(_ v: UInt64) -> String { String(v, radix: 16) }
}
