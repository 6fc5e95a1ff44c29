import Foundation
import SweepSupport

/// A request written as a JSON object (a batch job line, the service's spec): each key an
/// option of ``OptionTable`` that a job may set, by its long name; a value is a string or a
/// number, a list of them for a repeated option, or true/false for a switch. Decoded straight
/// into the named values ``RenderRequest/interpret(_:)`` reads, as the command line's are:
/// no argument list is built, so no value can ever be read as an option.
package enum RequestKeys {
    /// Keys a door sets itself: the inputs and the output.
    package static let reserved: Set<String> = ["before", "after", "output"]

    /// The options a JSON request may set, by key (not the output, which is the door's own
    /// key, nor anything ``OptionTable`` keeps to the command line).
    package static let options: [String: ArgumentSplitter.Option] = Dictionary(
        uniqueKeysWithValues: OptionTable.declarations.filter(\.inBatch).map { ($0.name, $0.splitterOption) })

    /// The named values of `object`'s option keys, in key order (a list's items in its order).
    ///
    /// - Parameter fail: makes the door's error from a message and its fix.
    /// - Throws: what `fail` makes, for an unknown key (naming the nearest), a nested list, a
    ///   value given to a switch or true/false given to an option with a value.
    package static func values(
        _ object: [String: JobValue], fail: (_ message: String, _ fix: String) -> SweepError
    ) throws -> [(name: String, value: String?)] {
        var given: [(name: String, value: String?)] = []
        for key in object.keys.sorted() where !reserved.contains(key) {
            guard let option = options[key] else {
                let hint =
                    Suggestion.nearest(key, in: Array(options.keys)).map { "did you mean \"\($0)\"?" }
                    ?? "use render's long option names (sweep render --help)"
                throw fail("field \"\(key)\" is not an option of render", hint)
            }
            for value in object[key]!.items {
                switch (value, option.takesValue) {
                case let (.flag(on), false): if on { given.append((key, nil)) }
                case let (.string(v), true), let (.number(v), true): given.append((key, v))
                case (.list, _): throw fail("field \(key) nests lists", "use one flat list")
                case (_, false): throw fail("field \(key) is a switch", "write \"\(key)\": true")
                case (.flag, true): throw fail("field \(key) takes a value, not true/false", "write \"\(key)\": \"…\"")
                }
            }
        }
        return given
    }

    /// `text` as a JSON object of request values.
    ///
    /// - Throws: what `fail` makes, for invalid JSON (with its position) or anything but an
    ///   object of strings, numbers, switches and lists.
    package static func object(_ text: [UInt8], fail: (_ message: String, _ fix: String) -> SweepError) throws -> [String: JobValue] {
        if let position = StrictJSON.syntaxError(in: Data(text)) {
            throw fail("invalid JSON\(position.replacingOccurrences(of: " at line 1,", with: " at"))", example)
        }
        guard let object = try? JSONDecoder().decode([String: JobValue].self, from: Data(text)) else {
            throw fail("not a JSON object of strings, numbers, true/false or lists", example)
        }
        return object
    }

    private static let example = "write one {\"before\": …, \"output\": …} object per line"
}
