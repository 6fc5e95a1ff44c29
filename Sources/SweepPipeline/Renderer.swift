import Foundation
import SweepGIF
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTimeline

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a render: spec → timeline → frames → encoder → file, streaming frame by frame.
package enum Renderer {
    /// Progress report, after each frame.
    package typealias Progress = @Sendable (RenderProgress) -> Void

    /// Renders `spec` to `path`; the format follows the path (see ``OutputKind``).
    ///
    /// The output appears only when complete: it is written under a temporary name and
    /// renamed, so a failure leaves no partial file and keeps any existing one.
    package static func render(_ spec: RenderSpec, to path: String, progress: Progress? = nil) throws -> RenderResult {
        var spec = spec
        var notes: [String] = []
        let kind = try OutputKind.infer(path: path, codec: spec.codec)
        // Before any file is created: options that could name files, limits, inputs as outputs.
        if case let .video(codec, _) = kind { try EncoderOptionPolicy.check(spec.videoOptions, codec: codec) }
        try refuseInputAsOutput(spec, output: path)
        if case .pngSequence = kind {
            try PNGSequenceSink.validate(path)
            let frames = try RenderLimits.check(spec, expandLoops: true)
            try refuseInputAsOutput(spec, outputs: (0..<frames).lazy.map { String(format: path, $0) })
        }
        adjust(&spec, kind: kind, notes: &notes)
        var result: RenderResult
        if let cap = spec.maxBytes, !AtomicOutput.writesDirectly(to: path) {
            result = try SizeCap(bytes: cap).render(spec, kind: kind, to: path, progress: progress)
        } else {
            result = try renderOnce(spec, kind: kind, to: path, progress: progress)
        }
        result.notes.insert(contentsOf: notes, at: 0)
        return result
    }

    /// The checks a render of `spec` to `path` makes before it reads an input: the output's
    /// kind, encoder options that could name files, the frame rate, duration and frame count,
    /// and the size when the spec alone fixes it. A service runs them when a request arrives,
    /// so that it is refused then, not accepted and failed later.
    ///
    /// - Throws: what ``render(_:to:progress:)`` (or ``preview(_:position:to:quality:maxBytes:)``
    ///   for a `still`) would throw for them.
    package static func preflight(_ spec: RenderSpec, to path: String, still: Bool) throws {
        _ = try plannedWork(spec, to: path, still: still)
    }

    /// What a render of `spec` to `path` will make, as far as the spec alone says: its kind,
    /// its frames (one for a still or a page) and its size when the spec fixes it; after the
    /// checks of ``preflight(_:to:still:)``. A service estimates a render's time from it.
    ///
    /// - Throws: what ``preflight(_:to:still:)`` throws.
    package static func plannedWork(_ spec: RenderSpec, to path: String, still: Bool) throws -> (
        kind: OutputKind, frames: Int, size: (width: Int, height: Int)?
    ) {
        let kind = try OutputKind.infer(path: path, still: still, codec: spec.codec)
        if case let .video(codec, _) = kind { try EncoderOptionPolicy.check(spec.videoOptions, codec: codec) }
        var spec = spec
        var notes: [String] = []
        adjust(&spec, kind: kind, notes: &notes)
        let frames = try RenderLimits.check(spec, expandLoops: !kind.isStill, frames: !kind.isStill)
        if kind == .html && spec.html.retina { try RenderLimits.checkDoubled(width: spec.width, height: spec.height) }
        evenSides(&spec, kind: kind)
        let size = FrameSource.givenSize(spec)
        if let size {
            try FrameSource.validate(width: size.width, height: size.height, spec: spec)
            if kind == .html && spec.html.retina {
                try RenderLimits.checkDoubled(width: size.width, height: size.height, maxFramePixels: spec.maxFramePixels)
            }
        }
        return (kind, kind.isStill || kind == .html ? 1 : max(1, frames), size)
    }

    /// Video in 4:2:0 needs even sides: the odd last column or row is dropped.
    package static func evenSides(_ spec: inout RenderSpec, kind: OutputKind) {
        if case let .video(codec, _) = kind, !codec.isRGB { spec.evenSize = true }
    }

    /// What a render of `kind` changes in `spec` before it counts frames: the default size,
    /// reduced motion resolved, and a GIF's rate within what GIF timing can show (noted).
    package static func adjust(_ spec: inout RenderSpec, kind: OutputKind, notes: inout [String]) {
        capDefaultSize(&spec, kind: kind)
        spec.reduceMotion = spec.reduceMotion.resolved(gif: kind == .gif)
        if case .gif = kind, spec.fps > GIFTiming.maxFPS {
            // Faster frames would each still take 2 cs, and the animation would play slow.
            notes.append(String(format: "frame rate %g → %g fps (a GIF shows a frame for at least 2 cs)", spec.fps, GIFTiming.maxFPS))
            spec.fps = GIFTiming.maxFPS
        }
    }

    /// Renders `spec` frame by frame into `body`, in order, without writing a file: the
    /// frames a PNG sequence of the spec would hold (its default size, clip timing and
    /// notes). Frames are streamed: `body` must copy a frame it wants to keep.
    package static func frames(
        _ spec: RenderSpec, progress: Progress? = nil, _ body: (_ index: Int, _ frame: RGBAImage) throws -> Void
    ) throws -> RenderResult {
        var spec = spec
        try RenderLimits.check(spec, expandLoops: true)
        var notes: [String] = []
        adjust(&spec, kind: .pngSequence, notes: &notes)
        return try withoutActuallyEscaping(body) { body in
            try renderOnce(spec, kind: .pngSequence, to: "", progress: progress, handler: body)
        }
    }

    /// The frames in each window of a sample (``RenderSpec/sampleWindows``).
    static let sampleLength = 8

    /// Where each of a sample's `windows` runs of ``sampleLength`` frames starts among
    /// `frames` (at least two runs' worth a window): spread evenly, the first at the start
    /// and the last at the end. With a clip (its time at each frame, `clipTimes`), each later
    /// run moves, by at most half the spacing, to the first frame at or after the key frame
    /// nearest its place: the decoder then seeks there and decodes the run alone, not the
    /// frames between (on a 44 s clip with a key frame every 8.3 s, half a group of pictures
    /// a run). A run with no key frame within reach stays where it was.
    static func sampleStarts(frames n: Int, windows: Int, clipTimes: [Double]?, keyFrames: [Double]) -> [Int] {
        let l = sampleLength
        precondition(windows > 1 && n >= 2 * windows * l, "a sample takes at least two runs' worth of frames a run")
        let even = (0..<windows).map { $0 * (n - l) / (windows - 1) }
        guard let times = clipTimes, times.count == n, !keyFrames.isEmpty else { return even }
        let reach = (n - l) / (windows - 1) / 2
        var starts = [even[0]]
        for s in even.dropFirst() {
            let lo = max(starts[starts.count - 1] + l, s - reach), hi = min(n - l, s + reach)
            guard lo <= hi else {
                starts.append(min(n - l, max(s, starts[starts.count - 1] + l)))
                continue
            }
            // Key frame times are shown times in ticks turned to seconds: a millisecond's slack
            // for the rounding.
            let (first, last) = (times[lo] - 0.001, times[hi])
            let near = keyFrames.filter { $0 >= first && $0 <= last }.min { abs($0 - times[s]) < abs($1 - times[s]) }
            starts.append(near.flatMap { key in (lo...hi).first { times[$0] >= key - 0.001 } } ?? s)
        }
        return starts
    }

    /// The longest side an output takes from the before image when no size is given:
    /// 800 px for GIF, 1920 px for video, PNG sequences and stills.
    package static func defaultLongSide(for kind: OutputKind) -> Int {
        if case .gif = kind { return 800 }
        return 1920
    }

    /// A 12-megapixel phone photo should not become a 12-megapixel GIF, video, PNG
    /// sequence or still by default (and a size cap starts its ladder from there, not
    /// from the photo's size); the summary's note says so.
    package static func capDefaultSize(_ spec: inout RenderSpec, kind: OutputKind) {
        if spec.width == nil && spec.height == nil && spec.defaultLongSide == nil {
            spec.defaultLongSide = defaultLongSide(for: kind)
        }
    }

    /// Refuses an output that is one of the input files (by device and inode, so another
    /// spelling of the same path or a hard link counts): the render would replace the very
    /// photo it reads.
    static func refuseInputAsOutput(_ spec: RenderSpec, output: String) throws {
        try refuseInputAsOutput(spec, outputs: [output])
    }

    /// The same for every path in `outputs` (the frames a PNG-sequence pattern writes).
    static func refuseInputAsOutput(_ spec: RenderSpec, outputs: some Sequence<String>) throws {
        let inputs = inputFiles(spec)
        if inputs.isEmpty { return }
        for output in outputs {
            var out = stat()
            guard stat(OpenedFiles.shared.physical(output), &out) == 0 else { continue }
            if let side = inputs.first(where: { $0.id == FileID(out) })?.side {
                throw SweepError(
                    .usage, "the output is \(side), which the render would replace", subject: output,
                    fix: "choose another output path")
            }
        }
    }

    /// The files a render reads that exist, by device and inode: its inputs and the files
    /// its settings came from.
    static func inputFiles(_ spec: RenderSpec) -> [(side: String, id: FileID)] {
        let sides = [("before", spec.before), ("after", spec.after)].compactMap { side, input -> (String, FileID)? in
            guard case let .file(file)? = input, let id = FileID(path: file) else { return nil }
            return ("the \(side) image", id)
        }
        return sides + spec.settingsFiles.compactMap { option, path in FileID(path: path).map { ("the file \(option) reads", $0) } }
    }

    /// Checks, before anything is written, that `path` could take an extra output of this
    /// render (a poster beside a video, a plan's picture): it is not an input, not a folder, and its folder
    /// exists and is writable.
    ///
    /// - Throws: `.usage` for an input, `.cannotCreate` otherwise; `field` names the setting.
    package static func checkExtraOutput(_ spec: RenderSpec, path: String, field: SweepError.Field? = nil) throws {
        try refuseInputAsOutput(spec, output: path)
        let physical = OpenedFiles.shared.physical(path)
        let folder = URL(fileURLWithPath: physical).deletingLastPathComponent().path
        var info = stat()
        if stat(physical, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            throw SweepError(.cannotCreate, "the path is a folder", subject: path, fix: "move the folder away", field: field)
        }
        guard stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, access(folder, W_OK) == 0 else {
            throw SweepError(
                .cannotCreate, "its folder is missing or not writable", subject: path,
                fix: "choose a folder you can write to", field: field)
        }
    }

    /// The note saying that the default size shrank the before image, or nil.
    static func fittedNote(_ spec: RenderSpec, _ source: FrameSource) -> String? {
        guard let limit = spec.defaultLongSide, spec.width == nil, spec.height == nil,
            max(source.beforeSize.width, source.beforeSize.height) > limit
        else { return nil }
        return "size \(source.width)x\(source.height) (the before image fitted within \(limit) px; set a size to change it)"
    }

    /// Renders `spec` once: pumps its frames into the sink for `kind`, checks flashes,
    /// lets `accept` look at the finished (uncommitted) result, then commits.
    ///
    /// - Parameters:
    ///   - position: for a still, the split position shown (default: the middle).
    ///   - watch: sees the bytes written after each frame (a GIF's), and throws to stop there.
    ///   - accept: throws to refuse the result; nothing is then written.
    ///   - recording: for a GIF, keeps each frame's quantization (``QuantizedFrames``), so
    ///     that the file can be coded again with another lossy budget.
    static func renderOnce(
        _ spec: RenderSpec, kind: OutputKind, to path: String, position: Double? = nil,
        quality: Int = 90, progress: Progress? = nil, watch: FrameObserver.Watch? = nil,
        accept: (RenderResult) throws -> Void = { _ in }, handler: ((Int, RGBAImage) throws -> Void)? = nil,
        recording: QuantizedFrames? = nil
    ) throws -> RenderResult {
        let start = Date()
        var spec = spec
        var notes: [String] = []
        let still = kind.isStill
        // A still takes one frame; everything else its whole timeline, checked before it is sampled.
        if still {
            try RenderLimits.check(spec, expandLoops: false, frames: false)
        } else {
            try RenderLimits.check(spec, expandLoops: true)
        }
        evenSides(&spec, kind: kind)
        let doubled = kind == .html && spec.html.retina
        if doubled { try RenderLimits.checkDoubled(width: spec.width, height: spec.height) }
        let source = try FrameSource(spec: spec)
        if doubled { try RenderLimits.checkDoubled(width: source.width, height: source.height) }
        if let odd = source.unevenSize {
            notes.append("size made even: \(odd.width)x\(odd.height) → \(source.width)x\(source.height)")
        }
        if let note = fittedNote(spec, source) { notes.append(note) }
        notes += source.notes + source.overlay.notes
        for misfit in clipMisfits(spec, source) {
            // Clip settings act on clips only; on a picture they would silently do nothing.
            guard spec.lenient else { throw misfit }
            notes.append("\(misfit.field?.name ?? "a clip setting") \(misfit.message), so it is ignored")
        }
        let anim = spec.animation
        var states: [FrameState<Adjustments>]
        var clipTimes: [Double]?
        var length = anim.passDuration
        if still {
            let s0 = anim.state(at: 0)
            states = [FrameState(position: position ?? restingPosition, before: s0.before, after: s0.after)]
            if source.clipDuration != nil { clipTimes = [0] }
        } else if let available = source.clipDuration, let rate = source.clipRate {
            if kind == .html {
                throw SweepError(
                    .usage, "an interactive page compares two pictures, not videos", subject: path,
                    fix: "render a video or GIF, or give the page a still of each clip")
            }
            let timeline = try ClipTimeline(
                animation: anim, clip: spec.clip, available: available, clipRate: rate, fps: spec.fps,
                maxFPS: ClipTimeline.maxFPS(kind), reduceMotion: spec.reduceMotion)
            spec.fps = timeline.fps
            states = timeline.states
            clipTimes = timeline.clipTimes
            length = timeline.length
            notes += timeline.notes
        } else {
            // A GIF, WebP or APNG plays its loops itself: one pass is enough.
            let frames = anim.frameCount(fps: spec.fps, expandLoops: !kind.playsItsOwnLoops)
            var times = (0..<frames).map { anim.time(ofFrame: $0, fps: spec.fps) }
            if kind == .gif, spec.reduceMotion == .dissolve, spec.fps > GIFTiming.fadeFPS {
                // Each fade frame is held to the fade's own rate; equal neighbours merge.
                let fade = GIFTiming.fadeFPS
                times = times.map { t in anim.position.transition(at: t) == nil ? t : (t * fade + 1e-9).rounded(.down) / fade }
            }
            states = anim.states(at: times, reduceMotion: spec.reduceMotion)
            length = Double(frames) / spec.fps  // a video's counted passes, a boomerang's way back
        }
        if let windows = spec.sampleWindows, windows > 1, !still, states.count >= 2 * windows * sampleLength {
            let l = sampleLength
            let picked = Self.sampleStarts(frames: states.count, windows: windows, clipTimes: clipTimes, keyFrames: source.clipKeyFrames)
                .flatMap { $0..<($0 + l) }
            states = picked.map { states[$0] }
            clipTimes = clipTimes.map { times in picked.map { times[$0] } }
        }
        if source.sidesIdentical, states.allSatisfy({ $0.before == $0.after }) {
            notes.append(
                "before and after are the same picture, so nothing changes as the split moves; give another after image, or a look for one photo"
            )
        }
        var plan = FramePlan(source: source, states: states, animation: anim, fps: spec.fps, reduceMotion: spec.reduceMotion)
        plan.clipTimes = clipTimes
        let observer = FrameObserver(
            fps: spec.fps, total: plan.count, progress: progress, watch: watch, cancellation: spec.cancellation)

        var silence: String?
        var audioInput: AudioInput?
        func finish<Sink: FrameSink & ~Copyable>(_ sink: consuming Sink) throws -> RenderResult {
            try sink.write(plan, observer: observer)
            if !still, let warning = try observer.flashWarning(refuse: spec.refuseFlashes, output: path) {
                notes.append(warning)
            }
            var result = RenderResult(
                output: path, format: sink.formatName, bytes: sink.bytes, width: plan.width,
                height: plan.height, frames: kind == .html ? 1 : plan.count,  // a page's frames are drawn by the browser
                framesWritten: sink.framesWritten,
                fps: still ? 0 : spec.fps, duration: still ? 0 : length,
                seconds: Date().timeIntervalSince(start), notes: notes, colors: sink.paletteColors)
            // A clip cut short plays to its last frame, said in the result (and so the summary).
            if !source.cutShort.isEmpty, clipTimes != nil { result.cutShort = source.cutShort }
            if let (input, output, copied) = sink.audioCodecs, let carried = audioInput {
                result.sound = .carried(from: carried.path, codec: input, to: output, copied: copied)
            } else if let silence {
                result.sound = .none(silence)
            }
            try accept(result)
            try sink.commit()
            return result
        }
        switch kind {
        case .gif:
            if clipTimes != nil, spec.clip.audio == .before || spec.clip.audio == .after {
                notes.append("a GIF has no sound: the \(spec.clip.audio.rawValue) clip's audio is left out")
            }
            silence = "a GIF holds no sound"
            return try finish(GIFSink(spec: spec, plan: plan, destination: path, recording: recording))
        case let .video(codec, container):
            // The sound lasts as long as the frames do (whole frames: a little over `length`).
            let frames = Double(states.count) / spec.fps
            if still {
                silence = "a still"
            } else if clipTimes == nil {
                silence = "the inputs are pictures"
            } else {
                (audioInput, silence) = try soundtrack(
                    spec, source: source, length: frames, codec: codec, container: container)
            }
            return try finish(
                VideoSink(spec: spec, plan: plan, codec: codec, container: container, destination: path, audio: audioInput))
        case .pngSequence:
            silence = "a PNG sequence holds no sound"
            if let handler { return try finish(FrameHandlerSink(handle: handler)) }
            return try finish(PNGSequenceSink(pattern: path, keeping: Set(inputFiles(spec).map(\.id)), overwrite: spec.overwrite))
        case .html:
            silence = "a page holds no sound"
            return try finish(HTMLSink(spec: spec, destination: path))
        case let .still(format):
            silence = "a still"
            return try finish(StillSink(format: format, quality: quality, destination: path))
        }
    }

    /// The clip settings that cannot act on these inputs: a trim or sound with no clip, an
    /// offset for a side that is a picture (or the after side of one input).
    static func clipMisfits(_ spec: RenderSpec, _ source: FrameSource) -> [SweepError] {
        let c = spec.clip
        var found: [SweepError] = []
        let pictures = source.beforeClip == nil && source.afterClip == nil
        if pictures {
            let set: [(Bool, SweepError.Field)] = [(c.start != 0, .start), (c.end != nil, .end)]
            for (given, field) in set where given {
                found.append(
                    SweepError(.usage, "trims clips, and the inputs are pictures", fix: "leave it out, or give a video", field: field))
            }
            if c.audio == .before || c.audio == .after {
                found.append(SweepError(.usage, "picks a clip's sound, and the inputs are pictures", fix: "leave it out", field: .audio))
            }
        }
        if c.beforeOffset != 0, source.beforeClip == nil {
            found.append(
                SweepError(.usage, "offsets the before clip, and the before input is a picture", fix: "leave it out", field: .beforeOffset))
        }
        if c.afterOffset != 0, spec.after == nil || source.afterClip == nil {
            let why = spec.after == nil ? "and there is one input (its clip plays on both sides)" : "and the after input is a picture"
            found.append(
                SweepError(
                    .usage, "offsets the after clip, \(why)", fix: spec.after == nil ? "set the start instead" : "leave it out",
                    field: .afterOffset))
        }
        return found
    }

    /// The sound a video with clip inputs carries (``ClipOptions/audio``): the chosen clip's
    /// audio from the start, as long as the output; by default the before clip's, else the
    /// after clip's. Without sound, the reason instead.
    ///
    /// - Throws: `.usage` when the chosen side is a picture or has no audio.
    static func soundtrack(
        _ spec: RenderSpec, source: FrameSource, length: Double, codec: VideoCodec, container: String
    ) throws -> (AudioInput?, reason: String?) {
        let sides: [ClipOptions.Audio: (InputSource, ClipSide?, start: Double)] = [
            .before: (spec.before, source.beforeClip, spec.clip.start(side: 0)),
            .after: (spec.after ?? spec.before, source.afterClip, spec.clip.start(side: spec.after == nil ? 0 : 1)),
        ]
        let choice = spec.clip.audio
        switch choice {
        case .none: return (nil, "none was asked for")
        case .auto:
            if !VideoCodec.holdsSound(container) { return (nil, "an animated \(codec.name.uppercased()) holds no sound") }
            // The before clip's sound, else the after clip's (a photo before a clip keeps the clip's).
            var tooSlow = false
            for side in [ClipOptions.Audio.before, .after] {
                guard let (input, clip, start) = sides[side], case let .file(path) = input, clip != nil else { continue }
                let rate = AudioProbe.audioRate(path: path)
                if AudioProbe.isSound(rate: rate) { return (AudioInput(path: path, start: start, duration: length), nil) }
                tooSlow = tooSlow || rate != nil
            }
            if tooSlow {
                return (nil, "the inputs' sound is below \(AudioProbe.minimumRate) samples a second, which no real sound is")
            }
            return (nil, "the inputs have none")
        case .before, .after:
            guard let (input, clip, start) = sides[choice], case let .file(path) = input, clip != nil else {
                throw SweepError(
                    .usage, "the \(choice.rawValue) input is a picture, which has no sound", fix: "take the other clip's sound, or none",
                    field: .audio)
            }
            return (AudioInput(path: path, start: start, duration: length), nil)
        }
    }

    /// Where the split rests in a still nobody placed (a preview without `--position`, a
    /// still format, a poster): the middle, showing as much of the before as of the after.
    package static let restingPosition = 0.5

    /// Writes one still of the comparison at split position `position`.
    ///
    /// - Parameter maxBytes: a byte budget the still must fit as it is; over it, nothing is
    ///   written.
    package static func preview(
        _ spec: RenderSpec, position: Double, to path: String, quality: Int = 90,
        maxBytes: Int? = nil
    ) throws -> RenderResult {
        guard case let .still(format) = try OutputKind.infer(path: path, still: true, codec: spec.codec) else {
            throw SweepError(.usage, "not a still format", subject: path, fix: "use .png, .jpg or .webp")
        }
        try refuseInputAsOutput(spec, output: path)
        var spec = spec
        capDefaultSize(&spec, kind: .still(format))
        // Bytes at a quality, nothing written: a size cap's search.
        struct Measured: Error { let bytes: Int }
        func bytes(at q: Int) throws -> Int {
            do {
                _ = try renderOnce(
                    spec, kind: .still(format), to: path, position: position, quality: q, accept: { throw Measured(bytes: $0.bytes) })
            } catch let m as Measured { return m.bytes }
            return 0
        }
        var q = quality
        if let maxBytes, format != .png, try bytes(at: q) > maxBytes {
            // A JPEG or WebP gives up quality first: the highest that fits (down to 1).
            var (low, high, fits) = (1, q - 1, 0)
            while low <= high {
                let mid = (low + high) / 2
                if try bytes(at: mid) <= maxBytes { (fits, low) = (mid, mid + 1) } else { high = mid - 1 }
            }
            q = max(1, fits)  // none fits: the least, to say how far off it is
        }
        var result = try renderOnce(
            spec, kind: .still(format), to: path, position: position, quality: q,
            accept: { result in
                guard let maxBytes, result.bytes > maxBytes else { return }
                throw SweepError(
                    .dataError,
                    "the still is \(ByteCount.text(result.bytes))\(q < quality ? " even at quality \(q)" : ""), over the limit of \(ByteCount.text(maxBytes))",
                    subject: path,
                    fix: format == .png ? "use .jpg or .webp, or a smaller size" : "choose a smaller size")
            })
        if q != quality, let maxBytes { result.notes.append("to fit under \(ByteCount.text(maxBytes)): quality \(quality) → \(q)") }
        return result
    }
}
