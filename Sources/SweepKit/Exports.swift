// SweepKit is the one import an app needs: the pipeline and the types it speaks in.
@_exported import SweepImaging
@_exported import SweepPipeline
import SweepSupport
@_exported import SweepTimeline
import SweepWorker

/// Every failure sweep reports: a code (mapped to an exit status), a message, the file or
/// setting concerned, and a fix. The plumbing module it lives in is not re-exported.
public typealias SweepError = SweepSupport.SweepError

/// Where inputs are decoded (``RenderSpec/decoding``).
public typealias DecodeIsolation = SweepWorker.DecodeIsolation
/// The decode worker service: call `DecodeWorker.startAtLaunch()` first thing in `main` to
/// decode untrusted files in sandboxed child processes.
public typealias DecodeWorker = SweepWorker.DecodeWorker
