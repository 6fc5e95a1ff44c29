import Foundation
import SweepImaging
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepMedia

@Suite("Video and still encoders round trip through libav*")
struct VideoRoundTripTests {
    @Test("H.264 MP4: codec, profile, size, frames, rate, BT.709 tags, faststart, colour")
    func h264() throws {
        let path = Scratch.path("v.mp4")
        let w = try VideoWriter(path: path, width: 96, height: 64, fps: 25)
        let red = RGBAImage(width: 96, height: 64, fill: RGBA8(r: 200, g: 40, b: 40))
        let green = RGBAImage(width: 96, height: 64, fill: RGBA8(r: 40, g: 180, b: 60))
        for i in 0..<20 { try w.add(i < 10 ? red : green) }
        try w.finish()
        let r = try VideoReader(path: path)
        #expect(r.codecName == "h264")
        #expect(r.profile == "High")
        #expect(r.pixelFormat == "yuv420p")
        #expect(r.width == 96 && r.height == 64)
        #expect(r.frameCount == 20)
        #expect(abs(r.frameRate - 25) < 1e-6)
        #expect(abs(r.duration - 0.8) < 0.05)
        #expect(r.primaries == "bt709" && r.transfer == "bt709" && r.matrix == "bt709" && r.range == "tv")
        // Colour round trip: a wrong matrix shifts a saturated red by far more than 6 levels.
        let f = r.frames[2][48, 32]
        #expect(abs(Int(f.r) - 200) <= 6 && abs(Int(f.g) - 40) <= 6 && abs(Int(f.b) - 40) <= 6)
        let g = r.frames[15][48, 32]
        #expect(abs(Int(g.r) - 40) <= 6 && abs(Int(g.g) - 180) <= 6 && abs(Int(g.b) - 60) <= 6)
        // +faststart: the moov box comes before mdat.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let moov = bytes.range(of: Data("moov".utf8))!.lowerBound, mdat = bytes.range(of: Data("mdat".utf8))!.lowerBound
        #expect(moov < mdat)
    }

    @Test("An option the encoder does not take is an error")
    func badOption() {
        #expect(throws: (any Error).self) {
            _ = try VideoWriter(path: Scratch.path("bad.mp4"), width: 64, height: 64, fps: 30, options: [("crff", "20")])
        }
    }

    /// Each case fails a step after the muxer context (and, for the later ones, the codec
    /// context, frame, packet and scaler) exist. The owners must free them all: `make asan`
    /// runs these under LeakSanitizer, which fails on any AVFormatContext left behind.
    @Test(
        "A set-up step that fails after the container exists throws its own error and frees what was made",
        arguments: [
            ("unknown option", "ok.mp4", 64, [("crff", "20")], SweepError.Code.usage),
            ("option value the encoder refuses", "ok.mp4", 64, [("preset", "warp-speed")], .usage),
            ("folder that does not exist", "no-such-folder/x.mp4", 64, [], .cannotCreate),
            ("no colour conversion for a 0-pixel frame", "ok.mp4", 0, [], .internalError),
        ])
    func failedSetUpFreesEverything(
        _ label: String, _ file: String, _ width: Int, _ options: [(String, String)],
        _ expected: SweepError.Code
    ) throws {
        let path = Scratch.path(file)
        let error = try #require(throws: SweepError.self) {
            _ = try VideoWriter(path: path, width: width, height: 64, fps: 30, options: options)
        }
        #expect(error.code == expected, "\(label): \(error)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("PNG still decodes back to the same pixels; JPEG within tolerance", arguments: [StillEncoder.Format.png, .jpeg, .webp])
    func stills(format: StillEncoder.Format) throws {
        var img = RGBAImage(width: 40, height: 30, fill: RGBA8(r: 10, g: 120, b: 230))
        for x in 0..<20 { for y in 0..<30 { img.pixels[(y * 40 + x) * 4] = 250 } }
        let path = Scratch.path("s." + format.rawValue)
        try StillEncoder.write(img, to: path, format: format)
        let back = try ImageDecoder.decode(path: path)
        #expect(back.width == 40 && back.height == 30)
        let tol = format == .png ? 0 : 10
        for (x, y) in [(5, 5), (30, 20)] {
            for c in 0..<3 {
                #expect(abs(Int(back.pixels[(y * 40 + x) * 4 + c]) - Int(img.pixels[(y * 40 + x) * 4 + c])) <= tol)
            }
        }
    }

    @Test(
        "Decoder errors name the problem",
        arguments: [
            ("missing", 66), ("empty", 65), ("text", 65), ("truncated", 65),
        ])
    func decoderErrors(kind: String, code: Int32) throws {
        let path = Scratch.path(kind + ".png")
        switch kind {
        case "empty": _ = FileManager.default.createFile(atPath: path, contents: Data())
        case "text": _ = FileManager.default.createFile(atPath: path, contents: Data("hello, not an image".utf8))
        case "truncated":
            let good = Scratch.path("good.png")
            try StillEncoder.write(RGBAImage(width: 64, height: 64, fill: .white), to: good, format: .png)
            let d = try Data(contentsOf: URL(fileURLWithPath: good))
            _ = FileManager.default.createFile(atPath: path, contents: d.prefix(d.count / 2))
        default: break
        }
        do {
            _ = try ImageDecoder.decode(path: path)
            Issue.record("decoding \(kind) should fail")
        } catch let e as SweepError {
            #expect(e.code.exitCode == code)
            #expect(e.subject == path)
        }
    }
}
