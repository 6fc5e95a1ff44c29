// SweepKit is the one import an app needs: the pipeline and the types it speaks in.
@_exported import SweepImaging
@_exported import SweepPipeline
@_exported import SweepSupport
@_exported import SweepTimeline
