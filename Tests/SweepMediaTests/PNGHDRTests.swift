import Foundation
import SweepImaging
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepMedia

/// A PNG whose `cICP` chunk says PQ or HLG holds HDR R′G′B′ (as phones' and editors' HDR
/// exports, and AVIF-to-PNG converters, write it). FFmpeg 5.1's PNG decoder ignores the chunk,
/// so sweep reads it and tone-maps the samples by the chain HDR photos and clips take.
@Suite("HDR PNGs (cICP): tone-mapped as FFmpeg's own chain does, or refused when asked")
struct PNGHDRTests {
    /// FFmpeg's test pattern coded as `transfer` R′G′B′ in BT.2020, 16-bit, without and with
    /// a cICP chunk (BT.2020 primaries, the transfer, RGB, full range), and the reference: the
    /// ToneMapper chain run by the ffmpeg command line on the same samples.
    static func pictures(_ transfer: String, code: UInt8) throws -> (plain: String, tagged: String, reference: String) {
        let dir = try Scratch.folder("png-hdr-\(code)")
        let plain = dir + "/plain.png", tagged = dir + "/tagged.png", reference = dir + "/reference.png"
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=96x64", "-frames:v", "1", "-vf",
            "format=gbrpf32le,zscale=tin=iec61966-2-1:pin=bt709:t=\(transfer):p=bt2020:npl=100,format=rgb48be", plain,
        ])
        var png = Array(try Data(contentsOf: URL(fileURLWithPath: plain)))
        // After the signature (8) and IHDR (12 + 13), as the PNG specification places cICP.
        png.insert(contentsOf: PNGChunks.chunk("cICP", [9, code, 0, 1]), at: 33)
        try Data(png).write(to: URL(fileURLWithPath: tagged))
        try ClipMaker.ffmpeg([
            "-i", plain, "-vf",
            "setparams=color_primaries=bt2020:color_trc=\(transfer):colorspace=gbr:range=pc," + ToneMapper.stillChain + ",format=rgb24",
            "-frames:v", "1", reference,
        ])
        return (plain, tagged, reference)
    }

    @Test(
        "PQ and HLG: within ΔE2000 1 of FFmpeg's chain on the same samples; the untagged file is far from it",
        arguments: [("smpte2084", UInt8(16)), ("arib-std-b67", UInt8(18))])
    func toneMapped(transfer: String, code: UInt8) throws {
        let (plain, tagged, reference) = try Self.pictures(transfer, code: code)
        let ours = try ImageDecoder.decode(path: tagged)
        let theirs = try ImageDecoder.decode(path: reference)
        #expect(ours.width == 96 && ours.height == 64 && ours.isOpaque)
        let mean = ColorDifference.meanDeltaE2000(ours, theirs)
        #expect(mean < 1, "mean ΔE2000 \(mean) against ffmpeg's chain")
        // Read as sRGB, as before the chunk was read: the signal, not the picture.
        let raw = ColorDifference.meanDeltaE2000(try ImageDecoder.decode(path: plain), theirs)
        #expect(raw > 5, "mean ΔE2000 \(raw) of the untagged samples")
    }

    @Test("--hdr refuse refuses an HDR PNG with a data error naming the transfer")
    func refused() throws {
        let (_, tagged, _) = try Self.pictures("smpte2084", code: 16)
        let e = try #require(throws: SweepError.self) { try ImageDecoder.decode(path: tagged, hdr: .refuse) }
        #expect(e.code == .dataError && e.field == .hdr && e.message.contains("HDR (PQ)"), "\(e)")
    }

    @Test("a transparent HDR PNG keeps its alpha: laid over the background, as any PNG is")
    func transparent() throws {
        let dir = try Scratch.folder("png-hdr-alpha")
        let plain = dir + "/clear.png", tagged = dir + "/clear-tagged.png"
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=32x24", "-frames:v", "1", "-vf",
            "format=gbrpf32le,zscale=tin=iec61966-2-1:pin=bt709:t=arib-std-b67:p=bt2020:npl=100,format=rgba64be,colorchannelmixer=aa=0",
            plain,
        ])
        var png = Array(try Data(contentsOf: URL(fileURLWithPath: plain)))
        png.insert(contentsOf: PNGChunks.chunk("cICP", [9, 18, 0, 1]), at: 33)
        try Data(png).write(to: URL(fileURLWithPath: tagged))
        let image = try ImageDecoder.decode(path: tagged, background: .white)
        #expect(image.width == 32 && image.height == 24)
        #expect(image.pixels.allSatisfy { $0 == 255 }, "a clear picture over white is white")
    }
}
