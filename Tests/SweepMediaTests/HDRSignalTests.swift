import Foundation
import SweepImaging
import Testing

@testable import SweepMedia

/// Files are built as their formats lay them out (PNG chunks with CRCs, JPEG segments, RIFF
/// chunks, ICC tag tables); sweep's own encoders write the pixels, so the pictures also decode.
@Suite("HDR signals a browser honours: which stills the studio previews from server frames")
struct HDRSignalTests {
    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }

    /// A PNG of sweep's encoder with `chunks` put after its header.
    static func png(_ chunks: [(String, [UInt8])]) throws -> [UInt8] {
        let path = NSTemporaryDirectory() + "hdr-signal-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try StillEncoder.write(RGBAImage(width: 16, height: 8, fill: RGBA8(r: 200, g: 90, b: 30)), to: path, format: .png)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let afterHeader = 8 + 12 + 13
        bytes.insert(contentsOf: chunks.flatMap { PNGChunks.chunk($0.0, $0.1) }, at: afterHeader)
        return bytes
    }

    static func jpeg(_ segments: [(UInt8, [UInt8])]) throws -> [UInt8] {
        let path = NSTemporaryDirectory() + "hdr-signal-\(UUID().uuidString).jpg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try StillEncoder.write(RGBAImage(width: 16, height: 8, fill: RGBA8(r: 200, g: 90, b: 30)), to: path, format: .jpeg)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var added: [UInt8] = []
        for (marker, body) in segments {
            let length = body.count + 2
            added += [0xFF, marker, UInt8(length >> 8), UInt8(length & 255)] + body
        }
        bytes.insert(contentsOf: added, at: 2)
        return bytes
    }

    /// An ICC profile: a 128-byte header, then the tag table and the tags' data.
    static func profile(_ tags: [(String, [UInt8])]) -> [UInt8] {
        var table = be32(tags.count), data: [UInt8] = []
        let start = 128 + 4 + 12 * tags.count
        for (signature, body) in tags {
            table += Array(signature.utf8) + be32(start + data.count) + be32(body.count)
            data += body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
        }
        var header = be32(start + data.count) + [UInt8](repeating: 0, count: 124)
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        return header + table + data
    }

    /// A `cicp` tag (ICC v4.4): primaries, transfer, matrix, full range.
    static func cicp(_ primaries: UInt8, _ transfer: UInt8) -> (String, [UInt8]) {
        ("cicp", Array("cicp".utf8) + [0, 0, 0, 0, primaries, transfer, 0, 1])
    }

    /// An ICC v2 `desc` tag.
    static func desc(_ text: String) -> (String, [UInt8]) {
        ("desc", Array("desc".utf8) + [0, 0, 0, 0] + be32(text.utf8.count + 1) + Array(text.utf8) + [0])
    }

    /// An ICC v4 `desc` tag (`mluc`, one record, UTF-16).
    static func mluc(_ text: String) -> (String, [UInt8]) {
        let units = Array(text.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 255)] }
        return ("desc", Array("mluc".utf8) + [0, 0, 0, 0] + be32(1) + be32(12) + Array("enUS".utf8) + be32(units.count) + be32(28) + units)
    }

    /// An `iCCP` chunk: the profile as a zlib stream of one stored block (RFC 1950/1951).
    static func iccp(_ profile: [UInt8]) -> (String, [UInt8]) {
        var a = 1, b = 0
        for byte in profile {
            a = (a + Int(byte)) % 65521
            b = (b + a) % 65521
        }
        let n = profile.count
        let stored: [UInt8] = [0x78, 0x01, 0x01, UInt8(n & 255), UInt8(n >> 8), UInt8(~n & 255), UInt8(~n >> 8 & 255)]
        return ("iCCP", Array("hdr".utf8) + [0, 0] + stored + profile + be32(b << 16 | a))
    }

    @Test("a PNG's cICP chunk: PQ and HLG transfers, wide primaries; sRGB's is no difference")
    func pngCICP() throws {
        #expect(HDRSignal.find(in: try Self.png([("cICP", [9, 16, 0, 1])])) == "an HDR transfer (PQ) in its cICP chunk")
        #expect(HDRSignal.find(in: try Self.png([("cICP", [9, 18, 0, 1])])) == "an HDR transfer (HLG) in its cICP chunk")
        #expect(HDRSignal.find(in: try Self.png([("cICP", [12, 13, 0, 1])])) == "wide-gamut primaries in its cICP chunk")
        #expect(HDRSignal.find(in: try Self.png([("cICP", [1, 13, 0, 1])])) == nil)
        #expect(HDRSignal.find(in: try Self.png([])) == nil)
        // Only the head is read: a chunk after the pixels is no signal (browsers ignore it too).
        var late = try Self.png([])
        late.insert(contentsOf: PNGChunks.chunk("cICP", [9, 16, 0, 1]), at: late.count - 12)
        #expect(HDRSignal.find(in: late) == nil)
        // The picture still decodes: the chunk is what differs, not the file.
        #expect(try ImageDecoder.decode(bytes: try Self.png([("cICP", [9, 16, 0, 1])]), name: "pq.png").width == 16)
    }

    @Test("an ICC profile in a PNG, a JPEG or a WebP: its cicp tag or an HDR description")
    func profiles() throws {
        let pq = Self.profile([Self.desc("Display"), Self.cicp(9, 16)])
        #expect(HDRSignal.find(in: try Self.png([Self.iccp(pq)])) == "an HDR transfer (PQ) in its colour profile")
        #expect(HDRSignal.find(in: try Self.png([Self.iccp(Self.profile([Self.mluc("Rec. ITU-R BT.2100 HLG")]))])) != nil)
        #expect(HDRSignal.find(in: try Self.png([Self.iccp(Self.profile([Self.desc("SMPTE ST 2084 (PQ)")]))])) != nil)
        // SDR profiles, wide or not: sweep converts through them as the browser does.
        for sdr in [Self.profile([Self.mluc("Display P3")]), Self.profile([Self.desc("ITU-R BT.2020"), Self.cicp(9, 1)])] {
            #expect(HDRSignal.find(in: try Self.png([Self.iccp(sdr)])) == nil)
        }
        // JPEG: the profile split over two APP2 segments, in order of their numbers.
        let marker = Array("ICC_PROFILE\0".utf8)
        let cut = 140
        let jpeg = try Self.jpeg([(0xE2, marker + [2, 2] + pq[cut...]), (0xE2, marker + [1, 2] + pq[..<cut])])
        #expect(HDRSignal.find(in: jpeg) == "an HDR transfer (PQ) in its colour profile")
        #expect(try ImageDecoder.decode(bytes: jpeg, name: "pq.jpg").width == 16)
        // WebP: an extended file whose ICCP chunk comes before the picture.
        let lossy = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("webp-lossy.webp"))))
        let vp8x = Array("VP8X".utf8) + [10, 0, 0, 0] + [0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let icc = Array("ICCP".utf8) + [UInt8(pq.count & 255), UInt8(pq.count >> 8), 0, 0] + pq
        let webp = Array(lossy[..<12]) + vp8x + icc + Array(lossy[12...])
        #expect(HDRSignal.find(in: webp)?.contains("PQ") == true)
    }

    @Test("a JPEG's HDR gain map: Ultra HDR's hdrgm XMP, ISO 21496-1, Apple's HDRGainMap")
    func gainMaps() throws {
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
        let ultra = #"<x:xmpmeta><rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0"/></x:xmpmeta>"#
        #expect(HDRSignal.find(in: try Self.jpeg([(0xE1, xmp + Array(ultra.utf8))])) == "an HDR gain map")
        #expect(HDRSignal.find(in: try Self.jpeg([(0xE2, Array("urn:iso:std:iso:ts:21496:-1\0".utf8) + [0, 0])])) == "an HDR gain map")
        #expect(HDRSignal.find(in: try Self.jpeg([(0xE1, xmp + Array("<apple:HDRGainMapVersion>".utf8))])) == "an HDR gain map")
        #expect(HDRSignal.find(in: try Self.jpeg([(0xE1, xmp + Array("<x:xmpmeta/>".utf8))])) == nil)
    }

    @Test("the committed SDR fixtures, with and without profiles, are no difference")
    func fixtures() throws {
        for name in [
            "icc-adobergb.jpg", "icc-adobergb.png", "jpeg-baseline.jpg", "jpeg-progressive.jpg", "png-rgb16.png", "png-rgba.png",
            "webp-lossy.webp", "webp-alpha.webp", "orient-6.jpg",
        ] {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture(name))))
            #expect(HDRSignal.find(in: bytes) == nil, "\(name)")
        }
    }
}
