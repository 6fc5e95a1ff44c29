import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTestSupport
import SweepWorker
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What playing a clip gave: each frame's number, whether it could take the 4:2:0 fast path,
/// its pixels drawn in RGBA over a coloured frame (so letterbox bars show) and in 4:2:0 when
/// it could, and the error that stopped it.
private struct Played: Equatable {
    var numbers: [Int] = []
    var fastPath: [Bool] = []
    var rgba: [[UInt8]] = []
    var yuv: [[UInt8]] = []
    var error: String?
}

/// Plays `decoder` for `count` output frames at 0.8 of its own rate (some frames shown twice),
/// drawn at `size` by `fit`.
private func play(_ decoder: any ClipDecoder, count: Int, size: (Int, Int), fit: FitMode) -> Played {
    var played = Played()
    decoder.expectOutput(width: size.0, height: size.1, fit: fit)
    var frame = RGBAImage(width: size.0, height: size.1, fill: RGBA8(r: 20, g: 200, b: 40))
    var planes = YUVImage(width: size.0, height: size.1)
    do {
        for k in 0..<count {
            try decoder.advance(to: Double(k) / (decoder.frameRate * 0.8))
            played.numbers.append(decoder.frameNumber)
            played.fastPath.append(decoder.convertsToVideoYUVDirectly)
            try decoder.draw(into: &frame, fit: fit)
            played.rgba.append(frame.pixels)
            if decoder.convertsToVideoYUVDirectly {
                try decoder.draw(into: &planes, fit: fit)
                played.yuv.append(planes.y + planes.u + planes.v)
            }
        }
    } catch let e as SweepError {
        played.error = "\(e.code.name): \(e.message) [\(e.subject ?? "")]"
    } catch {
        played.error = "\(error)"
    }
    return played
}

/// The clip's fixed properties, as one comparable string.
private func properties(_ d: any ClipDecoder) -> String {
    "\(d.width)x\(d.height) \(d.frameRate) fps \(d.duration) s hdr \(d.hdrTransfer ?? "-") end \(d.statedEnd.map { "\($0)" } ?? "-")"
}

/// The decoder `make` opens, or its error as text.
private func opening(_ make: () throws -> any ClipDecoder) -> Result<any ClipDecoder, Failure> {
    do { return .success(try make()) } catch let e as SweepError {
        return .failure(Failure(text: "\(e.code.name): \(e.message) [\(e.subject ?? "")]"))
    } catch { return .failure(Failure(text: "\(error)")) }
}

private struct Failure: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}

private func mediaFixture(_ name: String) -> String {
    ReadmeExamplesTests.root.appendingPathComponent("Tests/Fixtures/media/\(name)").path
}

private let budget = DecoderMemory.defaultBudget / 2

@Suite("Clip frames decoded in the worker")
struct ClipWorkerTests {
    /// Clips of each decoder and path: H.264 MP4, VP9 WebM, animated GIF, animated WebP, an
    /// HDR (PQ) AV1 clip, and a WebM cut short.
    static func clips() throws -> [(path: String, animatedWebP: Bool)] {
        let dir = try Scratch.folder("clip-worker")
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25", "-t", "1.2", "-pix_fmt", "yuv420p", "-c:v", "libx264", dir + "/h264.mp4",
        ])
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-t", "1", "-c:v", "libvpx-vp9", "-b:v", "500k", dir + "/vp9.webm",
        ])
        try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=120x90:rate=10", "-t", "1.5", dir + "/anim.gif"])
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=128x96:rate=12", "-t", "1", "-c:v", "libwebp_anim", "-loop", "0", dir + "/anim.webp",
        ])
        // The WebM cut at 60 %: its frames end before the length its header states.
        let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/vp9.webm"))
        try whole.prefix(whole.count * 6 / 10).write(to: URL(fileURLWithPath: dir + "/cut.webm"))
        return [
            (dir + "/h264.mp4", false), (dir + "/vp9.webm", false), (dir + "/anim.gif", false), (dir + "/anim.webp", true),
            (mediaFixture("av1-pq-hdr10.mp4"), false), (dir + "/cut.webm", false),
        ]
    }

    @Test("Frames played through the worker are the in-process decoder's, byte for byte, with the same numbers and errors")
    func sameFrames() throws {
        for (path, webp) in try Self.clips() {
            for (size, fit) in [((160, 90), FitMode.fill), ((96, 96), .fit)] {
                let opened = (
                    opening {
                        webp
                            ? try AnimatedWebPDecoder(path: path, background: .black) as any ClipDecoder
                            : try VideoDecoder(path: path, maxMemory: budget)
                    },
                    opening {
                        try WorkerClipDecoder(
                            path: path, animatedWebP: webp, start: 0, maxPixels: ImageDecoder.defaultMaxPixels, decoderMemory: budget,
                            hdr: .tonemap, background: .black)
                    }
                )
                guard case let .success(here) = opened.0, case let .success(there) = opened.1 else {
                    // A clip refused at once is refused alike.
                    #expect("\(opened.0)" == "\(opened.1)", "\(path)")
                    #expect(path.hasSuffix("cut.webm"), "\(path): \(opened)")
                    continue
                }
                #expect(properties(there) == properties(here), "\(path)")
                let (a, b) = (play(here, count: 40, size: size, fit: fit), play(there, count: 40, size: size, fit: fit))
                #expect(a == b, "\(path) \(fit): \(a.numbers) \(b.numbers) \(String(describing: a.error)) \(String(describing: b.error))")
                // The clips move, so equal frames say something.
                #expect(Set(b.rgba).count > 3, "\(path)")
                if path.hasSuffix("h264.mp4") && fit == .fill { #expect(b.yuv.count == b.rgba.count && b.fastPath.allSatisfy { $0 }) }
                if path.hasSuffix("cut.webm") { #expect(there.statedEnd != nil || b.error != nil, "\(path)") }
                if path.hasSuffix("hdr10.mp4") { #expect(there.hdrTransfer == "PQ") }
            }
        }
    }

    @Test("Played from a start past its beginning, a clip gives the in-process frames too")
    func sameFramesFromStart() throws {
        let path = try Self.clips()[0].path
        let here = try VideoDecoder(path: path, start: 0.5, maxMemory: budget)
        let there = try WorkerClipDecoder(
            path: path, animatedWebP: false, start: 0.5, maxPixels: ImageDecoder.defaultMaxPixels, decoderMemory: budget, hdr: .tonemap,
            background: .black)
        #expect(properties(there) == properties(here))
        #expect(play(here, count: 20, size: (160, 90), fit: .fill) == play(there, count: 20, size: (160, 90), fit: .fill))
        // Played again from its start, as a rewind does.
        let again = try there.reopened()
        #expect(
            play(again, count: 20, size: (160, 90), fit: .fill)
                == play(try VideoDecoder(path: path, start: 0.5), count: 20, size: (160, 90), fit: .fill))
    }

    @Test("A clip's key frames reach the render through the worker as the in-process decoder lists them")
    func keyFrames() throws {
        let path = Scratch.path("worker-keys.mp4")
        try ClipMaker.counter(path, fps: 10, seconds: 6, extra: ["-g", "10", "-sc_threshold", "0"])
        for start in [0.0, 2.5] {
            let here = try VideoDecoder(path: path, start: start, maxMemory: budget)
            let there = try WorkerClipDecoder(
                path: path, animatedWebP: false, start: start, maxPixels: ImageDecoder.defaultMaxPixels, decoderMemory: budget,
                hdr: .tonemap, background: .black)
            #expect(!here.keyFrameTimes.isEmpty && there.keyFrameTimes == here.keyFrameTimes, "from \(start) s")
        }
    }

    @Test("A worker killed part-way fails that clip with a data error naming the file, and every later call too")
    func killed() throws {
        let path = try Self.clips()[0].path
        let d = try WorkerClipDecoder(
            path: path, animatedWebP: false, start: 0, maxPixels: ImageDecoder.defaultMaxPixels, decoderMemory: budget, hdr: .tonemap,
            background: .black)
        var frame = RGBAImage(width: 64, height: 36)
        try d.advance(to: 0.2)
        try d.draw(into: &frame, fit: .fill)
        #expect(d.workerProcess > 0 && kill(d.workerProcess, SIGKILL) == 0)
        for _ in 0..<2 {
            do {
                try d.advance(to: 0.4)
                Issue.record("a killed worker answered")
            } catch let e as SweepError {
                #expect(e.code == .dataError && e.subject == path, "\(e)")
                #expect(e.message.hasPrefix("the decoder crashed on a frame of this file"), "\(e)")
            }
        }
        #expect(throws: SweepError.self) { try d.draw(into: &frame, fit: .fill) }
    }

    @Test(
        "A clip's decoder that crashes or is killed part-way gives exit 65 in one line; the old output survives",
        arguments: ["clip-segv", "clip-kill"])
    func crashesMidClip(fault: String) throws {
        let dir = try everydayInputs()
        try ClipMaker.counter(dir + "/clip.mp4", fps: 10, seconds: 2)
        let old = Data("the previous render".utf8)
        try old.write(to: URL(fileURLWithPath: dir + "/out.mp4"))
        var env = ProcessInfo.processInfo.environment
        env["SWEEP_TEST_DECODE_FAULT"] = fault + "@clip.mp4"
        let r = try runIn(dir, ["render", "clip.mp4", "after.png", "-o", "out.mp4"], environment: env)
        #expect(r.code == 65, "\(r)")
        #expect(
            r.stderr
                == "sweep: clip.mp4: the decoder crashed on a frame of this file (it is malformed or hits a decoder bug); nothing was written; re-export it from the original, or give another file\n",
            "\(r.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/out.mp4") == old)
        #expect(listing(dir) == ["after.png", "before.png", "clip.mp4", "out.mp4", "wide.png"], "\(listing(dir))")
        // Decoding in process by name does not go through the worker (the fault is never met).
        let inProcess = try runIn(
            dir, ["render", "clip.mp4", "after.png", "-o", "out.mp4", "--decode", "in-process", "--quiet"], environment: env)
        #expect(inProcess.code == 0, "\(inProcess)")
    }

    @Test("A clip's decoder that hangs on a frame is stopped at its deadline with exit 65; the old output survives")
    func hangMidClip() throws {
        let dir = try everydayInputs()
        try ClipMaker.counter(dir + "/clip.mp4", fps: 10, seconds: 2)
        let old = Data("the previous render".utf8)
        try old.write(to: URL(fileURLWithPath: dir + "/out.gif"))
        var env = ProcessInfo.processInfo.environment
        env["SWEEP_TEST_DECODE_FAULT"] = "clip-hang@clip.mp4"
        let start = Date()
        let r = try runIn(dir, ["render", "clip.mp4", "after.png", "-o", "out.gif"], environment: env)
        #expect(r.code == 65, "\(r)")
        #expect(r.stderr.hasPrefix("sweep: clip.mp4: the decoder took more than "), "\(r.stderr)")
        #expect(r.stderr.contains(" s on a frame of this file and was stopped; nothing was written"), "\(r.stderr)")
        #expect(Date().timeIntervalSince(start) < 40)
        #expect(FileManager.default.contents(atPath: dir + "/out.gif") == old)
    }
}
