import Foundation
import SweepImaging
import SweepSupport

/// Finds and reads preset files: looks, animations and social formats.
///
/// The folder is, in order: `$SWEEP_PRESETS`; a `presets` folder beside or above the
/// executable (a checkout's `.build/…/sweep`), `../share/sweep/presets` from it (an
/// install); `./presets`.
public struct PresetLibrary: Sendable {
    /// The kinds of preset, each a sub-folder.
    public enum Kind: String, Sendable, CaseIterable {
        case looks, animations, formats
    }

    /// The presets folder, if one was found.
    public let directory: String?

    public init(directory: String?) { self.directory = directory }

    /// The library found from the environment and the executable's location.
    public static func locate() -> PresetLibrary {
        let fm = FileManager.default
        func ok(_ p: String) -> Bool {
            var d: ObjCBool = false
            return fm.fileExists(atPath: p + "/looks", isDirectory: &d) && d.boolValue
        }
        if let env = ProcessInfo.processInfo.environment["SWEEP_PRESETS"], !env.isEmpty { return PresetLibrary(directory: env) }
        var candidates: [String] = []
        if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
            candidates.append(dir.appendingPathComponent("../share/sweep/presets").standardized.path)
            for _ in 0..<6 {
                candidates.append(dir.appendingPathComponent("presets").path)
                dir = dir.deletingLastPathComponent()
            }
        }
        candidates.append(fm.currentDirectoryPath + "/presets")
        return PresetLibrary(directory: candidates.first(where: ok))
    }

    /// Names of the presets of one kind, sorted.
    public func names(_ kind: Kind) -> [String] {
        guard let directory, let files = try? FileManager.default.contentsOfDirectory(atPath: directory + "/" + kind.rawValue) else { return [] }
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// The file for `nameOrPath`: a path when it looks like one, else `DIR/kind/NAME.json`.
    ///
    /// - Parameters: `field` is the setting that named it and `subject` the file that did,
    ///   if any (for errors).
    public func file(_ nameOrPath: String, kind: Kind, field: SweepError.Field, subject: String? = nil) throws -> String {
        if nameOrPath.hasSuffix(".json") || nameOrPath.contains("/") {
            guard FileManager.default.fileExists(atPath: nameOrPath) else {
                throw SweepError(.noInput, "no such preset file", subject: nameOrPath, fix: "check the path")
            }
            return nameOrPath
        }
        let all = names(kind)
        guard let directory else {
            throw SweepError(.noInput, "cannot find the presets folder for '\(nameOrPath)'", subject: subject,
                             fix: "set SWEEP_PRESETS to the presets folder or give a .json file", field: field)
        }
        guard all.contains(nameOrPath) else {
            let hint = Suggestion.nearest(nameOrPath, in: all).map { "did you mean \($0)?" }
                ?? "choose one of \(all.joined(separator: ", "))"
            throw SweepError(.usage, "unknown \(kind.rawValue.dropLast()) '\(nameOrPath)'", subject: subject, fix: hint, field: field)
        }
        return "\(directory)/\(kind.rawValue)/\(nameOrPath).json"
    }

    /// The largest preset file read (1 MiB: the built-in ones are under 2 KiB).
    public static let maxFileBytes = 1 << 20

    /// Reads a file's bytes, with errors that name it; at most ``maxFileBytes``, so that a
    /// huge or endless file (`/dev/zero`) is refused before it fills memory.
    static func read(_ path: String) throws -> Data {
        Data(try FileBytes.read(path, limit: maxFileBytes))
    }

    /// A look by name (`vivid`) or file.
    public func look(_ nameOrPath: String, field: SweepError.Field = .look, subject: String? = nil) throws -> Adjustments {
        let path = try file(nameOrPath, kind: .looks, field: field, subject: subject)
        return try StrictJSON.decode(LookPreset.self, from: Self.read(path), file: path).adjustments
    }

    /// An animation preset by name (`reveal`) or file, decoded (looks are resolved later).
    public func animationPreset(_ nameOrPath: String) throws -> (AnimationPreset, String) {
        let path = try file(nameOrPath, kind: .animations, field: .preset)
        return (try StrictJSON.decode(AnimationPreset.self, from: Self.read(path), file: path), path)
    }

    /// A social format by name (`instagram-square`) or file.
    public func format(_ nameOrPath: String) throws -> FormatPreset {
        let path = try file(nameOrPath, kind: .formats, field: .format)
        return try StrictJSON.decode(FormatPreset.self, from: Self.read(path), file: path)
    }

    /// The `description` of any preset file, for listings.
    public func describe(_ name: String, kind: Kind) -> String {
        guard let directory, let data = FileManager.default.contents(atPath: "\(directory)/\(kind.rawValue)/\(name).json"),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return "" }
        return obj["description"] as? String ?? ""
    }
}
