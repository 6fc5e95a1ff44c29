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
        extra: [String] = [], bits: Int = 8
    ) throws {
        try ffmpeg(
            ["-f", "lavfi", "-i", "color=c=black:s=\(width)x\(height):r=\(fps):d=\(seconds)"] + inputs + [
                "-vf", "format=gray,\(counterFilter(bits: bits)),format=yuv420p",
                "-c:v", "libx264", "-qp", "0", "-g", "12",
            ] + extra + [path])
    }

    /// The `geq` filter drawing the frame number in `bits` bands (see the type's description).
    public static func counterFilter(bits: Int = 8) -> String {
        "geq=lum='if(bitand(N\\,pow(2\\,floor(Y*\(bits)/H)))\\,255\\,0)'"
    }

    /// Tags the MP4/MOV at `path` to be shown turned `degrees` clockwise (90, 180 or 270), by
    /// writing its track header's matrix as phones do. FFmpeg 5.1's command line cannot: its
    /// `rotate` metadata is no longer written.
    public static func rotate(_ path: String, clockwise degrees: Int) throws {
        switch degrees {
        case 90: try displayMatrix(path, a: 0, b: 1, c: -1, d: 0)
        case 180: try displayMatrix(path, a: -1, b: 0, c: 0, d: -1)
        case 270: try displayMatrix(path, a: 0, b: -1, c: 1, d: 0)
        default: try displayMatrix(path, a: 1, b: 0, c: 0, d: 1)
        }
    }

    /// Writes the 2×2 part of the MP4/MOV track header's display matrix at `path` (each entry
    /// −1, 0 or 1): a displayed point is (a·x + c·y, b·x + d·y). All eight turns and mirrors
    /// are written so; FFmpeg 5.1's command line has no option for any of them.
    public static func displayMatrix(_ path: String, a: Int32, b: Int32, c: Int32, d: Int32) throws {
        let url = URL(fileURLWithPath: path)
        var bytes = [UInt8](try Data(contentsOf: url))
        guard let tkhd = (0..<(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual("tkhd".utf8) }) else {
            throw Failure(description: "\(path): no tkhd box")
        }
        let one: Int32 = 0x10000
        let matrix: [Int32] = [a * one, b * one, 0, c * one, d * one, 0, 0, 0, 0x4000_0000]
        // Version 0: the matrix follows 44 bytes of times, ids, layer, volume and reserved fields.
        for (i, v) in matrix.enumerated() {
            for k in 0..<4 { bytes[tkhd + 44 + i * 4 + k] = UInt8(truncatingIfNeeded: UInt32(bitPattern: v) >> (24 - 8 * k)) }
        }
        try Data(bytes).write(to: url)
    }

    /// The counter shown at column `x` of `image` (`bits` bands spread over rows `top..<top+height`).
    public static func read(_ image: RGBAImage, x: Int, top: Int = 0, height: Int? = nil, bits: Int = 8) -> Int {
        let h = height ?? image.height - top
        var k = 0
        for bit in 0..<bits {
            let y = top + (bit * h + h / 2) / bits
            if image[x, y].g > 128 { k |= 1 << bit }
        }
        return k
    }
}
