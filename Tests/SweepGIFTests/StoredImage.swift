import Foundation

/// One image block of a GIF file as stored: its rectangle, whether it has a local colour
/// table, and its LZW minimum code size.
struct StoredImage {
    var x: Int, y: Int, width: Int, height: Int
    var hasLocalTable: Bool
    var minCodeSize: Int
    /// Entries of the local table (0 without one).
    var tableEntries = 0
}

/// The image blocks of a GIF file, read from its bytes (independently of giflib).
func storedImages(_ path: String) throws -> [StoredImage] {
    let d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var i = 13
    if d[10] & 0x80 != 0 { i += 3 * (2 << Int(d[10] & 7)) }
    var out: [StoredImage] = []
    func skipSubBlocks() { while d[i] != 0 { i += Int(d[i]) + 1 }; i += 1 }
    while i < d.count {
        switch d[i] {
        case 0x21:
            i += 2
            skipSubBlocks()
        case 0x2C:
            let le = { (k: Int) in Int(d[i + k]) | Int(d[i + k + 1]) << 8 }
            let flags = d[i + 9]
            var image = StoredImage(x: le(1), y: le(3), width: le(5), height: le(7), hasLocalTable: flags & 0x80 != 0, minCodeSize: 0)
            i += 10
            if image.hasLocalTable {
                image.tableEntries = 2 << Int(flags & 7)
                i += 3 * image.tableEntries
            }
            image.minCodeSize = Int(d[i])
            i += 1
            skipSubBlocks()
            out.append(image)
        default:
            return out
        }
    }
    return out
}
