/// The values one option takes, declared once in ``OptionTable``: its parser checks them,
/// and the service's OpenAPI document and the studio's controls state them, so that a range
/// cannot be one thing in the parser and another where it is shown.
package enum OptionValues: Sendable, Equatable {
    /// A switch: no value.
    case none
    /// A number in the range.
    case number(ClosedRange<Double>)
    /// A whole number in the range.
    case whole(ClosedRange<Int>)
    /// One of these words; `aliases` are other spellings the parser takes (`easeIn`), not shown.
    case choice([String], aliases: [String] = [])
    /// One of these words, or a whole number in the range (`--loop`).
    case choiceOrWhole([String], ClosedRange<Int>)
    /// A time in a clip: seconds or minutes:seconds, within ``ValueParser/longestTime``.
    case time
    /// A byte count, plain or with a unit (15MB, 10MiB), from `minimum` to ``ValueParser/maxBytes``.
    case bytes(minimum: Double)
    /// A size (`1080x1080`, `1080`, `640x`, `x480`), each side in the range.
    case size(ClosedRange<Int>)
    /// A colour: `#RRGGBB`, `#RRGGBBAA`, white, black or transparent.
    case color
    /// Free text (a name, a file, a label), checked where it is used.
    case text

    /// The words of `T`, as a choice.
    package static func choice<T: RawRepresentable & CaseIterable>(_: T.Type) -> OptionValues where T.RawValue == String {
        .choice(T.allCases.map(\.rawValue))
    }
}
