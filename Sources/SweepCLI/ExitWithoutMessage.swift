import SweepSupport

/// Ends the command with `code` after it has already said what it needed to (a bare
/// `sweep` prints its usage on stderr): `run` prints nothing more.
struct ExitWithoutMessage: Error {
    let code: SweepError.Code
}
