import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTestSupport
import SweepTimeline
import Testing

/// HDR clips (#46): PQ and HLG are tone-mapped to SDR BT.709, within ΔE2000 3 (mean) of
/// FFmpeg's own zscale/tonemap chain on the same frames, or refused when asked.
@Suite struct HDRClipTests {
    let dir: String

    init() throws {
        dir = try Scratch.folder("hdr")
    }

    @Test("ΔE2000 matches Sharma, Wu and Dalal's published pairs")
    func deltaE() {
        let pairs: [((Double, Double, Double), (Double, Double, Double), Double)] = [
            ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425), ((50, 0, 0), (50, -1, 2), 2.3669),
            ((50, 2.5, 0), (73, 25, -18), 27.1492), ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ]
        for (p, q, expected) in pairs { #expect(abs(ColorDifference.deltaE2000(p, q) - expected) < 1e-4, "\(p) \(q)") }
    }

    /// A 10-bit HEVC clip of FFmpeg's test pattern, converted to `transfer` with BT.2020 primaries.
    func clip(_ transfer: String) throws -> String {
        let path = dir + "/\(transfer)-source.mp4"
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=0.4", "-vf",
            "zscale=tin=bt709:t=\(transfer):pin=bt709:p=bt2020:min=bt709:m=bt2020nc:npl=100,format=yuv420p10le",
            "-c:v", "libx265", "-x265-params", "log-level=error", "-color_primaries", "bt2020", "-color_trc", transfer,
            "-colorspace", "bt2020nc", path,
        ])
        return path
    }

    /// FFmpeg's own tone-mapping of the clip's first frame, as an sRGB PNG.
    func reference(_ clip: String) throws -> RGBAImage {
        let path = clip + ".ref.png"
        try ClipMaker.ffmpeg(["-i", clip, "-vf", ToneMapper.chain + ",format=rgb24", "-frames:v", "1", path])
        return try ImageDecoder.decode(path: path)
    }

    func spec(_ path: String) -> RenderSpec {
        var s = RenderSpec(
            before: .file(path), after: nil,
            animation: Animation(
                position: Track(constant: 0.5), before: Track(constant: .identity), after: Track(constant: .identity), loop: .forever))
        s.style.showHandle = false
        s.style.showLabels = false
        return s
    }

    @Test(
        "PQ and HLG clips come out as FFmpeg's tone-mapping shows them, in PNGs and in a video", arguments: ["arib-std-b67", "smpte2084"])
    func toneMapped(transfer: String) throws {
        let path = try clip(transfer)
        let expected = try reference(path)
        let result = try Renderer.render(spec(path), to: dir + "/\(transfer)-%04d.png")
        let name = transfer == "smpte2084" ? "PQ" : "HLG"
        #expect(result.notes.contains("the before clip is HDR (\(name)): tone-mapped to SDR BT.709"), "\(result.notes)")
        let frame = try ImageDecoder.decode(path: dir + "/\(transfer)-0000.png")
        let png = ColorDifference.meanDeltaE2000(frame, expected)
        #expect(png < 3, "\(name): mean ΔE2000 \(png) against FFmpeg's chain")
        // The video path (Y′CbCr straight through when nothing but the split moves).
        _ = try Renderer.render(spec(path), to: dir + "/\(transfer).mp4")
        let video = try #require(try VideoReader(path: dir + "/\(transfer).mp4").frames.first)
        let mp4 = ColorDifference.meanDeltaE2000(video, expected)
        #expect(mp4 < 3, "\(name): mean ΔE2000 \(mp4) in the MP4 against FFmpeg's chain")
        #expect(try VideoReader(path: dir + "/\(transfer).mp4", keepFrames: false).transfer == "bt709")
    }

    @Test("With HDR refused, an HLG clip is a data error naming the file and the way out")
    func refused() throws {
        let path = try clip("arib-std-b67")
        var s = spec(path)
        s.clip.hdr = .refuse
        let error = try #require(throws: SweepError.self) { try Renderer.render(s, to: dir + "/no.mp4") }
        #expect(error.code == .dataError && error.subject == path && error.message.contains("HDR (HLG)"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/no.mp4"))
    }
}
