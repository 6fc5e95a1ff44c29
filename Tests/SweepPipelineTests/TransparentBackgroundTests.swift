import Foundation
import SweepImaging
import SweepSupport
import SweepTestSupport
import Testing

/// `--background transparent` keeps a see-through input see-through (#58): the PNG has
/// alpha where the picture has none, as FFmpeg decodes it.
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
