/// The door a request came in by. It decides one thing: what happens to an option given that
/// cannot act on the output (``OptionScope``), such as `--ease` for a still or `--crf` for a GIF.
package enum RequestDoor: String, Sendable, CaseIterable {
    case commandLine = "command line"
    case batch
    /// `sweep serve`, and the studio, whose export is a request to it.
    case service
    case sweepKit = "SweepKit"

    /// The scope rule, one table for every door: refused where the person who set it is there
    /// to fix it at once (the command line, an app's code); a note in the result where the
    /// render runs unattended or for a stranger (a batch job, the service and its studio), so
    /// that one stray key does not cost the whole render.
    package var refusesMisfits: Bool {
        switch self {
        case .commandLine, .sweepKit: true
        case .batch, .service: false
        }
    }
}
