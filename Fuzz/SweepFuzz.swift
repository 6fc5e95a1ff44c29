// libFuzzer entry point for sweep's parsers of untrusted input. Built by Fuzz/run.sh with
// `-sanitize=fuzzer,address`; not part of the package's products. SWEEP_FUZZ picks the
// target: decode (image bytes), png-chunks and jpeg-markers (the checks before the
// decoder), preset (animation/look/format JSON), job (batch lines).
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
        _ = try? BatchJob(line: 1, text: String(decoding: bytes, as: UTF8.self), file: "fuzz")
    default:
        // A small pixel limit keeps each run fast; bombs must be refused, not allocated.
        if let img = try? ImageDecoder.decode(bytes: bytes, name: "fuzz", maxPixels: 4_000_000) {
            precondition(img.pixels.count == img.width * img.height * 4)
        }
    }
    return 0
}
