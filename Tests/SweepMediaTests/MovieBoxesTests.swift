import Foundation
import SweepMedia
import SweepTestSupport
import Testing

/// The MP4 box reader runs on every clip before FFmpeg opens it, so it meets hostile sizes
/// first: it must end, without trapping, on whatever a box says.
@Suite("MP4 boxes read before FFmpeg")
struct MovieBoxesTests {
    static func box(_ type: String, _ body: [UInt8], size: UInt32? = nil) -> [UInt8] {
        let n = size ?? UInt32(8 + body.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + body
    }

    static func wide(_ type: String, length: UInt64, body: [UInt8]) -> [UInt8] {
        [0, 0, 0, 1] + Array(type.utf8) + (0..<8).map { UInt8(truncatingIfNeeded: length >> (56 - 8 * UInt64($0))) } + body
    }

    static let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8))

    static func read(_ bytes: [UInt8]) throws -> MovieBoxes? {
        let path = try Scratch.folder("movie-boxes") + "/f.mp4"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return MovieBoxes.read(path)
    }

    @Test(
        "Sizes that overflow, run past the end, or say zero end the walk without a track",
        arguments: [
            ("a 64-bit size near Int.max", wide("free", length: UInt64(Int.max) - 4, body: [0, 0, 0, 0])),
            ("a 64-bit size over Int.max", wide("free", length: UInt64.max, body: [])),
            ("a 64-bit mdat near Int.max", wide("mdat", length: UInt64(Int.max), body: [1, 2, 3])),
            ("a moov said to run past the end", box("moov", [0, 0, 0, 0], size: 4096)),
            ("a size below its header", box("free", [], size: 4)),
            ("a size of zero: to the end", box("free", [9, 9, 9], size: 0)),
            ("a box cut in its header", [0, 0, 0]),
        ])
    func hostileSizes(_ label: String, _ tail: [UInt8]) throws {
        let boxes = try Self.read(Self.ftyp + tail)
        #expect(boxes?.tracks.isEmpty ?? true, "\(label)")
    }

    @Test("A movie box after a long free box is still found; one after an mdat that runs to the end is not looked for")
    func order() throws {
        let trak = Self.box("trak", Self.box("tkhd", [UInt8](repeating: 0, count: 24)))
        let moov = Self.box("moov", trak)
        let found = try Self.read(Self.ftyp + Self.box("free", [UInt8](repeating: 0, count: 5000)) + moov)
        #expect(found != nil)
        let hidden = try Self.read(Self.ftyp + Self.box("mdat", [1, 2, 3], size: 0) + moov)
        #expect(hidden == nil)
    }
}
