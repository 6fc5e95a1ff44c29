import Foundation
import SweepImaging

/// Makes test clips with the `ffmpeg` command line, and reads back the frame counters
/// burned into them.
///
/// A counter clip's frame *k* shows *k* in binary as eight horizontal bands, band *b* (from
/// the top) white when bit *b* of *k* is set; any column of any part of the picture holds
/// the whole number, so it survives a split, a crop or a scale.
public enum ClipMaker {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `ffmpeg -v error -y ARGS`; throws with its stderr when it fails.
    public static func ffmpeg(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-nostdin", "-v", "error", "-y"] + args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw Failure(description: "ffmpeg \(args.joined(separator: " ")): \(text)") }
    }

    /// A counter clip of `seconds` at `fps`, H.264 lossless in 4:2:0, written to `path`
    /// (the container follows the extension); `inputs` are more inputs (a sound), `extra`
    /// goes before the output path.
    public static func counter(
        _ path: String, width: Int = 96, height: Int = 64, fps: Double, seconds: Double, inputs: [String] = [],
        extra: [String] = []
    ) throws {
        try ffmpeg(
            ["-f", "lavfi", "-i", "color=c=black:s=\(width)x\(height):r=\(fps):d=\(seconds)"] + inputs + [
                "-vf", "format=gray,geq=lum='if(bitand(N\\,pow(2\\,floor(Y*8/H)))\\,255\\,0)',format=yuv420p",
                "-c:v", "libx264", "-qp", "0", "-g", "12",
            ] + extra + [path])
    }

    /// The counter shown at column `x` of `image` (bands spread over rows `top..<top+height`).
    public static func read(_ image: RGBAImage, x: Int, top: Int = 0, height: Int? = nil) -> Int {
        let h = height ?? image.height - top
        var k = 0
        for bit in 0..<8 {
            let y = top + (bit * h + h / 2) / 8
            if image[x, y].g > 128 { k |= 1 << bit }
        }
        return k
    }
}
