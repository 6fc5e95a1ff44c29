import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTestSupport
import Testing

/// Clips whose picture grows part-way (#58), as WebRTC and MediaRecorder recordings do: each
/// frame is scaled into the output at its own size, as FFmpeg decodes it.
@Suite struct ClipSizeChangeTests {
    let dir: String

    init() throws {
        dir = try Scratch.folder("sizes")
    }

    /// One second at 320×180, then 0.4 s at 1920×1080 (six times the pixels the first size
    /// would allow a decoder), in one stream made by FFmpeg's concat demuxer.
    func growing(_ ext: String, parts: String, codec: [String]) throws -> String {
        let small = dir + "/small.\(parts)", large = dir + "/large.\(parts)", list = dir + "/list.txt"
        try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=1"] + codec + [small])
        try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=25:d=0.4"] + codec + [large])
        try "file '\(small)'\nfile '\(large)'\n".write(toFile: list, atomically: true, encoding: .utf8)
        let clip = dir + "/grow.\(ext)"
        try ClipMaker.ffmpeg(["-f", "concat", "-safe", "0", "-i", list, "-c", "copy", clip])
        return clip
    }

    /// FFmpeg's frames of `clip`, each scaled to 320×180, as RGBA.
    static func oracle(_ clip: String) throws -> [RGBAImage] {
        let bytes = try SoundReader.run(
            "ffmpeg", ["-i", clip, "-vf", "scale=320:180", "-vsync", "passthrough", "-pix_fmt", "rgba", "-f", "rawvideo", "-"])
        let size = 320 * 180 * 4
        return stride(from: 0, to: bytes.count - size + 1, by: size).map {
            RGBAImage(width: 320, height: 180, pixels: [UInt8](bytes[$0..<($0 + size)]))
        }
    }

    @Test(
        "A picture growing from 320×180 to 1920×1080 part-way is scaled into the output",
        arguments: [
            ("mp4", "ts", ["-c:v", "libx264", "-preset", "ultrafast"]), ("mkv", "ts", ["-c:v", "libx264", "-preset", "ultrafast"]),
            ("webm", "webm", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "1M"]),
        ])
    func grows(ext: String, parts: String, codec: [String]) throws {
        let clip = try growing(ext, parts: parts, codec: codec)
        let expected = try Self.oracle(clip)
        try #require(expected.count >= 34, "\(ext): FFmpeg decodes \(expected.count) frames")
        var spec = splitSpec(clip)
        (spec.width, spec.height) = (320, 180)
        let pattern = dir + "/\(ext)-%04d.png"
        let result = try Renderer.render(spec, to: pattern)
        #expect(abs(result.frames - expected.count) <= 1, "\(ext): \(result.frames) frames, FFmpeg \(expected.count)")
        for i in 0..<min(result.frames, expected.count) {
            let mine = try ImageDecoder.decode(path: String(format: pattern, i))
            // The two scalers part on the pattern's fine lines shrunk 6× (22 dB); a frame
            // cropped, letterboxed or left black would score under 12.
            let quality = psnr([expected[i]], [mine])
            #expect(quality > (i < 25 ? 28 : 20), "\(ext): frame \(i) is \(quality) dB from FFmpeg's")
        }
    }
}
