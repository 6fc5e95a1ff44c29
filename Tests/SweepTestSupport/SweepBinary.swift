import Foundation

/// The built `sweep` binary: the one built beside this test bundle, so that a release or
/// sanitizer build (`make test`, `make asan`) runs its own binary, else the package's debug
/// or release one.
public func sweepBinary() throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let beside = Bundle.main.executableURL.map { $0.deletingLastPathComponent().appendingPathComponent("sweep").path }
    let candidates =
        [beside].compactMap { $0 } + [".build/debug/sweep", ".build/release/sweep"].map { root.appendingPathComponent($0).path }
    guard let exe = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw CocoaError(.fileNoSuchFile)
    }
    return exe
}

/// Runs the built `sweep` binary, as a user would.
public func runSweep(_ args: [String], environment: [String: String]? = nil) throws -> (code: Int32, stdout: String, stderr: String) {
    try runIn(nil, args, environment: environment)
}

/// Runs the built binary `exe` (default: the package's) in `folder` (default: this
/// process's) with `environment` (default: this process's).
public func runIn(_ folder: String?, _ args: [String], exe: String? = nil, environment: [String: String]? = nil) throws
    -> (code: Int32, stdout: String, stderr: String)
{
    let p = Process()
    p.executableURL = URL(fileURLWithPath: try exe ?? sweepBinary())
    if let folder { p.currentDirectoryURL = URL(fileURLWithPath: folder) }
    if let environment { p.environment = environment }
    p.arguments = args
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}
