import Foundation
import SweepImaging
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepMedia

/// A small deterministic generator, so the corpus is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}

/// Malformed variants of the fixtures: truncations, flipped bytes, bogus headers, bombs.
func hostileCorpus() throws -> [(name: String, bytes: [UInt8])] {
    var corpus: [(String, [UInt8])] = []
    var rng = SplitMix64(state: 42)
    for file in [
        "jpeg-baseline.jpg", "jpeg-progressive.jpg", "png-rgb8.png", "png-interlaced.png", "png-palette-trns.png",
        "webp-lossy.webp", "webp-lossless.webp", "tiff.tiff", "bmp.bmp", "gif-animated.gif", "icc-adobergb.jpg",
        "orient-6.jpg", "png-rgb16.png", "heic.heic", "avif.avif", "heic-p3-icc.heic", "avif-alpha.avif",
    ] {
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture(file))))
        var cuts = Set([0, 1, 2, 3, 4, 8, 12, 16, 24, 32, 48, 64, good.count - 1, good.count - 2])
        for k in 1..<12 { cuts.insert(good.count * k / 12) }
        for c in cuts where c >= 0 && c < good.count { corpus.append(("\(file) cut at \(c)", Array(good[..<c]))) }
        for k in 0..<16 {
            var bad = good
            let flips = k < 8 ? 1 : 8
            for _ in 0..<flips { bad[Int.random(in: 0..<bad.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng) }
            corpus.append(("\(file) flipped #\(k)", bad))
        }
        var junk = Array(good.prefix(16))
        for _ in 0..<200 { junk.append(UInt8.random(in: 0...255, using: &rng)) }
        corpus.append(("\(file) header + junk", junk))
    }
    func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8((v >> (8 * $0)) & 0xff) } }
    corpus.append(("GIF bomb", Array("GIF89a".utf8) + le(65535, 2) + le(65535, 2) + [0, 0, 0, 0x3B]))
    corpus.append(
        (
            "BMP bomb",
            Array("BM".utf8) + le(70, 4) + le(0, 4) + le(54, 4) + le(40, 4) + le(40000, 4) + le(40000, 4)
                + le(1, 2) + le(24, 2) + [UInt8](repeating: 0, count: 24)
        ))
    corpus.append(
        (
            "WebP bomb",
            Array("RIFF".utf8) + le(30, 4) + Array("WEBPVP8X".utf8) + le(10, 4) + [0, 0, 0, 0]
                + le(16383, 3) + le(16383, 3)
        ))
    // A HEIC whose every ispe box (image and thumbnail sizes) claims 60000×60000.
    var heic = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("heic.heic"))))
    for i in heic.indices.dropLast(20) where heic[i..<(i + 4)].elementsEqual("ispe".utf8) {
        heic.replaceSubrange((i + 8)..<(i + 16), with: [0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60])
    }
    corpus.append(("HEIC bomb", heic))
    corpus.append(("only zeros", [UInt8](repeating: 0, count: 4096)))
    corpus.append(("text", Array("<html><body>not a picture</body></html>".utf8)))
    return corpus
}

@Suite("Hostile input")
struct HostileInputTests {
    @Test("Every malformed file decodes to a valid picture or fails with a data error; nothing crashes")
    func corpus() throws {
        let corpus = try hostileCorpus()
        #expect(corpus.count > 300)
        var refused = 0
        for (name, bytes) in corpus {
            do {
                let img = try ImageDecoder.decode(bytes: bytes, name: name, maxPixels: 50_000_000)
                #expect(img.width > 0 && img.height > 0 && img.pixels.count == img.width * img.height * 4, "\(name)")
            } catch let e as SweepError {
                #expect(e.code == .dataError, "\(name): \(e)")
                #expect(e.subject == name && !e.message.isEmpty)
                refused += 1
            }
        }
        #expect(refused > corpus.count / 3)
    }

    @Test("Bombs are refused by their header, before decoding")
    func bombs() throws {
        for (name, bytes) in try hostileCorpus() where name.hasSuffix("bomb") {
            do {
                _ = try ImageDecoder.decode(bytes: bytes, name: name)
                Issue.record("\(name) decoded")
            } catch let e as SweepError {
                #expect(e.message.contains("over the limit"), "\(name): \(e)")
            }
        }
    }

    @Test("Very different sizes and aspect ratios are valid inputs", arguments: [(1, 400), (400, 1), (1, 1), (3, 2000)])
    func odd(width: Int, height: Int) throws {
        let img = RGBAImage(width: width, height: height, fill: RGBA8(r: 10, g: 200, b: 90))
        for mode in FitMode.allCases {
            let out = Resampler.resize(img, width: 64, height: 48, mode: mode, background: .black)
            #expect(out.width == 64 && out.height == 48)
            #expect(out[32, 24] == RGBA8(r: 10, g: 200, b: 90) || mode == .fit)
        }
    }
}

@Suite("Fuzzer findings stay fixed")
struct FuzzRegressionTests {
    @Test("Every input the fuzzer crashed on now fails cleanly")
    func crashes() throws {
        let dir = URL(fileURLWithPath: fixture("x")).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fuzz-crashes").path
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("decode-") }
        #expect(!files.isEmpty)
        for f in files {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + f)))
            #expect(throws: SweepError.self) { try ImageDecoder.decode(bytes: bytes, name: f) }
        }
    }

    private func found(_ name: String) -> String {
        URL(fileURLWithPath: fixture("x")).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fuzz-crashes/\(name)").path
    }

    /// Carries 0.3 s of `sound`'s track into a 16×16 clip of three frames, as the audio
    /// target does: H.264 in Matroska (the sound re-encoded to AAC unless it can be copied), or
    /// VP9 in WebM (re-encoded to Opus).
    private func carry(_ sound: String, webm: Bool) throws -> String {
        let out = try Scratch.folder("fuzzfound") + (webm ? "/out.webm" : "/out.mkv")
        let w = try VideoWriter(
            path: out, width: 16, height: 16, fps: 10, codec: webm ? .vp9 : .h264, container: webm ? nil : "matroska",
            options: webm ? [("deadline", "realtime"), ("cpu-used", "8")] : [("preset", "ultrafast")],
            audio: AudioInput(path: sound, duration: 0.3))
        for _ in 0..<3 { try w.add(RGBAImage(width: 16, height: 16, fill: RGBA8(r: 128, g: 128, b: 128))) }
        try w.finish()
        return out
    }

    @Test("A damaged sound decoding to samples of ±1.6e7 is held to full scale: the AAC encoder finishes", .timeLimit(.minutes(1)))
    func hugeSamples() throws {
        let out = try carry(found("audio-aac-encoder-hang.flv"), webm: false)
        let streams = try SoundReader.streams(out)
        #expect(streams.contains { $0.type == "audio" } && streams.contains { $0.type == "video" }, "\(streams)")
    }

    @Test("A sound whose frames change channel count part-way is refused with the time, not read past its planes")
    func channelChange() throws {
        do {
            _ = try carry(found("audio-ac3-channel-change.mkv"), webm: true)
            Issue.record("carried")
        } catch let e as SweepError {
            #expect(e.code == .dataError, "\(e)")
        }
    }

    @Test("An animated WebP as a bare VP8L bitstream is held to the pixel limit by the canvas libwebp reports")
    func bareLosslessCanvas() throws {
        let started = Date()
        do {
            _ = try AnimatedWebPDecoder(path: found("webp-anim-bare-vp8l-canvas.webp"), maxPixels: 65_536)
            Issue.record("opened")
        } catch let e as SweepError {
            #expect(e.code == .dataError && e.message.contains("over the limit"), "\(e)")
        }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("A clip whose stream gives no picture size is refused as damaged, not read as 0×0")
    func noPictureSize() throws {
        do {
            let clip = try VideoDecoder(path: found("probe-zero-size.flv"))
            Issue.record("opened as \(clip.width)×\(clip.height)")
        } catch let e as SweepError {
            #expect(e.code == .dataError && e.message.contains("no picture size"), "\(e)")
        }
    }
}
