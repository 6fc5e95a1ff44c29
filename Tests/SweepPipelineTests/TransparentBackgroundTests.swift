import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTestSupport
import Testing

/// `--background transparent` keeps a see-through input see-through (#58): the PNG, PNG
/// sequence, APNG and WebP have alpha where the picture has none, as FFmpeg (libwebp for
/// the WebP) decodes them.
@Suite struct TransparentBackgroundTests {
    /// A 64×48 PNG, green on its left half, see-through (alpha 0) on its right half.
    static func halfTransparent(in dir: String) throws -> String {
        let path = dir + "/half.png"
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=64x48", "-vf", "format=rgba,geq=r=0:g=200:b=0:a='if(lt(X\\,32)\\,255\\,0)'",
            "-frames:v", "1", path,
        ])
        return path
    }

    /// The PNG at `path` as FFmpeg decodes it, in RGBA.
    static func decoded(_ path: String, width: Int, height: Int) throws -> (format: String, image: RGBAImage) {
        let format = String(
            decoding: try SoundReader.run("ffprobe", ["-show_entries", "stream=pix_fmt", "-of", "csv=p=0", path]), as: UTF8.self)
        let bytes = try SoundReader.run("ffmpeg", ["-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        return (
            format.trimmingCharacters(in: .whitespacesAndNewlines),
            RGBAImage(width: width, height: height, pixels: [UInt8](bytes.prefix(width * height * 4)))
        )
    }

    /// A 64×48 PNG, opaque `colour` (an FFmpeg colour) over its top half, see-through below.
    static func topHalf(_ colour: String, named name: String, in dir: String) throws -> String {
        let path = dir + "/\(name).png"
        let (r, g, b) = colour == "green" ? (0, 200, 0) : (0, 0, 200)
        try ClipMaker.ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=64x48", "-vf", "format=rgba,geq=r=\(r):g=\(g):b=\(b):a='if(lt(Y\\,24)\\,255\\,0)'",
            "-frames:v", "1", path,
        ])
        return path
    }

    /// Checks one frame of a render of ``topHalf(_:named:in:)`` pictures: whatever the split,
    /// the top half is opaque green or blue and the bottom half see-through.
    static func expectTopHalf(_ image: RGBAImage, _ label: String) {
        for x in [2, 20, 44, 61] {
            let top = image[x, 8], bottom = image[x, 40]
            #expect(top.a == 255 && top.r < 10 && max(top.g, top.b) > 180, "\(label): top \(x) \(top)")
            #expect(bottom.a == 0, "\(label): bottom \(x) \(bottom)")
        }
    }

    @Test("A render to a PNG sequence, APNG or WebP keeps the see-through part see-through", arguments: ["png", "apng", "webp"])
    func seeThroughRender(format: String) throws {
        let dir = try Scratch.folder("transparent-render")
        let before = try Self.topHalf("green", named: "before", in: dir), after = try Self.topHalf("blue", named: "after", in: dir)
        let out = dir + (format == "png" ? "/f-%02d.png" : "/out.\(format)")
        let run = try runSweep(
            [
                "render", before, after, "-o", out, "--background", "transparent", "--no-handle", "--no-labels", "--duration", "2",
                "--fps", "10",
            ])
        #expect(run.code == 0, "\(run.stderr)")
        switch format {
        case "png":
            // 20 frames, f-00 … f-19: the first, a middle one (mid-sweep) and the last.
            for frame in ["00", "10", "19"] {
                let (pixelFormat, image) = try Self.decoded(dir + "/f-\(frame).png", width: 64, height: 48)
                #expect(pixelFormat == "rgba", "frame \(frame): \(pixelFormat)")
                Self.expectTopHalf(image, "PNG frame \(frame)")
            }
        case "apng":
            let bytes = try SoundReader.run("ffmpeg", ["-i", out, "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
            let size = 64 * 48 * 4
            #expect(bytes.count >= 10 * size && bytes.count % size == 0, "\(bytes.count) bytes")
            for frame in [0, bytes.count / size / 2, bytes.count / size - 1] {
                let pixels = [UInt8](bytes[(frame * size)..<((frame + 1) * size)])
                Self.expectTopHalf(RGBAImage(width: 64, height: 48, pixels: pixels), "APNG frame \(frame)")
            }
        default:
            // FFmpeg 5.1 cannot decode an animated WebP: libwebp's animation decoder, under
            // sweep's clip decoder, composes each frame on the canvas over a red background.
            // Red shows only through alpha.
            // The header says so too: the VP8X alpha flag is set, and the ANIM background
            // colour (BGRA), which the container's reference decoding paints where no frame
            // covers the canvas, is see-through.
            let head = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)).prefix(42))
            try #require(head.count == 42 && Array(head[12..<16]) == Array("VP8X".utf8) && Array(head[30..<34]) == Array("ANIM".utf8))
            #expect(head[20] & 0x12 == 0x12, "VP8X flags \(head[20])")
            #expect(head[41] == 0, "background \(Array(head[38..<42]))")
            let clip = try AnimatedWebPDecoder(path: out, background: RGBA8(r: 255, g: 0, b: 0))
            #expect(clip.width == 64 && clip.height == 48)
            for t in [0.0, 1.0, 1.9] {
                try clip.advance(to: t)
                var frame = RGBAImage(width: 64, height: 48)
                try clip.draw(into: &frame, fit: .fill)
                for x in [2, 20, 44, 61] {
                    let top = frame[x, 8], bottom = frame[x, 40]
                    #expect(top.r < 40 && max(top.g, top.b) > 160, "\(t) s: top \(x) \(top)")
                    #expect(bottom.r > 230 && bottom.g < 30 && bottom.b < 30, "\(t) s: bottom \(x) \(bottom)")
                }
            }
        }
    }

    @Test("A see-through input stays see-through at its own size and resized")
    func seeThrough() throws {
        let dir = try Scratch.folder("transparent")
        let input = try Self.halfTransparent(in: dir)
        for (size, w, h) in [(nil as String?, 64, 48), ("32x24", 32, 24)] {
            let out = dir + "/\(w).png"
            let run = try runSweep(
                ["preview", input, "-o", out, "--background", "transparent", "--no-handle", "--no-labels"]
                    + (size.map { ["--size", $0] } ?? []))
            #expect(run.code == 0, "\(run.stderr)")
            let (format, image) = try Self.decoded(out, width: w, height: h)
            #expect(format == "rgba", "\(w)x\(h): \(format)")
            // Well inside each half: opaque green on the left, nothing on the right.
            for y in [2, h / 2, h - 3] {
                let left = image[w / 8, y], right = image[w - 1 - w / 8, y]
                #expect(left.a == 255 && left.g > 190 && left.r < 10, "\(w)x\(h): left \(left)")
                #expect(right.a == 0, "\(w)x\(h): right \(right)")
            }
            // No dark fringe where the halves meet: the last see-through-free column stays green.
            let edge = image[w / 2 - 2, h / 2]
            #expect(edge.a < 10 || edge.g > 150, "\(w)x\(h): edge \(edge)")
        }
    }
}
