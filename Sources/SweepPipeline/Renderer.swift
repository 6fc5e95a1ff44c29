#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SweepGIF
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTimeline

/// Runs a render: spec → timeline → frames → encoder → file, streaming frame by frame.
public enum Renderer {
    /// Progress report: frames done and total.
    public typealias Progress = @Sendable (_ done: Int, _ total: Int) -> Void

    /// Renders `spec` to `path`; the format follows the path (see ``OutputKind``).
    ///
    /// The output appears only when complete: it is written under a temporary name and
    /// renamed, so a failure leaves no partial file and keeps any existing one.
    public static func render(_ spec: RenderSpec, to path: String, progress: Progress? = nil) throws -> RenderResult {
        var spec = spec
        var notes: [String] = []
        let kind = try OutputKind.infer(path: path, codec: spec.codec)
        try refuseInputAsOutput(spec, output: path)
        if spec.width == nil && spec.height == nil && spec.defaultLongSide == nil {
            // A 12-megapixel phone photo should not become a 12-megapixel GIF by default
            // (and a size cap starts its ladder from there, not from the photo's size).
            switch kind {
            case .gif: spec.defaultLongSide = 800
            case .video, .html: spec.defaultLongSide = 1920
            default: break
            }
        }
        if case .gif = kind, spec.fps > GIFTiming.maxFPS {
            // Faster frames would each still take 2 cs, and the animation would play slow.
            notes.append(String(format: "frame rate %g → %g fps (a GIF shows a frame for at least 2 cs)", spec.fps, GIFTiming.maxFPS))
            spec.fps = GIFTiming.maxFPS
        }
        var result = try renderChecked(spec, kind: kind, to: path, progress: progress)
        result.notes.insert(contentsOf: notes, at: 0)
        return result
    }

    /// Renders with the size cap, if any, applied.
    private static func renderChecked(_ spec: RenderSpec, kind: OutputKind, to path: String,
                                      progress: Progress?) throws -> RenderResult {
        var info = stat()
        let isDevice = stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG
        if let cap = spec.maxBytes, !isDevice {
            switch kind {
            case .gif: return try renderUnderCap(spec, cap: cap, to: path, progress: progress)
            case .video: return try videoUnderCap(spec, cap: cap, to: path, progress: progress)
            default:
                let r = try renderOnce(spec, to: path, progress: progress)
                if r.bytes > cap {
                    unlink(path)
                    throw SweepError(.dataError, "the output is \(r.bytes) bytes, over the limit of \(cap)", subject: path,
                                     fix: "use a smaller size or another format")
                }
                return r
            }
        }
        return try renderOnce(spec, to: path, progress: progress)
    }

    /// Fits a GIF under `cap` bytes by giving up, in this order and one step at a time:
    /// colours (256 → 128 → 64), then frame rate (× 2/3, down to 10 fps), then size
    /// (× 0.8, down to 160 px on the shorter side).
    static func renderUnderCap(_ spec: RenderSpec, cap: Int, to path: String, progress: Progress?) throws -> RenderResult {
        let source = try FrameSource(spec: spec)  // fixes the size (and validates the inputs) once
        var first = spec
        first.width = source.width
        first.height = source.height
        let fitted = fittedNote(spec, source).map { [$0] } ?? []
        var result = try fit(first, cap: cap, to: path, progress: progress) { attempt, result, smallest in
            let w = attempt.width!, h = attempt.height!
            if attempt.gifColors > 64 {
                let c = attempt.gifColors > 128 ? 128 : 64
                defer { attempt.gifColors = c }
                return "colours \(attempt.gifColors) → \(c)"
            } else if attempt.fps > 10.5 {
                let f = max(10, (attempt.fps * 2 / 3).rounded())
                defer { attempt.fps = f }
                return String(format: "frame rate %g → %g fps", attempt.fps, f)
            } else if min(w, h) > 160 {
                let nw = max(2, Int(Double(w) * 0.8)), nh = max(2, Int(Double(h) * 0.8))
                attempt.width = nw
                attempt.height = nh
                return "size \(w)x\(h) → \(nw)x\(nh)"
            }
            throw SweepError(.dataError, "cannot fit under \(cap) bytes; the smallest attempt was \(smallest) bytes",
                             subject: path, fix: "raise --max-bytes, or shorten the animation")
        }
        result.notes.insert(contentsOf: fitted, at: 0)
        return result
    }

    /// Refuses an output that is one of the input files (by device and inode, so another
    /// spelling of the same path or a hard link counts): the render would replace the very
    /// photo it reads.
    static func refuseInputAsOutput(_ spec: RenderSpec, output: String) throws {
        var out = stat()
        guard stat(output, &out) == 0 else { return }
        for (side, input) in [("before", spec.before), ("after", spec.after)] {
            guard case let .file(file)? = input else { continue }
            var info = stat()
            if stat(file, &info) == 0, info.st_dev == out.st_dev, info.st_ino == out.st_ino {
                throw SweepError(.usage, "the output is the \(side) image, which the render would replace", subject: output,
                                 fix: "choose another output path")
            }
        }
    }

    /// The note saying that the default size shrank the before image, or nil.
    static func fittedNote(_ spec: RenderSpec, _ source: FrameSource) -> String? {
        guard let limit = spec.defaultLongSide, spec.width == nil, spec.height == nil,
              max(source.beforeSize.width, source.beforeSize.height) > limit else { return nil }
        return "size \(source.width)x\(source.height) (the before image fitted within \(limit) px; --size to change)"
    }

    /// Fits a video under `cap` bytes by raising the CRF (+4 at a time, up to 3 times).
    static func videoUnderCap(_ spec: RenderSpec, cap: Int, to path: String, progress: Progress?) throws -> RenderResult {
        var steps = 0
        return try fit(spec, cap: cap, to: path, progress: progress) { attempt, result, _ in
            var codecCRF: Int?
            if case let .video(codec, _) = try OutputKind.infer(path: path, codec: attempt.codec) {
                codecCRF = codec.defaults.first { $0.0 == "crf" }.flatMap { Int($0.1) }
            }
            let current = attempt.videoOptions.last(where: { $0.0 == "crf" }).flatMap { Int($0.1) } ?? codecCRF
            guard steps < 3, let crf = current, codecCRF != nil else {
                throw SweepError(.dataError, "the video is \(result.bytes) bytes, over the limit of \(cap)", subject: path,
                                 fix: "shorten it, lower --size or --fps, or raise --crf")
            }
            steps += 1
            attempt.videoOptions.removeAll { $0.0 == "crf" }
            attempt.videoOptions.append(("crf", String(crf + 4)))
            return "CRF \(crf) → \(crf + 4)"
        }
    }

    /// Renders complete attempts to a hidden file beside `path` until one fits under `cap`,
    /// then moves it into place. `degrade` changes the attempt and says what it gave up, or
    /// throws when nothing is left to give. An existing output is only ever replaced whole.
    static func fit(_ spec: RenderSpec, cap: Int, to path: String, progress: Progress?,
                    degrade: (inout RenderSpec, RenderResult, Int) throws -> String) throws -> RenderResult {
        let start = Date()
        let url = URL(fileURLWithPath: path)
        let trial = url.deletingLastPathComponent().path + "/.\(url.lastPathComponent).\(getpid()).try.\(url.pathExtension)"
        defer { unlink(trial) }
        var attempt = spec
        attempt.maxBytes = nil
        var gaveUp: [String] = []
        var smallest = Int.max
        while true {
            var result = try renderOnce(attempt, to: trial, progress: progress)
            smallest = min(smallest, result.bytes)
            if result.bytes <= cap {
                let out = try AtomicOutput(destination: path)
                guard rename(trial, out.temporaryPath) == 0 else {
                    throw SweepError(.ioError, "cannot move the finished file into place", subject: path)
                }
                try out.commit()
                result.output = path
                if !gaveUp.isEmpty { result.notes.append("to fit under \(cap) bytes: " + gaveUp.joined(separator: ", ")) }
                result.seconds = Date().timeIntervalSince(start)
                return result
            }
            gaveUp.append(try degrade(&attempt, result, smallest))
        }
    }

    static func renderOnce(_ spec: RenderSpec, to path: String, progress: Progress? = nil) throws -> RenderResult {
        let kind = try OutputKind.infer(path: path, codec: spec.codec)
        let start = Date()
        var spec = spec
        var notes: [String] = []
        guard spec.fps.isFinite, spec.fps > 0, spec.fps <= 240 else {
            throw SweepError(.usage, "frame rate \(spec.fps) is out of range", subject: "--fps", fix: "use 1…240")
        }
        if case let .video(codec, _) = kind, !codec.isRGB {
            // 4:2:0 needs even sides (the odd last column or row is dropped), and chroma is
            // subsampled 2×2: the divider goes on even pixels to stay crisp and white.
            spec.evenSize = true
            spec.style.pixelGrid = 2
        }
        let source = try FrameSource(spec: spec)
        if let odd = source.unevenSize {
            notes.append("size made even: \(odd.width)x\(odd.height) → \(source.width)x\(source.height)")
        }
        if let note = fittedNote(spec, source) { notes.append(note) }
        let anim = spec.animation
        let fps = spec.fps
        let reduce = spec.reduceMotion
        let expand: Bool
        switch kind {
        case .gif: expand = false
        default: expand = true
        }
        let count = anim.frameCount(fps: fps, expandLoops: expand)
        let states = anim.states(frames: count, fps: fps, reduceMotion: reduce)
        let render: (Int, inout RGBAImage) -> Void = { i, frame in source.render(states[i], into: &frame) }
        let w = source.width, h = source.height
        var flashes = FlashDetector(fps: fps)
        // Runs before each output is committed: a refused animation leaves nothing behind.
        func checkFlashes() throws {
            guard flashes.fails else { return }
            let at = String(format: "%.2f", flashes.firstViolation ?? 0)
            let what = "flashes \(flashes.maxFlashesPerSecond) times within one second (from \(at) s), over WCAG 2.3.1's limit of 3"
            if spec.refuseFlashes {
                throw SweepError(.dataError, what, subject: path, fix: "slow the changes down, or use --reduce-motion dissolve")
            }
            notes.append("warning: " + what)
        }
        var bytes = 0
        var written = count
        let formatName: String

        switch kind {
        case .gif:
            formatName = "gif"
            let out = try AtomicOutput(destination: path)
            // Palette from frames spread evenly over time, so colours weigh by screen time.
            let samples = Swift.stride(from: 0, to: count, by: max(1, count / 12)).map { (image: source.render(states[$0]), weight: 1.0) }
            let st = spec.style
            var reserved: [RGBA8] = []
            if st.showHandle { reserved += [st.dividerColor, st.knobColor] }
            if st.showLabels { reserved.append(st.labelColor) }
            let palette = GIFPalette.build(samples: samples, count: spec.gifColors, reserved: reserved, transparent: true)
            let loopCount: Int? = switch anim.loop {
            case .once: nil
            case let .count(n): n <= 1 ? nil : n - 1
            case .forever, .boomerang: 0
            }
            let writer = try GIFWriter(path: out.temporaryPath, destination: path, width: w, height: h, palette: palette,
                                       dither: spec.dither, lossy: spec.lossy, loopCount: loopCount)
            let delays = GIFTiming.delays(count: count, fps: fps)
            try FramePump.run(count: count, width: w, height: h, render: render) { i, frame in
                try writer.add(frame, delay: delays[i])
                flashes.add(LuminanceProbe.regions(frame))
                progress?(i + 1, count)
            }
            try writer.finish()
            try checkFlashes()
            bytes = writer.bytesWritten
            written = writer.framesWritten
            try out.commit()
        case let .video(codec, container):
            formatName = codec.name
            let out = try AtomicOutput(destination: path)
            let writer = try VideoWriter(path: out.temporaryPath, destination: path, width: w, height: h, fps: fps,
                                         codec: codec, container: container, alpha: spec.style.background.a < 255,
                                         options: spec.videoOptions)
            if writer.acceptsYUV420 && anim.before.isConstant && anim.after.isConstant && reduce != .dissolve {
                // Nothing but the split moves: convert both sides once and compose in Y′CbCr.
                let looks = source.sides(before: anim.before.keyframes[0].value, after: anim.after.keyframes[0].value)
                let yuv = YUVCompositor(before: try writer.convert(looks.before), after: try writer.convert(looks.after),
                                        overlay: source.overlay)
                try FramePump.run(count: count, make: { YUVImage(width: w, height: h) },
                                  render: { i, frame in yuv.render(position: states[i].position, into: &frame) }) { _, frame in
                    try writer.add(frame)
                    flashes.add(LuminanceProbe.regions(frame))
                    progress?(writer.framesWritten, count)
                }
            } else {
                try FramePump.run(count: count, width: w, height: h, render: render) { _, frame in
                    try writer.add(frame)
                    flashes.add(LuminanceProbe.regions(frame))
                    progress?(writer.framesWritten, count)
                }
            }
            try writer.finish()
            try checkFlashes()
            try out.commit()
            bytes = fileSize(path)
        case .pngSequence:
            formatName = "png-sequence"
            var done: [String] = []
            do {
                try FramePump.run(count: count, width: w, height: h, render: render) { i, frame in
                    let name = String(format: path, i)
                    try StillEncoder.write(frame, to: name, format: .png)
                    done.append(name)
                    bytes += fileSize(name)
                    flashes.add(LuminanceProbe.regions(frame))
                    progress?(i + 1, count)
                }
                try checkFlashes()
            } catch {
                // A half-written sequence is a partial output: remove what this run wrote.
                for name in done { unlink(name) }
                throw error
            }
        case .html:
            // The browser draws the frames: the page holds the sides and the timeline.
            return try HTMLExport.write(spec, source: source, to: path, notes: notes)
        case let .still(format):
            formatName = format.rawValue
            let frame = source.render(states[0])
            try StillEncoder.write(frame, to: path, format: format)
            bytes = fileSize(path)
            written = 1
        }
        return RenderResult(output: path, format: formatName, bytes: bytes, width: w, height: h, frames: count,
                            framesWritten: written, fps: fps, duration: anim.passDuration,
                            seconds: Date().timeIntervalSince(start), notes: notes)
    }

    /// Writes one still of the comparison at split position `position`.
    public static func preview(_ spec: RenderSpec, position: Double, to path: String, quality: Int = 90,
                               maxBytes: Int? = nil) throws -> RenderResult {
        let start = Date()
        guard case let .still(format) = try OutputKind.infer(path: path, still: true, codec: spec.codec) else {
            throw SweepError(.usage, "not a still format", subject: path, fix: "use .png, .jpg or .webp")
        }
        try refuseInputAsOutput(spec, output: path)
        let source = try FrameSource(spec: spec)
        let s0 = spec.animation.state(at: 0)
        let frame = source.render(FrameState(position: position, before: s0.before, after: s0.after))
        if let maxBytes {
            let bytes = try StillEncoder.encode(frame, format: format, quality: quality, name: path)
            guard bytes.count <= maxBytes else {
                throw SweepError(.dataError, "the still is \(bytes.count) bytes, over the limit of \(maxBytes)", subject: path,
                                 fix: "use .jpg or .webp, or a smaller --size")
            }
        }
        try StillEncoder.write(frame, to: path, format: format, quality: quality)
        return RenderResult(output: path, format: format.rawValue, bytes: fileSize(path), width: source.width,
                            height: source.height, frames: 1, framesWritten: 1, fps: 0, duration: 0,
                            seconds: Date().timeIntervalSince(start), notes: [])
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
