import Foundation
import SweepImaging
import SweepSupport

/// Finds and reads presets: looks, animations and social formats.
///
/// The built-in presets are compiled into the binary (`BuiltinPresets`, generated from
/// `presets/`), so a `sweep` copied anywhere has them. A presets folder, when found,
/// overrides them name by name and adds its own; it is, in order: `$SWEEP_PRESETS`; a
/// `presets` folder beside or above the executable (a checkout's `.build/…/sweep`),
/// `../share/sweep/presets` from it (an install); `./presets`. A path (`x.json`,
/// `dir/x`) is always read as a file.
public struct PresetLibrary: Sendable {
    /// The kinds of preset, each a sub-folder.
    public enum Kind: String, Sendable, CaseIterable {
        case looks, animations, formats
    }

    /// The presets folder, if one was found; it overrides the built-in presets.
    public let directory: String?
    /// Whether the compiled-in presets back the folder (off only to test a folder alone).
    public let builtins: Bool

    public init(directory: String?, builtins: Bool = true) {
        self.directory = directory
        self.builtins = builtins
    }

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

    /// Names of the built-in presets of one kind, sorted.
    public static func builtinNames(_ kind: Kind) -> [String] {
        BuiltinPresets.files.keys.filter { $0.hasPrefix(kind.rawValue + "/") }
            .map { String($0.dropFirst(kind.rawValue.count + 1).dropLast(5)) }.sorted()
    }

    /// The compiled-in text of a built-in preset, or nil.
    public static func builtinText(_ name: String, kind: Kind) -> String? {
        BuiltinPresets.files["\(kind.rawValue)/\(name).json"]
    }

    /// Names in the folder only, sorted.
    func folderNames(_ kind: Kind) -> [String] {
        guard let directory, let files = try? FileManager.default.contentsOfDirectory(atPath: directory + "/" + kind.rawValue) else {
            return []
        }
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }
    }

    /// Names of the presets of one kind (the folder's and the built-in ones), sorted.
    public func names(_ kind: Kind) -> [String] {
        Array(Set(folderNames(kind) + (builtins ? Self.builtinNames(kind) : []))).sorted()
    }

    /// Where a lookup of `kind` searched, for errors.
    func searched(_ kind: Kind) -> String {
        var places: [String] = []
        if let directory { places.append("\(directory)/\(kind.rawValue)") }
        if builtins { places.append("the built-in presets") }
        return places.isEmpty ? "nowhere (no presets folder)" : places.joined(separator: " and ")
    }

    /// The preset's bytes and the name to cite in errors: a file when `nameOrPath` looks
    /// like a path or the folder has it, else the compiled-in text.
    ///
    /// - Parameters: `field` is the setting that named it and `subject` the file that did,
    ///   if any (for errors).
    public func source(_ nameOrPath: String, kind: Kind, field: SweepError.Field, subject: String? = nil) throws -> (
        data: Data, label: String
    ) {
        if Self.isPath(nameOrPath) {
            guard FileManager.default.fileExists(atPath: OpenedFiles.shared.physical(nameOrPath)) else {
                throw SweepError(.noInput, "no such preset file", subject: nameOrPath, fix: "check the path")
            }
            return (try Self.read(nameOrPath), nameOrPath)
        }
        if let directory, folderNames(kind).contains(nameOrPath) {
            let path = "\(directory)/\(kind.rawValue)/\(nameOrPath).json"
            return (try Self.read(path), path)
        }
        if builtins, let text = Self.builtinText(nameOrPath, kind: kind) {
            return (Data(text.utf8), "built-in \(kind.rawValue)/\(nameOrPath).json")
        }
        let all = names(kind)
        let hint =
            Suggestion.nearest(nameOrPath, in: all).map { "did you mean \($0)?" }
            ?? (all.isEmpty ? "set SWEEP_PRESETS to a presets folder or give a .json file" : "choose one of \(all.joined(separator: ", "))")
        throw SweepError(
            .usage, "unknown \(kind.rawValue.dropLast()) '\(nameOrPath)' (looked in \(searched(kind)))",
            subject: subject, fix: hint, field: field)
    }

    /// Whether a preset's name is read as a file's path: it ends in `.json` or names a folder.
    public static func isPath(_ nameOrPath: String) -> Bool {
        nameOrPath.hasSuffix(".json") || nameOrPath.contains("/")
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
        let (data, label) = try source(nameOrPath, kind: .looks, field: field, subject: subject)
        return try StrictJSON.decode(LookPreset.self, from: data, file: label).adjustments
    }

    /// An animation preset by name (`reveal`) or file, decoded (looks are resolved later),
    /// and the name of where it came from.
    package func animationPreset(_ nameOrPath: String) throws -> (AnimationPreset, String) {
        let (data, label) = try source(nameOrPath, kind: .animations, field: .preset)
        return (try StrictJSON.decode(AnimationPreset.self, from: data, file: label), label)
    }

    /// A social format by name (`instagram-square`) or file.
    public func format(_ nameOrPath: String) throws -> FormatPreset {
        let (data, label) = try source(nameOrPath, kind: .formats, field: .format)
        var format = try StrictJSON.decode(FormatPreset.self, from: data, file: label)
        format.name = nameOrPath
        return format
    }

    /// The `description` of any preset, for listings.
    public func describe(_ name: String, kind: Kind) -> String {
        guard let (data, _) = try? source(name, kind: kind, field: .preset),
            let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return "" }
        return obj["description"] as? String ?? ""
    }
}
