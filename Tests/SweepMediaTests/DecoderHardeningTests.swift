import CZlib
import Foundation
import SweepImaging
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepMedia

#if canImport(Glibc)
    import Glibc
#endif

/// The error a decode of `bytes` gives, if any.
private func decodeError(_ bytes: [UInt8], maxPixels: Int = ImageDecoder.defaultMaxPixels) -> SweepError? {
    do { _ = try ImageDecoder.decode(bytes: bytes, name: "test", maxPixels: maxPixels); return nil } catch let e as SweepError {
        return e
    } catch { return SweepError(.internalError, "\(error)") }
}

/// `png` with `extra` chunks inserted right after its image header.
private func inserting(_ extra: [UInt8], into png: [UInt8]) -> [UInt8] { Array(png[..<33]) + extra + Array(png[33...]) }

/// zlib-compressed zeros: a small stream that inflates to `count` bytes.
private func zeros(inflatingTo count: Int) -> [UInt8] {
    let input = [UInt8](repeating: 0, count: count)
    var size = compressBound(uLong(count))
    var out = [UInt8](repeating: 0, count: Int(size))
    _ = compress2(&out, &size, input, uLong(count), 9)
    return Array(out[..<Int(size)])
}

private func smallPNG(_ w: Int = 4, _ h: Int = 2) throws -> [UInt8] {
    var img = RGBAImage(width: w, height: h, fill: RGBA8(r: 10, g: 200, b: 30, a: 255))
    img.pixels[0] = 250  // the top-left pixel is red-ish, to see rotations
    return try StillEncoder.encode(img, format: .png, name: "test")
}

@Suite("Decoder hardening: only documented formats, checked before any decoder runs")
struct DecoderHardeningTests {
    @Test("Files of other formats renamed .jpg are refused, whatever FFmpeg could parse")
    func otherFormats() throws {
        let ppm = Array("P6\n2 2\n255\n".utf8) + [UInt8](repeating: 128, count: 12)
        let dir = try Scratch.folder("harden")
        let mp4 = dir + "/clip.mp4"
        let writer = try VideoWriter(path: mp4, width: 64, height: 64, fps: 10)
        for _ in 0..<3 { try writer.add(RGBAImage(width: 64, height: 64, fill: .white)) }
        try writer.finish()
        let psd = Array("8BPS".utf8) + [0, 1] + [UInt8](repeating: 0, count: 40)
        let h264 = [0, 0, 0, 1, 0x67, 0x64, 0, 0x1F] + [UInt8](repeating: 0xAC, count: 64)
        for bytes in [ppm, [UInt8](try Data(contentsOf: URL(fileURLWithPath: mp4))), psd, h264] {
            let e = try #require(decodeError(bytes))
            #expect(e.code == .dataError && e.message.contains("not an image"))
        }
    }

    @Test("A JPEG cut short past its header is refused, not filled with grey")
    func truncatedJPEG() throws {
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("jpeg-baseline.jpg"))))
        #expect(decodeError(good) == nil)
        let e = try #require(decodeError(Array(good[..<(good.count * 3 / 4)])))
        #expect(e.code == .dataError && e.message.contains("truncated"))
    }

    @Test("A JPEG with thousands of scans is refused before decoding")
    func manyScans() throws {
        var jpeg: [UInt8] = [0xFF, 0xD8]
        for _ in 0...JPEGMarkers.maxScans { jpeg += [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 63, 0, 0x55] }
        jpeg += [0xFF, 0xD9]
        let e = try #require(decodeError(jpeg))
        #expect(e.code == .dataError && e.message.contains("scans"))
    }

    @Test("A PNG with a wrong CRC is refused, naming the chunk")
    func badCRC() throws {
        var png = try smallPNG()
        #expect(decodeError(png) == nil)
        let idat = try #require(png.indices.first { png[$0..<($0 + 4)] == ArraySlice(Array("IDAT".utf8)) })
        let length = Int(PNGChunks.be32(png, idat - 4))
        png[idat + 4 + length] ^= 0xFF
        let e = try #require(decodeError(png))
        #expect(e.code == .dataError && e.message.contains("IDAT") && e.message.contains("CRC"))
    }

    @Test("A colour profile that inflates past 4 MB is refused; compressed text is never inflated")
    func ancillaryBombs() throws {
        let png = try smallPNG()
        let profile = Array("bomb".utf8) + [0, 0] + zeros(inflatingTo: 64 << 20)
        let e = try #require(decodeError(inserting(PNGChunks.chunk("iCCP", profile), into: png)))
        #expect(e.code == .dataError && e.message.contains("colour profile"))
        // 256 MB of compressed text in each of zTXt and iTXt: dropped unread, the picture decodes.
        let text = zeros(inflatingTo: 256 << 20)
        let ztxt = PNGChunks.chunk("zTXt", Array("Comment".utf8) + [0, 0] + text)
        let itxt = PNGChunks.chunk("iTXt", Array("Comment".utf8) + [0, 1, 0, 0, 0] + text)
        let decoded = try ImageDecoder.decode(bytes: inserting(ztxt + itxt, into: png), name: "text")
        #expect(decoded == (try ImageDecoder.decode(bytes: png, name: "plain")))
    }

    @Test("PNG eXIf orientation is honoured, as JPEG EXIF is", arguments: [(6, 2, 4), (3, 4, 2), (8, 2, 4)])
    func pngOrientation(tag: Int, width: Int, height: Int) throws {
        let png = try smallPNG(4, 2)
        // Big-endian TIFF: header, IFD at 8 with one entry (0x0112, SHORT, count 1, value).
        let exif: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(tag), 0, 0, 0, 0, 0, 0]
        let image = try ImageDecoder.decode(bytes: inserting(PNGChunks.chunk("eXIf", exif), into: png), name: "exif")
        #expect(image.width == width && image.height == height)
        let upright = try ImageDecoder.decode(bytes: png, name: "plain")
        #expect(image == Orientation.upright(upright, tag: tag))
    }

    @Test("A picture right at the pixel limit decodes (the decoder's own check counts row padding)")
    func atTheLimit() throws {
        let img = RGBAImage(width: 1000, height: 1000, fill: .white)
        let png = try StillEncoder.encode(img, format: .png, name: "limit")
        #expect(decodeError(png, maxPixels: 1_000_000) == nil)
        let e = try #require(decodeError(png, maxPixels: 999_999))
        #expect(e.field == .maxPixels)
    }

    @Test("Devices, pipes, loops and folders on the path say what they are, not a stale errno")
    func honestOpenErrors() throws {
        let dir = try Scratch.folder("open")
        mkfifo(dir + "/fifo", 0o600)
        symlink(dir + "/loop-a", dir + "/loop-b")
        symlink(dir + "/loop-b", dir + "/loop-a")
        _ = FileManager.default.createFile(atPath: dir + "/file", contents: Data("x".utf8))
        let cases: [(String, String)] = [
            ("/dev/zero", "not a regular file"), (dir + "/fifo", "not a regular file"),
            (dir + "/loop-a", "loop of symbolic links"), (dir + "/file/inside.png", "a folder on the path is a file"),
            (dir + "/missing.png", "no such file"), (dir, "is a folder"),
        ]
        for (path, words) in cases {
            do {
                _ = try ImageDecoder.decode(path: path)
                Issue.record("\(path) decoded")
            } catch let e as SweepError {
                #expect(e.code == .noInput && e.message.contains(words), "\(path): \(e.message)")
            }
        }
    }

    @Test("Image data past a complete picture is never inflated")
    func idatTail() throws {
        // One zlib stream: the picture's scanlines, then 256 MiB more zeros.
        let (w, h) = (16, 8)
        var raw: [UInt8] = []
        for y in 0..<h { raw += [0] + (0..<(w * 3)).map { UInt8(truncatingIfNeeded: $0 * 7 + y * 30) } }
        let tail = 256 << 20
        var stream = z_stream()
        _ = deflateInit_(&stream, 9, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        var out = [UInt8](repeating: 0, count: 1 << 20)
        var produced = 0
        func feed(_ bytes: [UInt8], _ flush: Int32) {
            bytes.withUnsafeBufferPointer { input in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                repeat {
                    out.withUnsafeMutableBufferPointer { o in
                        stream.next_out = o.baseAddress! + produced
                        stream.avail_out = uInt(o.count - produced)
                        _ = deflate(&stream, flush)
                        produced = o.count - Int(stream.avail_out)
                    }
                } while stream.avail_in > 0
            }
        }
        feed(raw, Z_NO_FLUSH)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<(tail >> 20) { feed(zeros, Z_NO_FLUSH) }
        feed([], Z_FINISH)
        deflateEnd(&stream)
        let header: [UInt8] = [0, 0, 0, UInt8(w), 0, 0, 0, UInt8(h), 8, 2, 0, 0, 0]
        let bomb =
            PNGChunks.signature + PNGChunks.chunk("IHDR", header) + PNGChunks.chunk("IDAT", Array(out[..<produced]))
            + PNGChunks.chunk("IEND", [])
        let checked = try PNGChunks.sanitize(bomb, name: "bomb")
        #expect(checked.bytes.count < bomb.count / 10, "\(checked.bytes.count) of \(bomb.count) bytes kept")
        let image = try ImageDecoder.decode(bytes: bomb, name: "bomb")
        #expect(image.width == w && image.height == h)
        #expect(
            image[3, 2]
                == RGBA8(
                    r: UInt8(truncatingIfNeeded: 9 * 7 + 60), g: UInt8(truncatingIfNeeded: 10 * 7 + 60),
                    b: UInt8(truncatingIfNeeded: 11 * 7 + 60), a: 255))
    }
}
