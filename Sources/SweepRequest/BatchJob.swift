import Foundation
import SweepPipeline
import SweepSupport

/// One line of a batch file: `render`'s options as a JSON object (``RequestKeys``), plus
/// `before`, `after` and `output`. A job accepts exactly what the command line does, and
/// nothing more.
///
/// A job line is written by a stranger, so its keys must be exactly `render`'s long option
/// names (a key such as `"output=hijack.gif"` is refused, not split at its `=`), and its
/// values are decoded into named values, never into an argument list: no value can become an
/// option, whatever it starts with.
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
    /// The options, by name, with their values (nil for a switch), in key order.
    package var options: [Given]

    /// One option of the job.
    package struct Given: Sendable, Equatable {
        package var name: String
        package var value: String?

        package init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

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
        let obj = try RequestKeys.object(Array(text.utf8)) { SweepError(.dataError, $0, subject: at, fix: $1) }
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
        options = try RequestKeys.values(obj) { SweepError(.dataError, $0, subject: at, fix: $1) }.map {
            Given(name: $0.name, value: $0.value)
        }
        poster = obj["poster"] == .flag(true)
    }

    /// Options whose value may name a file the job reads (a preset, look or format file).
    package static let fileOptions = ["format", "preset", "before-look", "look"]

    /// The request the job makes, writing to `output` (the job's output under the batch's
    /// root): its options as named values, its inputs as the inputs.
    package func request(output: String) throws -> RenderRequest {
        var given = ArgumentSplitter.Result()
        given.positionals = inputs
        given.options = [("output", output)] + options.map { ($0.name, $0.value) }
        return try RenderRequest.interpret(given)
    }

    /// Every file the job reads: its inputs, then the preset, look and format files it names.
    package var reads: [String] {
        inputs
            + options.compactMap { option in
                guard Self.fileOptions.contains(option.name), let value = option.value, PresetLibrary.isPath(value) else { return nil }
                return value
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
