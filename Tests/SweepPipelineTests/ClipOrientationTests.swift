import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTestSupport
import SweepTimeline
import Testing

/// One display matrix of the eight a track header can hold: turns, mirrors and both.
struct DisplayMatrixRow: Sendable, CustomStringConvertible {
    let description: String
    /// The 2×2 part: a displayed point is (a·x + c·y, b·x + d·y).
    let a: Int32, b: Int32, c: Int32, d: Int32
    /// The EXIF orientation the matrix means.
    let tag: Int
}

/// Clips whose track header turns or mirrors the picture (#58) are drawn as FFmpeg's
/// command line shows them (it applies the display matrix by default).
@Suite struct ClipOrientationTests {
    let dir: String

    init() throws {
        dir = try Scratch.folder("orientation")
    }

    static let rows: [DisplayMatrixRow] = [
        DisplayMatrixRow(description: "upright", a: 1, b: 0, c: 0, d: 1, tag: 1),
        DisplayMatrixRow(description: "mirrored left to right", a: -1, b: 0, c: 0, d: 1, tag: 2),
        DisplayMatrixRow(description: "upside down", a: -1, b: 0, c: 0, d: -1, tag: 3),
        DisplayMatrixRow(description: "mirrored top to bottom", a: 1, b: 0, c: 0, d: -1, tag: 4),
        DisplayMatrixRow(description: "transposed (90° clockwise, mirrored)", a: 0, b: 1, c: 1, d: 0, tag: 5),
        DisplayMatrixRow(description: "90° clockwise", a: 0, b: 1, c: -1, d: 0, tag: 6),
        DisplayMatrixRow(description: "transversed (90° counter-clockwise, mirrored)", a: 0, b: -1, c: -1, d: 0, tag: 7),
        DisplayMatrixRow(description: "90° counter-clockwise", a: 0, b: -1, c: 1, d: 0, tag: 8),
    ]

    /// FFmpeg's first frame of `clip` (autorotated unless `autorotate` is off) as RGBA, `width`×`height`.
    static func oracle(_ clip: String, width: Int, height: Int, autorotate: Bool = true) throws -> RGBAImage {
        let bytes = try SoundReader.run(
            "ffmpeg", (autorotate ? [] : ["-noautorotate"]) + ["-i", clip, "-frames:v", "1", "-pix_fmt", "rgba", "-f", "rawvideo", "-"])
        return RGBAImage(width: width, height: height, pixels: [UInt8](bytes.prefix(width * height * 4)))
    }

    @Test("Each of the eight display matrices draws the clip as FFmpeg's autorotate does", arguments: rows)
    func matrix(row: DisplayMatrixRow) throws {
        for ext in ["mp4", "mov"] {
            // A picture with no symmetry: the test pattern's colour bars, gradient and clock.
            let clip = dir + "/matrix.\(ext)"
            try ClipMaker.ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=s=64x48:r=25:d=0.2", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv444p", clip,
            ])
            try ClipMaker.displayMatrix(clip, a: row.a, b: row.b, c: row.c, d: row.d)
            // ffprobe reads the matrix as written.
            let probe = String(
                decoding: try SoundReader.run(
                    "ffprobe", ["-show_entries", "stream_side_data=displaymatrix", "-of", "default=nw=1", clip]), as: UTF8.self)
            let first = probe.split(separator: "\n").first { $0.contains("00000000:") }.map { $0.split(separator: " ").map(String.init) }
            // (FFmpeg leaves an identity matrix out.)
            let expected = row.tag == 1 ? nil : ["\(row.a * 65536)", "\(row.b * 65536)", "0"]
            #expect(first?.suffix(3) == expected?[...], "\(row): ffprobe reads \(probe)")
            let decoder = try VideoDecoder(path: clip)
            #expect(decoder.orientation == row.tag, "\(row) in \(ext): orientation \(decoder.orientation)")
            let turned = row.tag >= 5
            let (w, h) = turned ? (48, 64) : (64, 48)
            #expect((decoder.width, decoder.height) == (w, h), "\(row) in \(ext): \(decoder.width)x\(decoder.height)")
            let spec = splitSpec(clip)
            let pattern = dir + "/\(row.tag)-\(ext)-%04d.png"
            let result = try Renderer.render(spec, to: pattern)
            #expect((result.width, result.height) == (w, h), "\(row) in \(ext): rendered \(result.width)x\(result.height)")
            let mine = try ImageDecoder.decode(path: String(format: pattern, 0))
            let theirs = try Self.oracle(clip, width: w, height: h)
            let quality = psnr([theirs], [mine])
            #expect(quality > 35, "\(row) in \(ext): \(quality) dB against FFmpeg's autorotated frame")
            // The stored picture turned any other way of the same shape is plainly another picture.
            let stored = try Self.oracle(clip, width: 64, height: 48, autorotate: false)
            for other in 1...8 where other != row.tag && (other >= 5) == turned {
                let wrong = psnr([Orientation.upright(stored, tag: other)], [mine])
                #expect(wrong < 20, "\(row) in \(ext): \(wrong) dB against orientation \(other)")
            }
        }
    }
}
