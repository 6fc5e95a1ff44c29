import SweepSupport

/// The command line's spelling of the settings library errors name neutrally.
package enum OptionNames {
    /// Each field's flag, from ``OptionTable``.
    package static let flags: [SweepError.Field: String] = OptionTable.declarations.reduce(into: [:]) { flags, d in
        if let field = d.field { flags[field] = "--" + d.name }
    }

    /// The flag for `field`, or the field's own name for one the CLI has no flag for.
    package static func flag(_ field: SweepError.Field) -> String { flags[field] ?? field.name }

    /// `error` as one line, its field spelled as a flag.
    package static func describe(_ error: SweepError) -> String { error.describe(spelling: flag) }
}
