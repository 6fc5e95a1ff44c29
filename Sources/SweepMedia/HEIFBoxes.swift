/// The few boxes of a HEIF or AVIF file that sweep reads itself, before libheif sees the file:
/// which item is primary, what type each item is, how items refer to one another, their
/// properties, and where their data lie.
///
/// libheif 1.15 has no API for an item's type or a grid's declared size, and it decodes some
/// conformant files unsafely or wrongly; ``HEIFDecoder`` reads these boxes to refuse those
/// files before `heif_decode_image`. Only the file-level `ftyp`, `meta` and `moov` are read,
/// from the bytes already in memory.
///
/// The walk never traps: every read is bounds-checked, a size or count that does not fit ends
/// it with ``Malformed``, and counts are capped where libheif 1.15 caps them (20000 items or
/// child boxes, 32 extents per item), so a file libheif would read is not refused for its size.
package struct HEIFBoxes {
    /// A structure the walk cannot follow; `reason` is a short phrase for the error message.
    package struct Malformed: Error {
        let reason: String
    }

    /// One item from `iinf` (`infe`): its four-character type and whether it is hidden.
    package struct Item {
        let type: String
        let hidden: Bool
    }

    /// One property from `ipco`: its type and where its body lies in the file.
    struct Property {
        let type: String
        let body: Range<Int>
    }

    /// The file's brands (`ftyp`): the major brand first, then the compatible ones.
    private(set) var brands: [String] = []
    /// Whether the file has a file-level `meta` box (the still images) and a `moov` box (tracks).
    private(set) var hasMeta = false
    private(set) var hasMovie = false
    /// The primary item's id (`pitm`), if any.
    package private(set) var primary: UInt32?
    /// Every item described in `iinf`, by id.
    package private(set) var items: [UInt32: Item] = [:]
    private var references: [(type: String, from: UInt32, to: [UInt32])] = []
    private var properties: [Property] = []
    /// Item id → 1-based indices into `properties` (`ipma`; 0 means "none" and is dropped).
    private var associations: [UInt32: [Int]] = [:]
    private var locations: [UInt32: Location] = [:]
    private var idat: Range<Int>?
    private let bytes: [UInt8]

    /// libheif 1.15's own caps (heif_limits.h), and one of ours on referenced ids in all.
    private static let maxChildren = 20000
    private static let maxItems = 20000
    private static let maxExtents = 32
    private static let maxReferencedIDs = 1 << 20

    /// Where an item's data lie (`iloc`): in the file (method 0) or in `idat` (method 1).
    private struct Location {
        let method: Int
        let external: Bool
        let extents: [(offset: Int, length: Int)]
    }

    /// Reads the boxes of `bytes` (a HEIF or AVIF file, possibly truncated after its `meta`).
    ///
    /// - Throws: ``Malformed`` when `ftyp` or `meta` cannot be walked.
    package init(_ bytes: [UInt8]) throws(Malformed) {
        self.bytes = bytes
        var first = true
        try Self.forEachBox(in: bytes, 0..<bytes.count, topLevel: true) { (type, body) throws(Malformed) in
            defer { first = false }
            switch type {
            case "ftyp" where first:
                var c = Cursor(bytes, body)
                brands.append(try c.fourCC())
                try c.skip(4)  // minor version
                while c.remaining >= 4 && brands.count <= Self.maxChildren { brands.append(try c.fourCC()) }
            case "meta" where !hasMeta:
                hasMeta = true
                try readMeta(body)
            case "moov":
                hasMovie = true
            default:
                break
            }
        }
    }

    /// The items `item` refers to as `type` (`dimg`, `auxl`, `pred`, …), in order.
    package func references(_ type: String, from item: UInt32) -> [UInt32] {
        references.filter { $0.type == type && $0.from == item }.flatMap(\.to)
    }

    /// The items that refer to `item` as `type` (the alpha planes of an image, for `auxl`).
    package func referrers(_ type: String, to item: UInt32) -> [UInt32] {
        references.filter { $0.type == type && $0.to.contains(item) }.map(\.from)
    }

    /// The body of `item`'s first property of `type` (`ispe`, `av1C`, …), if associated.
    package func property(_ type: String, of item: UInt32) -> Range<Int>? {
        for index in associations[item] ?? [] where index <= properties.count && properties[index - 1].type == type {
            return properties[index - 1].body
        }
        return nil
    }

    /// `item`'s coded size from its `ispe` property, if it has one.
    package func spatialExtent(of item: UInt32) -> (width: Int, height: Int)? {
        guard let body = property("ispe", of: item) else { return nil }
        var c = Cursor(bytes, body)
        guard (try? c.skip(4)) != nil, let w = try? c.uint(4), let h = try? c.uint(4) else { return nil }
        return (Int(w), Int(h))
    }

    /// Whether `item`'s coded pictures are monochrome (4:0:0), from its `av1C` or `hvcC`;
    /// `false` when neither says so.
    package func isMonochrome(_ item: UInt32) -> Bool {
        // av1C byte 2: tier, high_bitdepth, twelve_bit, monochrome (0x10), subsampling, position.
        if let body = property("av1C", of: item), body.count >= 3 { return bytes[body.lowerBound + 2] & 0x10 != 0 }
        // hvcC byte 16: six reserved bits, then chroma_format_idc (0 is 4:0:0).
        if let body = property("hvcC", of: item), body.count >= 17 { return bytes[body.lowerBound + 16] & 0x03 == 0 }
        return false
    }

    /// Where 4:2:0 chroma samples sit relative to the 2×2 luma samples they cover (the places
    /// H.273 and FFmpeg name; a right-hand siting has no name there).
    package enum ChromaSiting: Sendable {
        /// With the left column, between the rows (MPEG-2's, HEVC's default).
        case left
        /// Between all four.
        case center
        /// With the top-left sample.
        case topLeft
        /// With the top row, between the columns.
        case top
        /// With the bottom row, between the columns.
        case bottom
        /// With the bottom-left sample.
        case bottomLeft

        /// The siting once the picture is turned `quarters` quarter turns anticlockwise (as
        /// `irot` turns it); `nil` where it lands on a right-hand side.
        func turned(_ quarters: Int) -> ChromaSiting? {
            // A quarter turn anticlockwise takes the left column to the bottom row and the top
            // row to the left column.
            var siting: ChromaSiting? = self
            for _ in 0..<(quarters & 3) {
                siting =
                    switch siting {
                    case .left: .bottom
                    case .center: .center
                    case .topLeft: .bottomLeft
                    case .top: .left
                    case .bottom, .bottomLeft, nil: nil  // to the right
                    }
            }
            return siting
        }
    }

    /// Where the chroma samples of `coded`'s 4:2:0 pictures sit once libheif has turned them
    /// as `shown` (the primary image, `coded` itself or what derives from it) says; `nil` for
    /// other layouts, a mirror (`imir`) or a crop (`clap`), or a siting on a right-hand side.
    package func chromaSiting420(_ coded: UInt32, shownAs shown: UInt32) -> ChromaSiting? {
        let items = Set([coded, shown])
        guard !items.contains(where: { property("imir", of: $0) != nil || property("clap", of: $0) != nil }) else { return nil }
        // irot's one byte ends in the angle, in quarter turns anticlockwise.
        let quarters = items.reduce(0) { sum, item in sum + (property("irot", of: item).map { Int(bytes[$0.lowerBound] & 3) } ?? 0) }
        return chromaSiting420(coded)?.turned(quarters)
    }

    /// Where the chroma samples of `item`'s coded pictures sit if they are 4:2:0 (from its
    /// `av1C` or `hvcC`); `nil` for other layouts or when neither box says.
    package func chromaSiting420(_ item: UInt32) -> ChromaSiting? {
        // av1C byte 2 ends in subsampling x (0x08) and y (0x04), then chroma_sample_position:
        // 1 vertical (left), 2 colocated (top-left), 0 unknown, taken as centred, as libavif does.
        if let body = property("av1C", of: item), body.count >= 3 {
            let b = bytes[body.lowerBound + 2]
            guard b & 0x1C == 0x0C else { return nil }
            return [.center, .left, .topLeft, .center][Int(b & 0x03)]
        }
        // hvcC byte 16 ends in chroma_format_idc (1 is 4:2:0). The siting is in the bitstream's
        // VUI, whose default is left (H.273's type 0), as FFmpeg's HEVC decoder takes it.
        if let body = property("hvcC", of: item), body.count >= 17 { return bytes[body.lowerBound + 16] & 0x03 == 1 ? .left : nil }
        return nil
    }

    /// Whether `item` has an entry in `iloc`, even one without extents. Items without a
    /// body (an `iden`) may have none.
    package func isLocated(_ item: UInt32) -> Bool { locations[item] != nil }

    /// The first `count` bytes of `item`'s data (`iloc`), or `nil` when they are not all in
    /// this file (another construction method, an external file, past the end).
    package func data(of item: UInt32, prefix count: Int) -> [UInt8]? {
        guard let location = locations[item], !location.external else { return nil }
        let source: Range<Int>
        switch location.method {
        case 0: source = 0..<bytes.count
        case 1:
            guard let idat else { return nil }
            source = idat
        default: return nil
        }
        var out: [UInt8] = []
        for extent in location.extents where out.count < count {
            // A length of 0 means "to the end of the source".
            let (start, overflow) = source.lowerBound.addingReportingOverflow(extent.offset)
            guard !overflow, start <= source.upperBound else { return nil }
            let length = extent.length == 0 ? source.upperBound - start : extent.length
            guard length <= source.upperBound - start else { return nil }
            out += bytes[start..<(start + min(length, count - out.count))]
        }
        return out.count == count ? out : nil
    }

    // MARK: - The walk

    /// Reads `meta`'s children: `pitm`, `iinf`, `iref`, `iprp`, `iloc`, `idat`.
    private mutating func readMeta(_ body: Range<Int>) throws(Malformed) {
        var c = Cursor(bytes, body)
        try c.skip(4)  // a full box: version and flags
        try Self.forEachBox(in: bytes, c.rest) { (type, body) throws(Malformed) in
            var c = Cursor(bytes, body)
            switch type {
            case "pitm" where primary == nil:
                let version = try c.uint(1)
                try c.skip(3)
                primary = UInt32(try c.uint(version == 0 ? 2 : 4))
            case "iinf" where items.isEmpty:
                let version = try c.uint(1)
                try c.skip(3)
                try c.skip(version == 0 ? 2 : 4)  // entry count: the infe boxes themselves are counted
                try Self.forEachBox(in: bytes, c.rest) { (type, body) throws(Malformed) in
                    guard type == "infe" else { return }
                    try readItem(body)
                }
            case "iref" where references.isEmpty:
                try readReferences(body)
            case "iprp" where properties.isEmpty:
                try Self.forEachBox(in: bytes, body) { (type, body) throws(Malformed) in
                    if type == "ipco" && properties.isEmpty {
                        try Self.forEachBox(in: bytes, body) { (type, body) throws(Malformed) in
                            properties.append(Property(type: type, body: body))
                        }
                    } else if type == "ipma" {
                        try readAssociations(body)
                    }
                }
            case "iloc" where locations.isEmpty:
                try readLocations(body)
            case "idat" where idat == nil:
                idat = body
            default:
                break
            }
        }
    }

    /// One `infe`: versions 2 and 3 name an item type; 0 and 1 describe non-image items.
    private mutating func readItem(_ body: Range<Int>) throws(Malformed) {
        var c = Cursor(bytes, body)
        let version = try c.uint(1)
        let flags = try c.uint(3)
        guard version >= 2 else { return }
        let id = UInt32(try c.uint(version == 2 ? 2 : 4))
        try c.skip(2)  // protection index
        let type = try c.fourCC()
        guard items.count < Self.maxItems else { throw Malformed(reason: "more than \(Self.maxItems) items") }
        if items[id] == nil { items[id] = Item(type: type, hidden: flags & 1 != 0) }
    }

    private mutating func readReferences(_ body: Range<Int>) throws(Malformed) {
        var c = Cursor(bytes, body)
        let size = try c.uint(1) == 0 ? 2 : 4
        try c.skip(3)
        var total = 0
        try Self.forEachBox(in: bytes, c.rest) { (type, body) throws(Malformed) in
            var c = Cursor(bytes, body)
            let from = UInt32(try c.uint(size))
            let count = Int(try c.uint(2))
            total += count
            guard total <= Self.maxReferencedIDs else { throw Malformed(reason: "too many item references") }
            var to: [UInt32] = []
            for _ in 0..<count { to.append(UInt32(try c.uint(size))) }
            references.append((type, from, to))
        }
    }

    private mutating func readAssociations(_ body: Range<Int>) throws(Malformed) {
        var c = Cursor(bytes, body)
        let version = try c.uint(1)
        let wide = try c.uint(3) & 1 != 0
        let entries = try c.uint(4)
        guard entries <= Self.maxItems else { throw Malformed(reason: "more than \(Self.maxItems) items") }
        for _ in 0..<entries {
            let id = UInt32(try c.uint(version < 1 ? 2 : 4))
            let count = try c.uint(1)
            var indices: [Int] = []
            for _ in 0..<count {
                // The top bit says "essential"; the rest is the 1-based index into ipco.
                let index = Int(try c.uint(wide ? 2 : 1)) & (wide ? 0x7FFF : 0x7F)
                if index > 0 { indices.append(index) }
            }
            associations[id, default: []] += indices
        }
    }

    private mutating func readLocations(_ body: Range<Int>) throws(Malformed) {
        var c = Cursor(bytes, body)
        let version = try c.uint(1)
        try c.skip(3)
        let sizes = try c.uint(2)
        let offsetSize = Int(sizes >> 12), lengthSize = Int(sizes >> 8 & 0xF), baseSize = Int(sizes >> 4 & 0xF)
        let indexSize = version > 1 ? Int(sizes & 0xF) : 0
        guard [offsetSize, lengthSize, baseSize, indexSize].allSatisfy({ [0, 4, 8].contains($0) }) else {
            throw Malformed(reason: "the item locations use an unknown field size")
        }
        let count = try c.uint(version < 2 ? 2 : 4)
        guard count <= Self.maxItems else { throw Malformed(reason: "more than \(Self.maxItems) items") }
        for _ in 0..<count {
            let id = UInt32(try c.uint(version < 2 ? 2 : 4))
            let method = version >= 1 ? Int(try c.uint(2) & 0xF) : 0
            let external = try c.uint(2) != 0  // data_reference_index: 0 is this file
            let base = try c.int(baseSize)
            let extentCount = try c.uint(2)
            guard extentCount <= Self.maxExtents else { throw Malformed(reason: "an item has more than \(Self.maxExtents) extents") }
            var extents: [(offset: Int, length: Int)] = []
            for _ in 0..<extentCount {
                try c.skip(indexSize)
                let (offset, overflow) = base.addingReportingOverflow(try c.int(offsetSize))
                guard !overflow else { throw Malformed(reason: "an item's offset is out of range") }
                extents.append((offset, try c.int(lengthSize)))
            }
            if locations[id] == nil { locations[id] = Location(method: method, external: external, extents: extents) }
        }
    }

    /// Calls `body` with each box directly inside `range`: its type and its body.
    ///
    /// A size of 0 runs to the end of `range`; 1 is followed by a 64-bit size. At the top
    /// level a box running past the end is cut there (a truncated `mdat` leaves the `meta`
    /// before it readable); inside another box it is malformed.
    static func forEachBox(
        in bytes: [UInt8], _ range: Range<Int>, topLevel: Bool = false,
        _ body: (String, Range<Int>) throws(Malformed) -> Void
    ) throws(Malformed) {
        var c = Cursor(bytes, range)
        var count = 0
        while c.remaining >= 8 {
            count += 1
            guard count <= maxChildren else { throw Malformed(reason: "more than \(maxChildren) boxes in one") }
            let start = c.at
            var size = try c.uint(4)
            let type = try c.fourCC()
            if size == 1 { size = try c.uint(8) }
            let header = c.at - start
            let available = range.upperBound - start
            let length: Int
            if size == 0 {
                length = available
            } else if size < header {
                throw Malformed(reason: "a '\(type)' box has an impossible size")
            } else if size > UInt64(available) {
                guard topLevel else { throw Malformed(reason: "a '\(type)' box runs past its container") }
                length = available
            } else {
                length = Int(size)
            }
            try body(type, (start + header)..<(start + length))
            c.at = start + length
        }
    }

    /// A bounds-checked big-endian reader over `range` of `bytes`.
    private struct Cursor {
        let bytes: [UInt8]
        var at: Int
        let end: Int

        init(_ bytes: [UInt8], _ range: Range<Int>) {
            self.bytes = bytes
            at = range.lowerBound
            end = range.upperBound
        }

        var remaining: Int { end - at }
        var rest: Range<Int> { at..<end }

        /// The next `n` bytes (0 to 8) as an unsigned number.
        mutating func uint(_ n: Int) throws(Malformed) -> UInt64 {
            guard n >= 0, n <= 8, n <= remaining else { throw Malformed(reason: "a box ends early") }
            var v: UInt64 = 0
            for i in at..<(at + n) { v = v << 8 | UInt64(bytes[i]) }
            at += n
            return v
        }

        /// The next `n` bytes as an offset or length, which must fit an `Int`.
        mutating func int(_ n: Int) throws(Malformed) -> Int {
            let v = try uint(n)
            guard v <= UInt64(Int.max) else { throw Malformed(reason: "an offset is out of range") }
            return Int(v)
        }

        mutating func fourCC() throws(Malformed) -> String {
            let v = try uint(4)
            return String((0..<4).map { Character(Unicode.Scalar(UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)))) })
        }

        mutating func skip(_ n: Int) throws(Malformed) {
            guard n >= 0, n <= remaining else { throw Malformed(reason: "a box ends early") }
            at += n
        }
    }
}
