/// The pixel dimensions an image file declares, read from its header without decoding,
/// so that a decompression bomb is named as one before any decoder runs. Formats it does
/// not know return `nil`; the decoder's own pixel cap still guards them.
package enum ImageHeader {
    package static func dimensions(_ b: [UInt8]) -> (width: Int, height: Int)? {
        func be16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
        func be32(_ i: Int) -> Int { be16(i) << 16 | be16(i + 2) }
        func le16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func le24(_ i: Int) -> Int { le16(i) | Int(b[i + 2]) << 16 }
        func le32(_ i: Int) -> Int { le16(i) | le16(i + 2) << 16 }
        if b.count >= 24, b[0] == 0x89, b[1] == 0x50, b[2] == 0x4E, b[3] == 0x47 {  // PNG IHDR
            return (be32(16), be32(20))
        }
        if b.count >= 10, b[0] == 0x47, b[1] == 0x49, b[2] == 0x46 {  // GIF screen
            return (le16(6), le16(8))
        }
        if b.count >= 26, b[0] == 0x42, b[1] == 0x4D {  // BMP
            return (abs(Int(Int32(truncatingIfNeeded: le32(18)))), abs(Int(Int32(truncatingIfNeeded: le32(22)))))
        }
        if b.count >= 30, Array(b[0..<4]) == Array("RIFF".utf8), Array(b[8..<12]) == Array("WEBP".utf8) {
            switch String(decoding: b[12..<16], as: UTF8.self) {
            case "VP8X": return (le24(24) + 1, le24(27) + 1)
            case "VP8L": return ((le16(21) & 0x3FFF) + 1, ((le32(21) >> 14) & 0x3FFF) + 1)
            case "VP8 ": return (le16(26) & 0x3FFF, le16(28) & 0x3FFF)
            default: return nil
            }
        }
        if b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 {  // JPEG: first SOFn
            var i = 2
            while i + 9 < b.count {
                guard b[i] == 0xFF else { return nil }
                let marker = b[i + 1]
                if marker == 0xFF { i += 1; continue }
                if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                    return (be16(i + 7), be16(i + 5))
                }
                if marker == 0xD8 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                i += 2 + be16(i + 2)
            }
        }
        return nil
    }
}
