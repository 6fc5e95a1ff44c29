import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTestSupport
import Testing

/// HDR colours FFmpeg's zscale declines (#58): a stretch of untagged greyscale frames in an
/// HDR clip is tone-mapped as the stream's tags say, and BT.2020 constant-luminance is
/// refused with its true reason, not "install an FFmpeg with zscale".
@Suite struct HDRColourTests {
    let dir: String

    init() throws {
        dir = try Scratch.folder("hdr-colour")
    }

    /// A 10-bit HEVC transport stream of the test pattern with `filter` and `tags`.
    func part(_ name: String, filter: String, tags: [String]) throws -> String {
        let path = dir + "/\(name).ts"
        try ClipMaker.ffmpeg(
            ["-f", "lavfi", "-i", "testsrc2=s=160x90:r=10:d=0.5", "-vf", filter, "-c:v", "libx265", "-x265-params", "log-level=error"]
                + tags + [path])
        return path
    }

    static let pqTags = ["-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc"]

    /// FFmpeg's chain on `clip`'s frames (with `before` ahead of it), as RGBA.
    static func reference(_ clip: String, before: String = "") throws -> [RGBAImage] {
        let bytes = try SoundReader.run(
            "ffmpeg", ["-i", clip, "-vf", before + ToneMapper.chain + ",format=rgb24", "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        let size = 160 * 90 * 4
        return stride(from: 0, to: bytes.count - size + 1, by: size).map {
            RGBAImage(width: 160, height: 90, pixels: [UInt8](bytes[$0..<($0 + size)]))
        }
    }

    @Test("An HDR clip that turns greyscale, untagged, part-way is tone-mapped throughout")
    func greyscaleSwitch() throws {
        let colour = try part(
            "colour", filter: "zscale=tin=bt709:t=smpte2084:pin=bt709:p=bt2020:min=bt709:m=bt2020nc:npl=100,format=yuv420p10le",
            tags: Self.pqTags)
        // The greyscale stretch carries no colour tags, as an encoder switching to 4:0:0 leaves it.
        let grey = try part("grey", filter: "format=gray10le", tags: [])
        let list = dir + "/list.txt", clip = dir + "/switch.mkv"
        try "file '\(colour)'\nfile '\(grey)'\n".write(toFile: list, atomically: true, encoding: .utf8)
        try ClipMaker.ffmpeg(["-f", "concat", "-safe", "0", "-i", list, "-c", "copy", clip])
        let pattern = dir + "/switch-%04d.png"
        let result = try Renderer.render(splitSpec(clip), to: pattern)
        #expect(result.frames == 10, "\(result)")
        // The oracle: FFmpeg's chain on each stretch, the grey one given the stream's tags.
        let expected =
            try Self.reference(colour)
            + Self.reference(grey, before: "setparams=color_primaries=bt2020:color_trc=smpte2084:colorspace=bt2020nc,")
        try #require(expected.count == 10)
        for i in 0..<min(10, result.frames) {
            let mine = try ImageDecoder.decode(path: String(format: pattern, i))
            let difference = ColorDifference.meanDeltaE2000(mine, expected[i])
            #expect(difference < 3, "frame \(i): mean ΔE2000 \(difference) against FFmpeg's chain")
        }
    }

    @Test("BT.2020 constant-luminance with PQ is refused with its reason, as FFmpeg's own chain fails on it")
    func constantLuminance() throws {
        let clip = dir + "/cl.mp4"
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=160x90:r=10:d=0.3", "-vf", "format=yuv420p10le", "-c:v", "libx265", "-x265-params",
            "log-level=error", "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020c", "-color_range", "pc",
            clip,
        ])
        // FFmpeg's chain itself cannot convert it: zimg's limit, not a missing filter.
        #expect(throws: (any Error).self) { try Self.reference(clip) }
        let run = try runSweep(["render", clip, "-o", dir + "/cl-out.mp4"])
        #expect(run.code == 69, "\(run.stderr)")
        #expect(run.stderr.contains("constant-luminance matrix and PQ"), "\(run.stderr)")
        #expect(!run.stderr.contains("install"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }
}
