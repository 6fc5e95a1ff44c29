import SweepSupport

/// The command line's spelling of the settings library errors name neutrally.
package enum OptionNames {
    static let flags: [SweepError.Field: String] = [
        .size: "--size", .fps: "--fps", .codec: "--codec", .codecOptions: "--codec-opt",
        .maxPixels: "--max-pixels", .maxBytes: "--max-bytes", .maxMemory: "--max-memory", .look: "--look", .beforeLook: "--before-look",
        .preset: "--preset", .format: "--format",
        .duration: "--duration", .crf: "--crf", .poster: "--poster",
        .start: "--start", .end: "--end", .beforeOffset: "--before-start", .afterOffset: "--after-start", .audio: "--audio", .hdr: "--hdr",
        .overwrite: "--overwrite",
    ]

    /// The flag for `field`, or the field's own name for one the CLI has no flag for.
    static func flag(_ field: SweepError.Field) -> String { flags[field] ?? field.name }

    /// `error` as one line, its field spelled as a flag.
    package static func describe(_ error: SweepError) -> String { error.describe(spelling: flag) }
}
