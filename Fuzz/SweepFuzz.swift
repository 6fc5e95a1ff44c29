// libFuzzer entry point for sweep's parsers of untrusted input. Built by Fuzz/run.sh with
// `-sanitize=fuzzer,address`; not part of the package's products. SWEEP_FUZZ picks the
// target: decode (image bytes), png-chunks and jpeg-markers (the checks before the
// decoder), preset (animation/look/format JSON), job (batch lines), codecopt (encoder
// options through the allow-list); and the media targets of MediaTargets.swift: probe
// (clip sniffing and decoding), heif (our box walk in process, libheif in the decode
// worker; heif-inprocess decodes in process, to look at what the worker contained),
// webp-anim (animated WebP), audio (sound probed and carried into a video), and job-clip
// (batch lines with clip options, checked through render's parse).
import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepRequest
import SweepSupport
import SweepWorker

let fuzzTarget = ProcessInfo.processInfo.environment["SWEEP_FUZZ"] ?? "decode"

/// Called by libFuzzer once, before any input and before its own threads: the decode
/// worker's service must fork while the process has one thread.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> Int32 {
    let target = getenv("SWEEP_FUZZ").map { String(cString: $0) } ?? "decode"
    if ["probe", "heif", "heif-inprocess", "webp-anim", "audio"].contains(target) { removeFuzzFilesAtExit() }
    if target == "heif" {
        DecodeWorker.startAtLaunch()
        let how = DecodeWorker.isRunning ? "started" : "NOT started (decoding in process)"
        FileHandle.standardError.write(Data("sweep-fuzz: decode worker \(how)\n".utf8))
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch fuzzTarget {
    case "preset":
        _ = try? StrictJSON.decode(AnimationPreset.self, from: Data(bytes), file: "fuzz")
        _ = try? StrictJSON.decode(LookPreset.self, from: Data(bytes), file: "fuzz")
        _ = try? StrictJSON.decode(FormatPreset.self, from: Data(bytes), file: "fuzz")
    case "png-chunks":
        // The chunk walk sees the bytes after a valid signature, as the decoder gives them.
        if let r = try? PNGChunks.sanitize(PNGChunks.signature + bytes, name: "fuzz") {
            precondition(r.bytes.count <= bytes.count + 8 && (r.orientation.map { (1...8).contains($0) } ?? true))
        }
    case "jpeg-markers":
        try? JPEGMarkers.check([0xFF, 0xD8] + bytes, name: "fuzz")
    case "job":
        // A parsed job must reach render with exactly its declared output and inputs: no
        // value may become an option of its own.
        if let job = try? BatchJob(line: 1, text: String(decoding: bytes, as: UTF8.self), file: "fuzz"),
            let request = try? job.request(output: job.output)
        {
            precondition(request.output == job.output, "output smuggled")
            precondition(request.inputs == job.inputs, "inputs changed")
            // Read again by another parser: every option the job holds is a key the line wrote,
            // and a text value is one the line gave that key.
            if let raw = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] {
                for given in job.options {
                    let written = raw[given.name]
                    precondition(written != nil, "\(given.name) was not in the line")
                    guard let value = given.value, let items = (written as? [Any]) ?? written.map({ [$0] }) else { continue }
                    precondition(items.contains { ($0 as? String) == value || !($0 is String) }, "\(given.name)=\(value) not written")
                }
            }
        }
    case "job-clip":
        // As `job`, for clip jobs: every option render sees is one the job wrote, with its
        // value, and what render makes of them keeps the job's output, inputs and times.
        guard let job = try? BatchJob(line: 1, text: String(decoding: bytes, as: UTF8.self), file: "fuzz") else { break }
        precondition(
            !job.options.contains { $0.name == "output" || !RequestKeys.options.keys.contains($0.name) }, "an option the job may not set")
        guard let options = try? job.request(output: job.output) else { break }
        precondition(options.output == job.output && options.inputs == job.inputs, "render changed the output or inputs")
        precondition(options.given == Set(job.options.map(\.name)).union(["output"]), "render sees \(options.given)")
        let clip = options.spec.clip
        precondition(clip.start.isFinite && clip.start >= 0 && clip.start <= 86_400, "start \(clip.start)")
        if let end = clip.end { precondition(end.isFinite && end > clip.start && end <= 86_400, "end \(end) after start \(clip.start)") }
        if let audio = job.options.last(where: { $0.name == "audio" })?.value {
            precondition(clip.audio.rawValue == audio, "--audio=\(audio) became \(clip.audio)")
        }
        precondition(clip.firstFrame == job.options.contains { $0.name == "first-frame" }, "first-frame changed")
        if job.options.contains(where: { $0.name == "start" }) == false { precondition(clip.start == 0, "a start from nowhere") }
        if job.options.contains(where: { $0.name == "end" }) == false { precondition(clip.end == nil, "an end from nowhere") }
    case "probe":
        fuzzProbe(bytes)
    case "heif", "heif-inprocess":
        fuzzHEIF(bytes, inProcess: fuzzTarget == "heif-inprocess")
    case "webp-anim":
        fuzzAnimatedWebP(bytes)
    case "audio":
        fuzzAudio(bytes)
    case "codecopt":
        // Lines of key=value; whatever passes the allow-list must name no file option.
        let options = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { line in
            let kv = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(kv[0]), kv.count > 1 ? String(kv[1]) : "")
        }
        for codec in VideoCodec.all where (try? EncoderOptionPolicy.check(options, codec: codec)) != nil {
            for (key, value) in options {
                var keys = [key]
                if key.hasSuffix("-params") {
                    precondition(!value.contains("\\") && !value.contains("'") && !value.contains("\""), "quoting passed in \(key)")
                    keys += ((try? EncoderOptionPolicy.split(value, option: key)) ?? []).map(\.0)
                }
                for k in keys {
                    for bad in [
                        "stats", "passlog", "dump", "csv", "analysis", "qpfile", "zone", "scaling-list", "x264opts",
                        "lambda-file", "recon", "file",
                    ] {
                        precondition(!k.contains(bad), "\(k) passed the allow-list for \(codec.name)")
                    }
                }
            }
        }
    default:
        // A small pixel limit keeps each run fast; bombs must be refused, not allocated.
        if let img = try? ImageDecoder.decode(bytes: bytes, name: "fuzz", maxPixels: 4_000_000) {
            precondition(img.pixels.count == img.width * img.height * 4)
        }
    }
    return 0
}
