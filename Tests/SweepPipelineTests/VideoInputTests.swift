import Foundation
import SweepImaging
import SweepMedia
import SweepPipeline
import SweepSupport
import SweepTestSupport
import SweepTimeline
import Testing

/// Video inputs (#16): each output frame shows, from each clip, the frame on screen at its
/// instant. The clips carry a binary frame counter (``ClipMaker``), read back from the
/// output's left (before) and right (after) halves.
@Suite struct VideoInputTests {
    let dir: String

    init() throws {
        dir = try Scratch.folder("video")
    }

    /// A spec that holds the split in the middle, with nothing drawn over the pictures.
    func spec(_ before: String, _ after: String?, configure: (inout RenderSpec) -> Void = { _ in }) -> RenderSpec {
        var s = splitSpec(before, after)
        s.width = 96
        s.height = 64
        configure(&s)
        return s
    }

    /// Renders to a PNG sequence and returns (before, after) counters per frame.
    func counters(_ spec: RenderSpec) throws -> (result: RenderResult, sides: [(Int, Int)]) {
        let pattern = dir + "/f-%04d.png"
        let result = try Renderer.render(spec, to: pattern)
        let sides = try (0..<result.frames).map { i -> (Int, Int) in
            let image = try ImageDecoder.decode(path: String(format: pattern, i))
            return (ClipMaker.read(image, x: 8), ClipMaker.read(image, x: image.width - 8))
        }
        return (result, sides)
    }

    @Test func framesMatchByIndexAtOneRate() throws {
        try ClipMaker.counter(dir + "/a.mp4", fps: 25, seconds: 2)
        try ClipMaker.counter(dir + "/b.mp4", fps: 25, seconds: 3)
        let (result, sides) = try counters(spec(dir + "/a.mp4", dir + "/b.mp4"))
        #expect(result.fps == 25)  // the before clip's rate
        #expect(result.frames == 50)  // the shorter clip
        for (i, s) in sides.enumerated() { #expect(s.0 == i && s.1 == i, "frame \(i): \(s)") }
    }

    @Test func framesMatchByTimeAcrossRatesAndStartTimes() throws {
        // 25 fps before; 30 fps after in MPEG-TS, whose timestamps start at 1.4 s.
        try ClipMaker.counter(dir + "/a.mp4", fps: 25, seconds: 3)
        try ClipMaker.counter(dir + "/b.ts", fps: 30, seconds: 3)
        let (result, sides) = try counters(spec(dir + "/a.mp4", dir + "/b.ts"))
        #expect(result.fps == 25)
        #expect(result.frames == 75)
        for (i, s) in sides.enumerated() {
            // After frame k is on screen from k/30 s: at i/25 s that is floor(i·30/25).
            #expect(s.0 == i && s.1 == (i * 30) / 25, "frame \(i): \(s)")
        }
    }

    @Test func variableFrameRateClipsShowTheFrameOnScreen() throws {
        // Frames 0–9 at 25 fps, then a pause: frame 10 comes at 0.88 s (22 ticks of 1/25 s),
        // as a phone's variable rate would have it.
        try ClipMaker.ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=black:s=96x64:r=25:d=1", "-vf",
                "format=gray,geq=lum='if(bitand(N\\,pow(2\\,floor(Y*8/H)))\\,255\\,0)',format=yuv420p,setpts='N/25/TB+if(gte(N\\,10)\\,0.5/TB\\,0)'",
                "-vsync", "vfr", "-c:v", "libx264", "-qp", "0", "-g", "12", dir + "/vfr.mkv",
            ])
        try ClipMaker.counter(dir + "/b.mp4", fps: 25, seconds: 2)
        let (result, sides) = try counters(
            spec(dir + "/vfr.mkv", dir + "/b.mp4") {
                $0.fps = 25; $0.clip.followClipRate = false
            })
        #expect(result.frames >= 35)
        for (i, s) in sides.prefix(35).enumerated() {
            let shown = i < 10 ? i : (i < 22 ? 9 : i - 12)
            #expect(s.0 == shown && s.1 == i, "frame \(i): \(s), expected \(shown)")
        }
    }

    @Test func fpsStartAndEndResample() throws {
        try ClipMaker.counter(dir + "/a.mp4", fps: 25, seconds: 4)
        try ClipMaker.counter(dir + "/b.mp4", fps: 20, seconds: 4)
        let (result, sides) = try counters(
            spec(dir + "/a.mp4", dir + "/b.mp4") {
                $0.fps = 50
                $0.clip.followClipRate = false
                $0.clip.start = 1
                $0.clip.end = 2.5
            })
        #expect(result.frames == 75)  // 1.5 s at 50 fps
        for (i, s) in sides.enumerated() {
            let t = 1 + Double(i) / 50
            #expect(s.0 == Int((t * 25 + 1e-6).rounded(.down)) && s.1 == Int((t * 20 + 1e-6).rounded(.down)), "frame \(i): \(s)")
        }
    }

    @Test func aStillBesideAClipIsHeld() throws {
        try ClipMaker.counter(dir + "/b.mp4", fps: 24, seconds: 1)
        let still = RGBAImage(width: 96, height: 64, fill: RGBA8(r: 0, g: 200, b: 0))
        var s = spec(dir + "/b.mp4", dir + "/b.mp4")
        s.before = .image(still)
        let (result, sides) = try counters(s)
        #expect(result.fps == 24)  // the after clip's rate, the before side being a still
        #expect(result.frames == 24)
        for (i, side) in sides.enumerated() { #expect(side.0 == 255 && side.1 == i, "frame \(i): \(side)") }
    }

    @Test func oneClipComparedWithItselfUnderALook() throws {
        try ClipMaker.counter(dir + "/a.mp4", fps: 10, seconds: 1)
        let (_, sides) = try counters(
            spec(dir + "/a.mp4", nil) { $0.animation.after = Track(constant: Adjustments(brightness: 0.1)) })
        for (i, s) in sides.enumerated() { #expect(s.0 == i && s.1 == i, "frame \(i): \(s)") }
    }

    @Test func animatedGIFPlaysUnlessFirstFrameIsAsked() throws {
        try ClipMaker.counter(dir + "/a.mp4", fps: 10, seconds: 1)
        try ClipMaker.ffmpeg(["-i", dir + "/a.mp4", dir + "/a.gif"])
        let (played, sides) = try counters(spec(dir + "/a.gif", dir + "/a.mp4"))
        #expect(played.frames == 10)
        for (i, s) in sides.enumerated() { #expect(s.0 == i && s.1 == i, "frame \(i): \(s)") }
        let (_, held) = try counters(
            spec(dir + "/a.gif", dir + "/a.mp4") { $0.clip.firstFrame = true })
        for (i, s) in held.enumerated() { #expect(s.0 == 0 && s.1 == i, "frame \(i): \(s)") }
    }

    @Test func animatedWebPAndAPNGPlay() throws {
        try ClipMaker.counter(dir + "/a.mp4", fps: 10, seconds: 1)
        try ClipMaker.ffmpeg(["-i", dir + "/a.mp4", "-c:v", "libwebp_anim", "-lossless", "1", "-loop", "0", dir + "/a.webp"])
        try ClipMaker.ffmpeg(["-i", dir + "/a.mp4", "-plays", "0", "-f", "apng", dir + "/a.png"])
        for name in ["a.webp", "a.png"] {
            let (played, sides) = try counters(spec(dir + "/" + name, dir + "/a.mp4"))
            #expect(played.frames == 10, "\(name)")
            for (i, s) in sides.enumerated() { #expect(s.0 == i && s.1 == i, "\(name) frame \(i): \(s)") }
            let (_, held) = try counters(spec(dir + "/" + name, dir + "/a.mp4") { $0.clip.firstFrame = true })
            #expect(held.allSatisfy { $0.0 == 0 }, "\(name)")
        }
        // From 0.5 s on.
        let (_, late) = try counters(spec(dir + "/a.webp", nil) { $0.clip.start = 0.5 })
        #expect(late.map(\.0) == [5, 6, 7, 8, 9])
    }

    @Test func theTimelineIsStretchedOverTheClipOrLoops() throws {
        try ClipMaker.counter(dir + "/a.mp4", fps: 10, seconds: 4)
        var s = spec(dir + "/a.mp4", nil)
        s.after = .image(RGBAImage(width: 96, height: 64, fill: RGBA8(r: 255, g: 0, b: 0)))
        s.animation = RenderSpec.sweep(from: 1, to: 0, duration: 1, hold: 0, curve: .linear)  // a 1 s pass
        let stretched = try Renderer.render(s, to: dir + "/s-%04d.png")
        #expect(stretched.frames == 40)
        #expect(abs(stretched.duration - 4) < 1e-9)
        s.clip.loopAnimation = true
        let looped = try Renderer.render(s, to: dir + "/l-%04d.png")
        #expect(looped.frames == 40)
        // The first red column: where the after side begins.
        func split(_ path: String) throws -> Int {
            let image = try ImageDecoder.decode(path: path)
            return (0..<image.width).first { image[$0, 40].r > 200 && image[$0, 40].g < 60 } ?? image.width
        }
        // Half-way through the clip the stretched sweep is half done; the looped one is
        // back at its start (all before).
        #expect(abs(try split(dir + "/s-0020.png") - 48) <= 4)
        #expect(try split(dir + "/l-0020.png") == 96)
        #expect(abs(try split(dir + "/l-0025.png") - 48) <= 4)
    }

    @Test func rotationMetadataIsApplied() throws {
        // A 64×32 clip with a white band along its stored top, tagged to be shown turned
        // 90° clockwise (the QuickTime matrix FFmpeg reports as rotation -90).
        try ClipMaker.ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=black:s=64x32:r=10:d=1", "-vf",
                "format=gray,geq=lum='if(lt(Y\\,8)\\,255\\,0)',format=yuv420p",
                "-c:v", "libx264", "-qp", "0", dir + "/r.mp4",
            ])
        try ClipMaker.rotate(dir + "/r.mp4", clockwise: 90)
        var s = spec(dir + "/r.mp4", nil)
        s.width = nil
        s.height = nil
        let result = try Renderer.render(s, to: dir + "/r-%04d.png")
        #expect(result.width == 32 && result.height == 64)  // upright
        let image = try ImageDecoder.decode(path: dir + "/r-0000.png")
        #expect(image[image.width - 2, 32].g > 200)  // the band is now the right edge
        #expect(image[2, 32].g < 50)
    }

    @Test func coloursFollowTheMatrixAndRange() throws {
        // One colour, coded as BT.601 limited, BT.709 full and BT.709 10-bit.
        let cases: [(String, [String])] = [
            (
                "601.mp4",
                ["-vf", "scale=out_color_matrix=bt601:out_range=tv,format=yuv420p", "-colorspace", "smpte170m", "-color_range", "tv"]
            ),
            (
                "709full.mp4",
                ["-vf", "scale=out_color_matrix=bt709:out_range=pc,format=yuvj420p", "-colorspace", "bt709", "-color_range", "pc"]
            ),
            (
                "709-10bit.mkv",
                [
                    "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p10le", "-colorspace", "bt709", "-color_range", "tv",
                    "-c:v", "ffv1",
                ]
            ),
        ]
        for (name, args) in cases {
            let path = dir + "/" + name
            let codec = args.contains("ffv1") ? [] : ["-c:v", "libx264", "-qp", "0"]
            try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "color=c=0xC83C1E:s=64x64:r=10:d=0.5"] + args + codec + [path])
            var s = spec(path, nil)
            s.width = 64
            let result = try Renderer.render(s, to: dir + "/c-%04d.png")
            #expect(result.frames == 5)
            let px = try ImageDecoder.decode(path: dir + "/c-0002.png")[32, 32]
            #expect(abs(Int(px.r) - 200) <= 3, "\(name): \(px)")
            #expect(abs(Int(px.g) - 60) <= 3, "\(name): \(px)")
            #expect(abs(Int(px.b) - 30) <= 3, "\(name): \(px)")
        }
    }

    @Test func damagedAndUnplayableClipsAreRefused() throws {
        try ClipMaker.counter(dir + "/a.mp4", fps: 25, seconds: 4, extra: ["-movflags", "+faststart"])
        // Cut part-way: the index promises frames the file no longer has. The clip plays to its
        // last whole frame and says where that was (TruncatedClipTests), padding nothing.
        let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.mp4"))
        try whole.prefix(whole.count * 6 / 10).write(to: URL(fileURLWithPath: dir + "/cut.mp4"))
        let cut = try Renderer.render(spec(dir + "/cut.mp4", nil), to: dir + "/cut-out.mp4")
        let end = try #require(cut.cutShort?.first, "\(cut)")
        #expect(end.stated == 4 && end.framesEnd < 3 && cut.frames == Int((end.framesEnd * 25 - 1e-6).rounded(.up)), "\(cut)")
        // Sound only.
        try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", dir + "/sound.m4a"])
        let sound = #expect(throws: SweepError.self) { try Renderer.render(spec(dir + "/sound.m4a", nil), to: dir + "/o.mp4") }
        #expect(sound?.code == .dataError)
        #expect(sound?.message.contains("no video stream") == true, "\(String(describing: sound))")
        // HDR (PQ) is refused when asked (tone-mapped otherwise: HDRClipTests).
        try ClipMaker.ffmpeg(
            [
                "-f", "lavfi", "-i", "color=c=gray:s=64x64:r=10:d=0.5", "-c:v", "libx264", "-color_trc", "smpte2084",
                "-color_primaries", "bt2020", "-colorspace", "bt2020nc", dir + "/hdr.mp4",
            ])
        var refusing = spec(dir + "/hdr.mp4", nil)
        refusing.clip.hdr = .refuse
        let hdr = #expect(throws: SweepError.self) { try Renderer.render(refusing, to: dir + "/o.mp4") }
        #expect(hdr?.code == .dataError)
        #expect(hdr?.message.contains("HDR") == true)
        // Encrypted (CENC): exit 65, named as such.
        try ClipMaker.counter(
            dir + "/drm.mp4", fps: 10, seconds: 1,
            extra: [
                "-encryption_scheme", "cenc-aes-ctr", "-encryption_key", "76a6c65c5ea762046bd749a2e632ccbb",
                "-encryption_kid", "a7e61c373e219033c21091fa607bf3b8",
            ])
        let drm = #expect(throws: SweepError.self) { try Renderer.render(spec(dir + "/drm.mp4", nil), to: dir + "/o.mp4") }
        #expect(
            drm?.code == .dataError && drm?.message.hasPrefix("the clip is encrypted (DRM, scheme cenc)") == true,
            "\(String(describing: drm))")
        // A codec outside sweep's list (HuffYUV in Matroska): exit 69, with what to do.
        try ClipMaker.ffmpeg(["-f", "lavfi", "-i", "color=c=gray:s=64x64:r=10:d=0.5", "-c:v", "huffyuv", dir + "/huff.mkv"])
        let huff = #expect(throws: SweepError.self) { try Renderer.render(spec(dir + "/huff.mkv", nil), to: dir + "/o.mp4") }
        #expect(huff?.code == .unavailable, "\(String(describing: huff))")
        #expect(huff?.message.contains("huffyuv") == true)
        #expect(!FileManager.default.fileExists(atPath: dir + "/o.mp4"))
    }

    @Test func theYUVFastPathShowsTheSameFrames() throws {
        try ClipMaker.counter(dir + "/a.mp4", fps: 25, seconds: 2)
        try ClipMaker.counter(dir + "/b.mp4", fps: 50, seconds: 2)
        var s = spec(dir + "/a.mp4", dir + "/b.mp4")
        s.videoOptions = [("crf", "1")]
        let result = try Renderer.render(s, to: dir + "/o.mp4")
        #expect(result.frames == 50)
        let video = try VideoReader(path: dir + "/o.mp4")
        #expect(video.frameCount == 50)
        for (i, f) in video.frames.enumerated() {
            #expect(ClipMaker.read(f, x: 8) == i && ClipMaker.read(f, x: f.width - 8) == 2 * i, "frame \(i)")
        }
    }

    @Test func theYUVPathConvertsMatrixAndRange() throws {
        // The same colour coded three ways, each composed in Y′CbCr for an H.264 output.
        let cases: [(String, [String])] = [
            ("601.mp4", ["-vf", "scale=out_color_matrix=bt601:out_range=tv,format=yuv420p", "-colorspace", "smpte170m"]),
            (
                "709full.mp4",
                ["-vf", "scale=out_color_matrix=bt709:out_range=pc,format=yuvj420p", "-colorspace", "bt709", "-color_range", "pc"]
            ),
            ("709.mp4", ["-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", "-colorspace", "bt709"]),
        ]
        for (name, args) in cases {
            let path = dir + "/" + name
            try ClipMaker.ffmpeg(
                ["-f", "lavfi", "-i", "color=c=0xC83C1E:s=64x64:r=10:d=0.5"] + args + ["-c:v", "libx264", "-qp", "0", path])
            var s = spec(path, nil)
            s.width = 64
            s.videoOptions = [("crf", "1")]
            _ = try Renderer.render(s, to: dir + "/o-" + name)
            let px = try VideoReader(path: dir + "/o-" + name).frames[2][32, 32]
            #expect(abs(Int(px.r) - 200) <= 4, "\(name): \(px)")
            #expect(abs(Int(px.g) - 60) <= 4, "\(name): \(px)")
            #expect(abs(Int(px.b) - 30) <= 4, "\(name): \(px)")
        }
    }
}
