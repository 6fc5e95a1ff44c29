import SweepImaging
import SweepSupport

/// One option of `render`, `preview` and `demo`, declared once: its spelling, its value's
/// parser, where it acts, and who may set it. The argument splitter, `interpret`, the scope
/// check, batch keys and error spellings all read it from ``OptionTable``.
package struct OptionDeclaration: Sendable {
    /// The value as the parser sees it, with the option's spelling for its messages and the
    /// values its declaration takes: each reader checks the declared range, so no range is
    /// written twice.
    package struct Value {
        /// The text given (empty for a switch).
        let text: String
        /// `--name`, as messages spell it.
        let option: String
        /// What the declaration takes.
        let values: OptionValues

        /// The number, within the declared ``OptionValues/number(_:)`` range.
        func number() throws -> Double {
            guard case .number(let range) = values else { preconditionFailure("\(option) does not declare a number") }
            return try ValueParser.double(text, option: option, range: range)
        }
        /// The whole number, within the declared ``OptionValues/whole(_:)`` range.
        func whole() throws -> Int {
            guard case .whole(let range) = values else { preconditionFailure("\(option) does not declare a whole number") }
            return try ValueParser.int(text, option: option, range: range)
        }
        /// The byte count, at least the declared minimum.
        func bytes() throws -> Int {
            guard case .bytes(let minimum) = values else { preconditionFailure("\(option) does not declare bytes") }
            return try ValueParser.bytes(text, option: option, minimum: minimum)
        }
        /// One of the declared ``OptionValues/choice(_:aliases:)`` words, as given.
        func word() throws -> String {
            guard case let .choice(words, aliases) = values else { preconditionFailure("\(option) does not declare words") }
            if words.contains(text) || aliases.contains(text) { return text }
            let hint = Suggestion.nearest(text, in: words).map { "did you mean \($0)?" } ?? "use one of \(words.joined(separator: ", "))"
            throw SweepError(.usage, "unknown \(option.dropFirst(2)) '\(text)'", subject: option, fix: hint)
        }
        func color() throws -> RGBA8 { try ValueParser.color(text, option: option) }
        func seconds() throws -> Double { try ValueParser.seconds(text, option: option) }
        func choice<T: RawRepresentable & CaseIterable>(_ type: T.Type) throws -> T where T.RawValue == String {
            try ValueParser.choice(text, option: option, as: type)
        }
    }

    /// Stores a parsed value (or a switch) into the options.
    package typealias Apply = @Sendable (inout RenderRequest, Value) throws -> Void

    package let name: String
    package let short: Character?
    /// The value's placeholder in help (`N`, `WxH`), or nil for a switch.
    package let placeholder: String?
    /// The values it takes.
    package let values: OptionValues
    /// The outputs it acts on, and what does its job elsewhere; nil acts on every output.
    package let scope: OptionScope.Rule?
    /// Among videos, the codecs it acts on, and what does its job on the others.
    package let codecs: OptionScope.CodecRule?
    /// The library's neutral name for it, which errors from below the CLI carry.
    package let field: SweepError.Field?
    /// A batch job line may set it (as a key of the same name).
    package let inBatch: Bool
    /// A social format may set it too; given on the command line, it wins.
    package let setByFormats: Bool
    /// Every value counts (`--codec-opt a=1 --codec-opt b=2`), not the last one.
    package let repeatable: Bool
    package let apply: Apply

    package init(
        _ name: String, short: Character? = nil, _ placeholder: String? = nil, _ values: OptionValues? = nil,
        acts scope: OptionScope.Rule? = nil,
        codecs: OptionScope.CodecRule? = nil, field: SweepError.Field? = nil, inBatch: Bool = true, setByFormats: Bool = false,
        repeatable: Bool = false, apply: @escaping Apply
    ) {
        self.name = name
        self.short = short
        self.placeholder = placeholder
        // Unless declared, an option with a value takes text its parser checks.
        self.values = values ?? (placeholder == nil ? .none : .text)
        self.scope = scope
        self.codecs = codecs
        self.field = field
        self.inBatch = inBatch
        self.setByFormats = setByFormats
        self.repeatable = repeatable
        self.apply = apply
    }

    /// What the argument splitter needs to know of it.
    package var splitterOption: ArgumentSplitter.Option { .init(name, short: short, value: placeholder != nil) }

    /// `-s, --size WxH`, as help and the man page head it.
    package var synopsis: String { (short.map { "-\($0), " } ?? "") + "--" + name + (placeholder.map { " " + $0 } ?? "") }
}
