import Foundation
import SweepImaging
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepGIF

/// A cross-fade from `a` to `b` in `steps` frames, a wipe back over half of it, and the last
/// frame again (identical: it lengthens the one before).
private func fadeThenWipe(_ a: RGBAImage, _ b: RGBAImage, steps: Int) -> [RGBAImage] {
    var frames: [RGBAImage] = (0...steps).map { s in
        var f = a
        for i in 0..<f.pixels.count {
            f.pixels[i] = UInt8((Int(a.pixels[i]) * (steps - s) + Int(b.pixels[i]) * s + steps / 2) / steps)
        }
        return f
    }
    // A band of a third picture sweeps in from the left: new colours, never ones shown before.
    let c = mixed(a.width, a.height, seed: 9)
    for s in 1...3 {
        var f = frames.last!
        for y in 0..<a.height {
            for x in 0..<(a.width * s / 6) {
                let i = (y * a.width + x) * 4
                for k in 0..<3 { f.pixels[i + k] = c.pixels[i + k] / 2 + 20 }
            }
        }
        frames.append(f)
    }
    frames.append(frames.last!)
    return frames
}

/// A cross-fade whose pixels step back and forth by a level as it goes (as a real
/// dissolve's do): they come back to colours they showed (``PixelHistory``).
private func jitteryFade(_ a: RGBAImage, _ b: RGBAImage, steps: Int) -> [RGBAImage] {
    (0...steps).map { s in
        var f = a
        for i in 0..<f.pixels.count where i % 4 != 3 {
            let v = (Int(a.pixels[i]) * (steps - s) + Int(b.pixels[i]) * s) / steps + ((i / 4 + s) % 3 == 0 ? 1 : 0)
            f.pixels[i] = UInt8(min(255, v))
        }
        return f
    }
}

/// Texture all over (no smooth band, whose table may follow what comes back).
private func grain(_ w: Int, _ h: Int, seed: Int) -> RGBAImage {
    var img = RGBAImage(width: w, height: h)
    for y in 0..<h {
        for x in 0..<w {
            let i = (y * w + x) * 4, n = hash(x + seed, y, 90)
            img.pixels[i] = UInt8(40 + n); img.pixels[i + 1] = UInt8(70 + hash(y, x + seed, 80)); img.pixels[i + 2] = UInt8(30 + n / 2)
            img.pixels[i + 3] = 255
        }
    }
    return img
}

/// Encodes `frames` through ``GIFEncoder`` (samples as the pipeline takes them) at `quality`
/// and `lossy`, recording into `recording`; returns the file's bytes.
private func encode(
    _ frames: [RGBAImage], quality: Int, lossy: Int? = nil, overlay: [RGBA8] = [], recording: QuantizedFrames? = nil,
    screenTimes: [ScreenTime?]? = nil, earlyPasses: [Bool]? = nil
) throws -> Data {
    let path = Scratch.path("encoded.gif")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let q = GIFQuality(quality)
    let samples = GIFEncoder.sampleIndices(frameCount: frames.count).map { frames[$0] }
    let last = GIFEncoder.wantsLast(frameCount: frames.count, quality: q) ? frames.last : nil
    var settings = GIFEncoder.Settings(quality: q, lossy: lossy, overlayColors: overlay)
    settings.earlyPasses = earlyPasses
    let encoder = try GIFEncoder(
        path: path, destination: path, width: frames[0].width, height: frames[0].height, frameCount: frames.count,
        samples: samples, last: last, settings: settings, recording: recording)
    for (i, f) in frames.enumerated() { try encoder.add(f, delay: 4, screenTime: screenTimes?[i] ?? nil) }
    try encoder.finish()
    return try Data(contentsOf: URL(fileURLWithPath: path))
}

/// `recording` coded again at `lossy`; the file's bytes.
private func recode(_ recording: QuantizedFrames, lossy: Int) throws -> Data {
    try recoded(recording, lossy: lossy).bytes
}

/// `recording` coded again at `lossy`: the file's bytes, and how many frames were quantized again.
private func recoded(_ recording: QuantizedFrames, lossy: Int, name: String = "recoded.gif") throws -> (bytes: Data, requantized: Int) {
    let path = Scratch.path(name)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let encoder = try GIFEncoder.recode(recording, lossy: lossy, path: path, destination: path)
    return (try Data(contentsOf: URL(fileURLWithPath: path)), encoder.requantizedFrames)
}

@Suite("Quantized frames: a GIF coded again with another lossy budget")
struct QuantizedFramesTests {
    @Test(
        "Coding a recording again gives the bytes of a whole encode at that budget",
        arguments: [(90, 30), (90, 60), (75, 20), (60, 45), (45, 90)])
    func sameBytes(quality: Int, lossy: Int) throws {
        let (w, h) = (120, 72)
        let frames = fadeThenWipe(mixed(w, h), mixed(w, h, seed: 5), steps: 8)
        let times: [ScreenTime?] = frames.indices.map { i in
            i % 3 == 0 ? nil : ScreenTime(axis: .columns, stays: (0..<w).map { Double(($0 + i) % 7) * 0.2 }, typical: 0.6)
        }
        let overlay = [RGBA8(r: 255, g: 255, b: 255)]
        let recording = QuantizedFrames()
        let first = try encode(frames, quality: quality, overlay: overlay, recording: recording, screenTimes: times)
        #expect(recording.replayable)
        #expect(recording.frameCount == frames.count)
        #expect(recording.bytesSpilled == 0)
        // What the recording holds: two bytes a pixel of each changed rectangle, and the source.
        #expect(recording.bytesInMemory <= 6 * w * h * frames.count)
        let again = try recode(recording, lossy: lossy)
        let whole = try encode(
            frames, quality: quality, lossy: lossy, overlay: overlay, screenTimes: times, earlyPasses: recording.earlyWins)
        #expect(again == whole, "quality \(quality), lossy \(lossy): \(again.count) against \(whole.count) bytes")
        #expect(again != first)
        // And it decodes: the frames and their pixels of the whole encode.
        let path = Scratch.path("decoded.gif")
        try again.write(to: URL(fileURLWithPath: path))
        let decoded = try GIFReader(path: path).frames
        #expect(decoded.count == frames.count - 1)
    }

    @Test("Past its memory limit a recording goes to a temporary file, which is gone afterwards; the bytes stay the same")
    func spills() throws {
        let (w, h) = (96, 64)
        let frames = fadeThenWipe(mixed(w, h, seed: 2), mixed(w, h, seed: 7), steps: 6)
        let folder = Scratch.path("spill")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        do {
            let recording = QuantizedFrames(limit: 3 * w * h, directory: folder)
            _ = try encode(frames, quality: 80, recording: recording)
            let whole = try encode(frames, quality: 80, lossy: 40, earlyPasses: recording.earlyWins)
            #expect(recording.replayable)
            #expect(recording.bytesSpilled > 0)
            #expect(recording.bytesInMemory == 0)
            // Unlinked as soon as it was opened: nothing shows in the folder, even while in use.
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
            #expect(try recode(recording, lossy: 40) == whole)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("A temporary folder that cannot be written: one clear error, naming the folder")
    func spillFolderMissing() throws {
        let (w, h) = (64, 48)
        let frames = fadeThenWipe(mixed(w, h), mixed(w, h, seed: 3), steps: 4)
        let recording = QuantizedFrames(limit: 10, directory: "/nonexistent-sweep-folder")
        let error = #expect(throws: (any Error).self) { _ = try encode(frames, quality: 80, recording: recording) }
        let said = error.map { "\($0)" } ?? ""
        #expect(said.contains("cannot create a temporary file") && said.contains("/nonexistent-sweep-folder"), "\(said)")
    }

    @Test(
        "Pixels coming back to colours they showed: the same bytes, frames quantized again where the palettes differ",
        arguments: [90, 70])
    func returningPixels(quality: Int) throws {
        let (w, h) = (96, 64)
        let a = grain(w, h, seed: 1), b = grain(w, h, seed: 5)
        // A textured wipe there and back, then a fade whose pixels step back and forth.
        var frames = wipe(a, b, steps: 6)
        frames += frames.reversed().dropFirst()
        frames += jitteryFade(a, b, steps: 6)
        let recording = QuantizedFrames()
        _ = try encode(frames, quality: quality, recording: recording)
        try #require(recording.replayable)
        var requantized = 0
        for lossy in [25, 70] {
            let again = try recoded(recording, lossy: lossy)
            #expect(again.bytes == (try encode(frames, quality: quality, lossy: lossy, earlyPasses: recording.earlyWins)), "lossy \(lossy)")
            requantized += again.requantized
        }
        // Some frame's coming-back pixels found the palette holding what they showed under
        // one budget and not the other.
        #expect(requantized > 0)
    }

    @Test("A smooth picture's split moving back: coded again, the bytes of a whole encode, unless the recording says it cannot be")
    func smoothReturn() throws {
        let (w, h) = (96, 64)
        let a = gradient(w, h), b = gradient(w, h, shift: 90)
        var frames = wipe(a, b, steps: 6)
        frames += frames.reversed().dropFirst()
        for quality in [90, 70] {
            let recording = QuantizedFrames()
            _ = try encode(frames, quality: quality, recording: recording)
            // A band coming back may take its table from what was shown: then not replayable.
            guard recording.replayable else { continue }
            let whole = try encode(frames, quality: quality, lossy: 50, earlyPasses: recording.earlyWins)
            #expect(try recode(recording, lossy: 50) == whole, "quality \(quality)")
        }
    }

    @Test(
        "The early-reset pass runs again only where it won: one flag per frame written, and with every flag set, a plain encode's bytes",
        // The second size's fading frames are blocks of over 65 536 pixels, which may be coded on both cores.
        arguments: [(120, 72), (288, 240)])
    func earlyPassesWhereTheyWon(w: Int, h: Int) throws {
        let frames = fadeThenWipe(mixed(w, h), mixed(w, h, seed: 5), steps: 8)
        let recording = QuantizedFrames()
        let first = try encode(frames, quality: 90, recording: recording)
        try #require(recording.replayable)
        let path = Scratch.path("early-first.gif")
        try first.write(to: URL(fileURLWithPath: path))
        #expect(recording.earlyWins.count == (try GIFReader(path: path).frames.count))
        // The passes the recording kept, and none at all: each the bytes of an encode told the same.
        let mixedWins = recording.earlyWins
        let none = [Bool](repeating: false, count: mixedWins.count)
        for wins in [mixedWins, none] {
            recording.earlyWins = wins
            #expect(try recode(recording, lossy: 40) == (try encode(frames, quality: 90, lossy: 40, earlyPasses: wins)))
        }
        // Every pass run: what an encode gives by default (nil: every frame's pass).
        recording.earlyWins = [Bool](repeating: true, count: mixedWins.count)
        let plain = try encode(frames, quality: 90, lossy: 40)
        #expect(try recode(recording, lossy: 40) == plain)
        // Some pass won here, so the flags change the file: they are read.
        #expect(mixedWins.contains(true))
        #expect(try encode(frames, quality: 90, lossy: 40, earlyPasses: none) != plain)
    }

    @Test("Two codings of one recording at once, in memory and spilled: each the bytes of the same coding alone")
    func twoAtOnce() throws {
        let (w, h) = (160, 96)
        let frames = fadeThenWipe(mixed(w, h, seed: 4), mixed(w, h, seed: 8), steps: 6)
        for limit in [256 << 20, 3 * w * h] {
            let recording = QuantizedFrames(limit: limit)
            _ = try encode(frames, quality: 90, recording: recording)
            try #require(recording.replayable)
            #expect((recording.bytesSpilled > 0) == (limit < 1 << 20))
            let alone = try (recode(recording, lossy: 25), recode(recording, lossy: 45))
            let together = try Pending.both(
                { try recoded(recording, lossy: 25, name: "both-a.gif").bytes },
                { try recoded(recording, lossy: 45, name: "both-b.gif").bytes })
            #expect(together.0 == alone.0 && together.1 == alone.1)
            #expect(alone.0 != alone.1)
        }
    }
}
