import Foundation
import SweepPipeline
import SweepSupport

/// One line of a batch file: `render`'s options as a JSON object, plus `before`, `after`
/// and `output`. Turned into the same argument list `render` parses, so a job accepts
/// exactly what the command line does, and nothing more.
///
/// A job line is written by a stranger, so its keys must be exactly `render`'s long option
/// names (a key such as `"output=hijack.gif"` is refused, not split at its `=`), every value
/// is passed attached to its option (`--size=…`), never as an argument of its own, and the
/// input paths follow `--`: no value can become an option, whatever it starts with.
package struct BatchJob: Sendable, Equatable {
    /// The longest job line read (bytes); a longer one fails as a job, unparsed.
    package static let maxLineBytes = 64 * 1024

    /// 1-based line number in the jobs file.
    package let line: Int
    /// The job's text, as written (its identity for `--resume`).
    package let text: String
    /// The output as written in the job (before the batch's output root applies).
    package let output: String
    /// The input images, as written (`before`, then `after` when given), or as resolved by
    /// ``reading(from:at:)``.
    package var inputs: [String]
    /// True when the job also writes a poster beside its output.
    package let poster: Bool
    /// The options, each `--name=value` or `--flag`.
    package var options: [String]

    /// Parses one JSONL line.
    ///
    /// - Throws: `.dataError` naming the file and line for a line that is too long, invalid
    ///   JSON, a missing field, an unknown key or a value of the wrong type.
    package init(line: Int, text: String, file: String) throws {
        self.line = line
        self.text = text
        let at = "\(file):\(line)"
        guard text.utf8.count <= Self.maxLineBytes else {
            throw SweepError(
                .dataError, "the line is \(text.utf8.count) bytes, over the limit of \(Self.maxLineBytes)", subject: at,
                fix: "shorten the job")
        }
        if let position = StrictJSON.syntaxError(in: Data(text.utf8)) {
            throw SweepError(
                .dataError, "invalid JSON\(position.replacingOccurrences(of: " at line 1,", with: " at"))", subject: at,
                fix: "write one {\"before\": …, \"output\": …} object per line")
        }
        guard let obj = try? JSONDecoder().decode([String: JobValue].self, from: Data(text.utf8)) else {
            throw SweepError(
                .dataError, "not a JSON object of strings, numbers, true/false or lists", subject: at,
                fix: "write one {\"before\": …, \"output\": …} object per line")
        }
        guard case let .string(before)? = obj["before"], !before.isEmpty else {
            throw SweepError(.dataError, "field before is missing or not a string", subject: at, fix: "add \"before\": \"photo.jpg\"")
        }
        guard case let .string(output)? = obj["output"], !output.isEmpty else {
            throw SweepError(.dataError, "field output is missing or not a string", subject: at, fix: "add \"output\": \"out.gif\"")
        }
        self.output = output
        var inputs = [before]
        if let after = obj["after"] {
            guard case let .string(a) = after, !a.isEmpty else {
                throw SweepError(.dataError, "field after is not a string", subject: at, fix: "write \"after\": \"graded.jpg\"")
            }
            inputs.append(a)
        }
        self.inputs = inputs
        var args: [String] = []
        for key in obj.keys.sorted() where !["before", "after", "output"].contains(key) {
            guard let option = Self.options[key] else {
                let hint =
                    Suggestion.nearest(key, in: Array(Self.options.keys)).map { "did you mean \"\($0)\"?" }
                    ?? "use render's long option names (sweep render --help)"
                throw SweepError(.dataError, "field \"\(key)\" is not an option of render", subject: at, fix: hint)
            }
            for value in obj[key]!.items {
                switch (value, option.takesValue) {
                case let (.flag(on), false): if on { args.append("--\(key)") }
                case let (.string(v), true), let (.number(v), true): args.append("--\(key)=\(v)")
                case (.list, _): throw SweepError(.dataError, "field \(key) nests lists", subject: at, fix: "use one flat list")
                case (_, false): throw SweepError(.dataError, "field \(key) is a switch", subject: at, fix: "write \"\(key)\": true")
                case (.flag, true):
                    throw SweepError(
                        .dataError, "field \(key) takes a value, not true/false", subject: at,
                        fix: "write \"\(key)\": \"…\"")
                }
            }
        }
        poster = obj["poster"] == .flag(true)
        options = args
    }

    /// Options whose value may name a file the job reads (a preset, look or format file).
    package static let fileOptions = ["format", "preset", "before-look", "look"]

    /// `render`'s options a job may set, by long name (not the output, which is the job's
    /// own key, nor anything ``OptionTable`` keeps to the command line).
    package static let options: [String: ArgumentSplitter.Option] = Dictionary(
        uniqueKeysWithValues: OptionTable.declarations.filter(\.inBatch).map { ($0.name, $0.splitterOption) })

    /// The argument list for `render`, writing to `output` (the job's output under the
    /// batch's root): options attached to their values, then `--`, then the inputs.
    package func arguments(output: String) -> [String] {
        ["--output=" + output] + options + ["--"] + inputs
    }

    /// The argument list with the output as written.
    package var arguments: [String] { arguments(output: output) }

    /// Every file the job reads: its inputs, then the preset, look and format files it names.
    package var reads: [String] {
        inputs
            + options.compactMap { option in
                Self.fileOptions.lazy.compactMap { key -> String? in
                    guard option.hasPrefix("--\(key)=") else { return nil }
                    let value = String(option.dropFirst(key.count + 3))
                    return PresetLibrary.isPath(value) ? value : nil
                }.first
            }
    }

    /// A 64-bit FNV-1a hash, for identities and content checks (not security); `hash`
    /// continues one over earlier bytes, so that a file can be hashed piece by piece.
    package static func fnv1a(_ bytes: some Sequence<UInt8>, continuing hash: UInt64 = 0xcbf29ce484222325) -> UInt64 {
        var h = hash
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }
}
