import Foundation
import SweepSupport

/// One line of a batch file: `render`'s options as a JSON object, plus `before`, `after`
/// and `output`. Turned into the same argument list `render` parses, so a job accepts
/// exactly what the command line does.
package struct BatchJob: Sendable, Equatable {
    /// 1-based line number in the jobs file.
    package let line: Int
    /// The job's text, as written (its identity for `--resume`).
    package let text: String
    package let output: String
    package let arguments: [String]

    /// Parses one JSONL line.
    ///
    /// - Throws: `.dataError` naming the file and line for invalid JSON, a missing field or
    ///   a value of the wrong type.
    package init(line: Int, text: String, file: String) throws {
        self.line = line
        self.text = text
        let at = "\(file):\(line)"
        if let position = StrictJSON.syntaxError(in: Data(text.utf8)) {
            throw SweepError(.dataError, "invalid JSON\(position.replacingOccurrences(of: " at line 1,", with: " at"))", subject: at,
                             fix: "write one {\"before\": …, \"output\": …} object per line")
        }
        guard let obj = try? JSONDecoder().decode([String: JobValue].self, from: Data(text.utf8)) else {
            throw SweepError(.dataError, "not a JSON object of strings, numbers, true/false or lists", subject: at,
                             fix: "write one {\"before\": …, \"output\": …} object per line")
        }
        guard case let .string(before)? = obj["before"] else {
            throw SweepError(.dataError, "field before is missing or not a string", subject: at, fix: "add \"before\": \"photo.jpg\"")
        }
        guard case let .string(output)? = obj["output"] else {
            throw SweepError(.dataError, "field output is missing or not a string", subject: at, fix: "add \"output\": \"out.gif\"")
        }
        self.output = output
        var args = [before]
        if let after = obj["after"] {
            guard case let .string(a) = after else { throw SweepError(.dataError, "field after is not a string", subject: at) }
            args.append(a)
        }
        args += ["--output", output]
        for key in obj.keys.sorted() where !["before", "after", "output"].contains(key) {
            for value in obj[key]!.items {
                switch value {
                case let .flag(on): if on { args.append("--\(key)") }
                case let .string(v): args += ["--\(key)", v]
                case let .number(v): args += ["--\(key)", v]
                case .list: throw SweepError(.dataError, "field \(key) nests lists", subject: at)
                }
            }
        }
        arguments = args
    }

    /// A 64-bit FNV-1a hash, for identities and content checks (not security).
    package static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }
}
