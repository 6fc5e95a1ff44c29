/// The door a request came in by. It decides one thing: what happens to an option given that
/// cannot act on the output (``OptionScope``), such as `--ease` for a still or `--crf` for a GIF.
package enum RequestDoor: Sendable {
    case commandLine
    case batch
    /// `sweep serve`, and the studio, whose export is a request to it.
    case service
    case sweepKit

    /// The scope rule, one table for every door: refused on the command line, where the person
    /// who typed it is there to fix it at once; a note in the result elsewhere: a batch job
    /// and the service (and its studio) run unattended or for a stranger, so one stray key
    /// does not cost the whole render, and an app configures one comparison once and writes it
    /// as several kinds of output (a GIF, an MP4, a page, an og:image).
    package var refusesMisfits: Bool {
        switch self {
        case .commandLine: true
        case .batch, .service, .sweepKit: false
        }
    }
}
