import SweepSupport

/// Step one of parsing: splits argv into positionals and named options, knowing only
/// which options take a value. Accepts `--opt value`, `--opt=value`, short forms and `--`.
package struct ArgumentSplitter: Sendable {
    /// One option the command knows.
    package struct Option: Sendable {
        package let name: String
        package let short: Character?
        package let takesValue: Bool
        package init(_ name: String, short: Character? = nil, value: Bool = true) {
            self.name = name
            self.short = short
            self.takesValue = value
        }
    }

    /// The split arguments: positionals in order, options in order (repeats kept).
    package struct Result: Sendable, Equatable {
        package var positionals: [String] = []
        package var options: [(name: String, value: String?)] = []

        package init(positionals: [String] = [], options: [(name: String, value: String?)] = []) {
            self.positionals = positionals
            self.options = options
        }

        package static func == (a: Result, b: Result) -> Bool {
            a.positionals == b.positionals && a.options.elementsEqual(b.options) { $0.name == $1.name && $0.value == $1.value }
        }

        /// The last value given for `name`.
        package func value(_ name: String) -> String? { options.last { $0.name == name }?.value }
        /// True when the flag `name` was given.
        package func flag(_ name: String) -> Bool { options.contains { $0.name == name } }
    }

    package let options: [Option]

    package init(_ options: [Option]) { self.options = options }

    /// Splits `args` (without the program and command names).
    ///
    /// - Throws: `.usage` for an unknown option (naming the nearest known one) or a
    ///   missing value.
    package func split(_ args: [String]) throws -> Result {
        var r = Result()
        var i = 0
        while i < args.count {
            let a = args[i]
            i += 1
            if a == "--" { r.positionals += args[i...]; break }
            if a.hasPrefix("--") {
                var name = String(a.dropFirst(2))
                var inline: String?
                if let eq = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                guard let opt = options.first(where: { $0.name == name }) else { throw unknown("--" + name) }
                if opt.takesValue {
                    if let inline { r.options.append((name, inline)); continue }
                    guard i < args.count else { throw missing("--" + name) }
                    r.options.append((name, args[i]))
                    i += 1
                } else {
                    if inline != nil {
                        throw SweepError(.usage, "takes no value", subject: "--" + name, fix: "write just --\(name)")
                    }
                    r.options.append((name, nil))
                }
            } else if a.hasPrefix("-") && a.count > 1 && !a.dropFirst().allSatisfy({ $0.isNumber || $0 == "." }) {
                let c = a.dropFirst().first!
                guard let opt = options.first(where: { $0.short == c }) else { throw unknown(a) }
                if opt.takesValue {
                    let rest = String(a.dropFirst(2))
                    if !rest.isEmpty { r.options.append((opt.name, rest.hasPrefix("=") ? String(rest.dropFirst()) : rest)); continue }
                    guard i < args.count else { throw missing(a) }
                    r.options.append((opt.name, args[i]))
                    i += 1
                } else {
                    guard a.count == 2 else { throw unknown(a) }
                    r.options.append((opt.name, nil))
                }
            } else {
                r.positionals.append(a)
            }
        }
        return r
    }

    private func unknown(_ given: String) -> SweepError {
        let names = options.map { "--" + $0.name }
        let hint = Suggestion.nearest(given, in: names).map { "did you mean \($0)?" } ?? "see --help"
        return SweepError(.usage, "unknown option", subject: given, fix: hint)
    }

    private func missing(_ name: String) -> SweepError {
        SweepError(.usage, "needs a value", subject: name, fix: "write \(name) VALUE or \(name)=VALUE")
    }
}
