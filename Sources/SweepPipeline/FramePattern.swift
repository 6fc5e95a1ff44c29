import Foundation

/// The names a PNG sequence's pattern (`frames/f-%04d.png`) produces: its file name's text
/// around one `%d` conversion (zero- or space-padded to a width), for frames 0 up to
/// ``RenderLimits/maxFrames``.
///
/// Two spellings can produce the same names (`g-%d.png` and `g-%01d.png`), and two patterns
/// can share some (`f%d.png` writes `f12.png`, as `f1%d.png` does), so outputs are compared
/// by the names they produce, never by how they are spelled.
package struct FramePattern: Sendable, Hashable {
    let prefix: [UInt8]
    let suffix: [UInt8]
    let width: Int
    let zeroPadded: Bool

    /// The pattern in `path`, or nil unless its file name holds exactly one `%d` (optionally
    /// `%0Nd` or `%Nd`, N up to two digits), `%%` for a literal `%` and no other `%`, and its
    /// folder holds none.
    package init?(_ path: String) {
        let url = URL(fileURLWithPath: path)
        guard !url.deletingLastPathComponent().path.contains("%") else { return nil }
        let name = Array(url.lastPathComponent.utf8)
        var before: [UInt8] = [], after: [UInt8] = []
        var conversion: (width: Int, zero: Bool)?
        var i = 0
        while i < name.count {
            let c = name[i]
            i += 1
            guard c == UInt8(ascii: "%") else {
                if conversion == nil { before.append(c) } else { after.append(c) }
                continue
            }
            if i < name.count, name[i] == UInt8(ascii: "%") {
                if conversion == nil { before.append(c) } else { after.append(c) }
                i += 1
                continue
            }
            guard conversion == nil else { return nil }
            var zero = false
            if i < name.count, name[i] == UInt8(ascii: "0") {
                zero = true
                i += 1
            }
            var width = 0, digits = 0
            while i < name.count, digits < 2, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(name[i]) {
                width = width * 10 + Int(name[i] - UInt8(ascii: "0"))
                digits += 1
                i += 1
            }
            guard i < name.count, name[i] == UInt8(ascii: "d") else { return nil }
            i += 1
            conversion = (width, zero)
        }
        guard let conversion else { return nil }
        (prefix, suffix, width, zeroPadded) = (before, after, conversion.width, conversion.zero)
    }

    /// The file name of frame `index`.
    package func name(_ index: Int) -> String { String(decoding: nameBytes(index), as: UTF8.self) }

    func nameBytes(_ index: Int) -> [UInt8] {
        let digits = Array(String(index).utf8)
        let pad = [UInt8](repeating: UInt8(ascii: zeroPadded ? "0" : " "), count: max(0, width - digits.count))
        return prefix + pad + digits + suffix
    }

    /// The frame whose file name is `name`, if the pattern produces it.
    package func index(of name: String) -> Int? { index(ofBytes: Array(name.utf8)) }

    func index(ofBytes name: [UInt8]) -> Int? {
        guard name.count > prefix.count + suffix.count, name.starts(with: prefix), name.reversed().starts(with: suffix.reversed())
        else { return nil }
        let field = name[prefix.count..<(name.count - suffix.count)]
        // At most six digits, so the value fits and stays below the frame limit's order.
        let digits = field.drop(while: { $0 == UInt8(ascii: " ") || ($0 == UInt8(ascii: "0") && zeroPadded) })
        guard digits.count <= 6, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard value < RenderLimits.maxFrames, nameBytes(value) == Array(name) else { return nil }
        return value
    }

    /// Whether some frame name of this pattern is also one of `other`'s (the folders are the
    /// caller's to compare).
    package func overlaps(_ other: FramePattern) -> Bool {
        guard mayOverlap(other) else { return false }
        return (0..<RenderLimits.maxFrames).contains { other.index(ofBytes: nameBytes($0)) != nil }
    }

    /// A quick test that rules most pairs out: a shared name starts with the longer prefix,
    /// so the shorter one begins it, and the first character past the shorter one is the
    /// first of its frame number (a digit or a padding space); the same at the end.
    package func mayOverlap(_ other: FramePattern) -> Bool {
        func fieldByte(_ c: UInt8) -> Bool { c == UInt8(ascii: " ") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) }
        let (short, long) = prefix.count <= other.prefix.count ? (prefix, other.prefix) : (other.prefix, prefix)
        guard long.starts(with: short), long.count == short.count || fieldByte(long[short.count]) else { return false }
        let (shortEnd, longEnd) = suffix.count <= other.suffix.count ? (suffix, other.suffix) : (other.suffix, suffix)
        guard longEnd.reversed().starts(with: shortEnd.reversed()) else { return false }
        return longEnd.count == shortEnd.count || fieldByte(longEnd[longEnd.count - shortEnd.count - 1])
    }
}
