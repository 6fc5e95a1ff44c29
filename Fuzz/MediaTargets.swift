// The media targets of the fuzz harness: clips, HEIF, animated WebP and sound.
// FFmpeg and libheif read files, so each run's bytes go to one file under /dev/shm per
// process (overwritten every run, removed at exit).
import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepWorker

#if canImport(Glibc)
    import Glibc
#endif

/// The pixel limit of every media target: a picture or clip over it must be refused.
let fuzzMaxPixels = 1 << 16

/// This process's input file, and the audio target's output.
let fuzzInputPath = "/dev/shm/sweep-fuzz-\(getpid())-in"
let fuzzOutputPath = "/dev/shm/sweep-fuzz-\(getpid())-out"

/// Writes `bytes` to ``fuzzInputPath`` (replacing the last run's) and returns the path.
func fuzzFile(_ bytes: [UInt8]) -> String {
    let fd = open(fuzzInputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "cannot write \(fuzzInputPath)")
    var done = 0
    bytes.withUnsafeBytes { raw in
        while done < raw.count {
            let n = write(fd, raw.baseAddress! + done, raw.count - done)
            precondition(n > 0, "cannot write \(fuzzInputPath)")
            done += n
        }
    }
    close(fd)
    return fuzzInputPath
}

/// Removes the files at exit (libFuzzer ends with exit()).
func removeFuzzFilesAtExit() {
    atexit {
        unlink(fuzzInputPath)
        for ext in ["", ".mp4", ".webm", ".mkv"] { unlink(fuzzOutputPath + ext) }
    }
}

/// `probe`: the kind sniffing, then the clip decoder on a few frames at a small size.
func fuzzProbe(_ bytes: [UInt8]) {
    let path = fuzzFile(bytes)
    _ = try? MediaProbe.kind(of: path)
    // Sometimes from a start past 0, which seeks.
    let start = bytes.count % 4 == 3 ? 0.1 : 0
    guard let clip = try? VideoDecoder(path: path, start: start, maxPixels: fuzzMaxPixels) else { return }
    // The picture's size was checked against the limit (pixels may be up to 4:1 wide).
    // A container that gives no size opens as 0×0 (found by this target; reported, kept as
    // Tests/Fixtures/fuzz-crashes/probe-zero-size.flv): noted once, and its frames still drawn.
    if clip.width == 0 || clip.height == 0 {
        noteOnce("a clip opened as \(clip.width)×\(clip.height)")
    }
    precondition(clip.width >= 0 && clip.height >= 0, "a clip of \(clip.width)×\(clip.height)")
    precondition(clip.width * clip.height <= 4 * fuzzMaxPixels, "a clip of \(clip.width)×\(clip.height) passed the limit")
    precondition(clip.frameRate.isFinite && clip.frameRate > 0, "frame rate \(clip.frameRate)")
    precondition(clip.duration.isFinite && clip.duration > 0, "duration \(clip.duration)")
    _ = VideoDecoder.clipTime(clip.currentTime)
    clip.expectOutput(width: 24, height: 16, fit: .fit)
    var rgba = RGBAImage(width: 24, height: 16)
    var yuv = YUVImage(width: 24, height: 16)
    let fits: [FitMode] = [.fit, .fill, .stretch]
    for i in 0..<4 {
        guard (try? clip.advance(to: Double(i) / clip.frameRate)) != nil else { return }
        let fit = fits[i % 3]
        guard (try? clip.draw(into: &rgba, fit: fit)) != nil else { return }
        precondition(rgba.width == 24 && rgba.height == 16 && rgba.pixels.count == 24 * 16 * 4, "the RGBA frame changed size")
        guard (try? clip.draw(into: &yuv, fit: fit)) != nil else { return }
        precondition(
            yuv.width == 24 && yuv.height == 16 && yuv.y.count == 24 * 16 && yuv.u.count == 12 * 8 && yuv.v.count == 12 * 8,
            "the 4:2:0 frame changed size")
        if clip.ended { return }
    }
}

/// Known findings already reported: said once on stderr, then fuzzing goes on.
nonisolated(unsafe) var noted: Set<String> = []

func noteOnce(_ what: String) {
    guard noted.insert(what).inserted else { return }
    FileHandle.standardError.write(Data("KNOWN: \(what)\n".utf8))
}

/// `webp-anim`: the first frame as a still (composed on its canvas), then libwebp's
/// animation decoder as a clip.
func fuzzAnimatedWebP(_ bytes: [UInt8]) {
    if AnimatedWebP.isAnimated(bytes), let img = try? ImageDecoder.decode(bytes: bytes, name: "fuzz", maxPixels: fuzzMaxPixels) {
        precondition(img.pixels.count == img.width * img.height * 4 && img.width * img.height <= fuzzMaxPixels)
    }
    let path = fuzzFile(bytes)
    let start = bytes.count % 4 == 3 ? 0.05 : 0
    guard let clip = try? AnimatedWebPDecoder(path: path, start: start, maxPixels: fuzzMaxPixels) else { return }
    precondition(clip.width > 0 && clip.height > 0, "a canvas of \(clip.width)×\(clip.height)")
    precondition(clip.width * clip.height <= fuzzMaxPixels, "a canvas of \(clip.width)×\(clip.height) passed the limit")
    precondition(clip.frameRate.isFinite && (1...240).contains(clip.frameRate), "frame rate \(clip.frameRate)")
    precondition(clip.duration.isFinite && clip.duration > 0, "duration \(clip.duration)")
    var rgba = RGBAImage(width: 20, height: 12)
    // At most 8 steps of 40 ms: the frame limit.
    for i in 0..<8 {
        guard (try? clip.advance(to: Double(i) * 0.04)) != nil else { return }
        guard (try? clip.draw(into: &rgba, fit: i % 2 == 0 ? .fit : .fill)) != nil else { return }
        precondition(rgba.width == 20 && rgba.height == 12 && rgba.pixels.count == 20 * 12 * 4, "the frame changed size")
    }
}

/// `heif`: our box walk in process (every query the vetting makes), then the whole decode
/// (vetting and libheif) in the decode worker, where a libheif crash is a typed error.
func fuzzHEIF(_ bytes: [UInt8], inProcess: Bool) {
    if let boxes = try? HEIFBoxes(bytes) {
        for id in boxes.items.keys.sorted().prefix(64) + [boxes.primary ?? 0] {
            _ = boxes.items[id]
            if let (w, h) = boxes.spatialExtent(of: id) { precondition(w >= 0 && h >= 0) }
            _ = boxes.isMonochrome(id)
            for type in ["dimg", "auxl", "pred", "thmb"] {
                _ = boxes.references(type, from: id)
                _ = boxes.referrers(type, to: id)
            }
            for type in ["ispe", "av1C", "hvcC", "rref", "irot", "clap"] {
                if let body = boxes.property(type, of: id) { precondition(body.lowerBound >= 0 && body.upperBound <= bytes.count) }
            }
            for count in [1, 8, 64] {
                if let data = boxes.data(of: id, prefix: count) { precondition(data.count == count, "data(of:prefix:) gave \(data.count)") }
            }
        }
    }
    if inProcess || !DecodeWorker.isRunning {
        if let img = try? ImageDecoder.decode(bytes: bytes, name: "fuzz", maxPixels: fuzzMaxPixels) {
            precondition(img.pixels.count == img.width * img.height * 4 && img.width * img.height <= fuzzMaxPixels)
        }
        return
    }
    let path = fuzzFile(bytes)
    do {
        let answer = try DecodeWorker.load(path, maxPixels: fuzzMaxPixels, background: .black, hdr: .tonemap, firstFrame: true)
        if case .image(let img, _) = answer {
            precondition(img.pixels.count == img.width * img.height * 4 && img.width * img.height <= fuzzMaxPixels)
        }
    } catch let e as SweepError {
        precondition(!e.message.contains("service has stopped"), "the decode worker failed: \(e)")
        if e.message.contains("decoder crashed") || e.message.contains("was stopped") { keepContained(bytes, e) }
    } catch {
        preconditionFailure("an untyped error: \(error)")
    }
}

/// Inputs that crashed (or hung) the decode worker: kept for a look in process, counted on stderr.
nonisolated(unsafe) var containedCount = 0

func keepContained(_ bytes: [UInt8], _ e: SweepError) {
    containedCount += 1
    let folder = ProcessInfo.processInfo.environment["SWEEP_FUZZ_CONTAINED"] ?? "/tmp/fuzz-logs/contained-heif"
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
    let file = folder + "/" + String(hash, radix: 16)
    if containedCount <= 500 {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
    }
    FileHandle.standardError.write(Data("CONTAINED #\(containedCount): \(e.message) -> \(file)\n".utf8))
}

/// `audio`: the sound probe, then the track carried into a short video: copied or
/// re-encoded (MP4 copies AAC, MP3 and ALAC; WebM Opus and Vorbis; Matroska anything).
func fuzzAudio(_ bytes: [UInt8]) {
    let path = fuzzFile(bytes)
    let rate = AudioProbe.audioRate(path: path)
    guard AudioProbe.isSound(rate: rate) else { return }
    let (codec, container, ext): (VideoCodec, String?, String)
    var options: [(String, String)] = [("threads", "1")]
    switch bytes.count % 3 {
    case 0:
        (codec, container, ext) = (.h264, nil, ".mp4")
        options.append(("preset", "ultrafast"))
    case 1:
        (codec, container, ext) = (.vp9, nil, ".webm")
        options += [("deadline", "realtime"), ("cpu-used", "8")]
    default:
        (codec, container, ext) = (.h264, "matroska", ".mkv")
        options.append(("preset", "ultrafast"))
    }
    let out = fuzzOutputPath + ext
    defer { unlink(out) }
    let start = bytes.count % 4 == 3 ? 0.1 : 0
    let grey = RGBAImage(width: 16, height: 16, fill: RGBA8(r: 128, g: 128, b: 128))
    do {
        let w = try VideoWriter(
            path: out, width: 16, height: 16, fps: 10, codec: codec, container: container, options: options,
            audio: AudioInput(path: path, start: start, duration: 0.3))
        precondition(w.audioCodecs != nil, "a writer given sound has no audio track")
        for _ in 0..<3 { try w.add(grey) }
        try w.finish()
    } catch is SweepError {
        // Refused, with a reason: fine.
    } catch {
        preconditionFailure("an untyped error: \(error)")
    }
}
