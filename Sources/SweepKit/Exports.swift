// SweepKit is the one import an app needs. It re-exports the types its API speaks in, one
// declaration at a time: the pipeline's internals (frame sources, compositors, encoder
// tuning) stay out of an app's namespace, and a type added to a lower module is not API
// until it is listed here.

@_exported import struct SweepImaging.Adjustments
@_exported import struct SweepImaging.ColorMatrix
@_exported import enum SweepImaging.FitMode
@_exported import struct SweepImaging.RGBA8
// Pictures and the slider's look.
@_exported import struct SweepImaging.RGBAImage
@_exported import struct SweepImaging.SafeInsets
@_exported import struct SweepImaging.SliderStyle
@_exported import enum SweepMedia.HDRHandling
// Settings, presets and results.
@_exported import struct SweepPipeline.CapAdvice
@_exported import struct SweepPipeline.ClipCut
@_exported import struct SweepPipeline.ClipOptions
@_exported import struct SweepPipeline.FormatPreset
@_exported import struct SweepPipeline.PresetLibrary
@_exported import struct SweepPipeline.RenderProgress
@_exported import struct SweepPipeline.RenderResult
@_exported import struct SweepPipeline.SoundOutcome
// Failures, and where untrusted files are decoded.
@_exported import struct SweepSupport.SweepError
// The timeline.
@_exported import struct SweepTimeline.Animation
@_exported import struct SweepTimeline.Crossfade
@_exported import enum SweepTimeline.Curve
@_exported import struct SweepTimeline.FrameState
@_exported import protocol SweepTimeline.Interpolatable
@_exported import struct SweepTimeline.Keyframe
@_exported import enum SweepTimeline.LoopMode
@_exported import enum SweepTimeline.ReduceMotion
@_exported import struct SweepTimeline.Spring
@_exported import struct SweepTimeline.Track
@_exported import enum SweepWorker.DecodeIsolation
@_exported import enum SweepWorker.DecodeWorker
