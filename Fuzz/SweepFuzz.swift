// libFuzzer entry point for sweep's parsers of untrusted input. Built by Fuzz/run.sh with
// `-sanitize=fuzzer,address`; not part of the package's products. SWEEP_FUZZ picks the
// target: decode (image bytes), png-chunks and jpeg-markers (the checks before the
// decoder), preset (animation/look/format JSON), job (batch lines), codecopt (encoder
// options through the allow-list).
import Foundation
import SweepCLI
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport

nonisolated(unsafe) let fuzzTarget = ProcessInfo.processInfo.environment["SWEEP_FUZZ"] ?? "decode"

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
            let split = try? ArgumentSplitter(RenderOptions.common).split(job.arguments)
        {
            precondition(split.options.filter { $0.name == "output" }.map(\.value) == [job.output], "output smuggled")
            precondition(split.positionals == job.inputs, "inputs changed")
        }
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
