import Foundation

/// What a program outside the CLI (the studio in `sweep serve`) may know of one option of
/// ``OptionTable``: enough to label a control and spell the option on a command line or as a
/// batch key, read from the one declaration so that the studio cannot drift from the CLI.
package struct OptionSummary: Sendable, Equatable {
    /// The long name, without `--` (also the batch key).
    package let name: String
    /// The value's placeholder (`S`, `cut|dissolve|auto`), or nil for a switch.
    package let placeholder: String?
    /// The values it takes, with their range.
    package let values: OptionValues
    /// The option's help (its group's).
    package let help: String
    /// A batch job (and so a spec sent to the service) may set it.
    package let inBatch: Bool

    /// Every option of `render`, in the table's order.
    package static let all: [OptionSummary] = OptionTable.groups.flatMap { group in
        group.options.map {
            OptionSummary(
                name: $0.name, placeholder: $0.placeholder, values: $0.values, help: group.help,
                inBatch: $0.inBatch)
        }
    }

    /// The options by long name.
    package static let byName: [String: OptionSummary] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}
