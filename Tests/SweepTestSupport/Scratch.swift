import Foundation

/// Where tests write their files: one folder per test process, under the system's temporary
/// folder, removed when the process exits, so that runs leave nothing behind (folders per
/// test would pile up in /tmp by the thousand over a day of runs).
public enum Scratch {
    /// `<tmp>/sweep-tests-<pid>`, made on first use and removed at exit.
    public static let root: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-tests-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Scratch.root) }
        return path
    }()

    /// A new, empty folder under ``root``, its name starting with `prefix`.
    public static func folder(_ prefix: String) throws -> String {
        let path = root + "/\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A path under ``root`` that no other test uses, for a file named `name`.
    public static func path(_ name: String) -> String { root + "/\(UUID().uuidString)-\(name)" }
}
