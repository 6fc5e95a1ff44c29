/// GIF's LZW coder (variable-width codes up to 12 bits), with one change from giflib's:
/// the dictionary may be reset before it is full.
///
/// A dictionary grown on one part of a photo (sky) fits the next part (texture) poorly while
/// its codes keep growing wider. With ``Policy/whereCheapest`` the coder parses greedily
/// (longest match) after each reset and, every 16 new entries, notes the bits per pixel the
/// stretch would cost if it ended there with a clear code; the stretch ends at the best such
/// point. That choice looks only at the stretch itself, so it wins on some pictures and
/// loses on others: callers code both ways and keep the smaller. The stream stays plain
/// GIF: a clear code may appear anywhere.
struct LZWEncoder {
    /// When the dictionary is reset.
    enum Policy {
        /// Only when full, as giflib does.
        case whenFull
        /// Where the bits per pixel of the stretch so far are lowest.
        case whereCheapest
    }

    /// child[code << 8 | symbol]: the code for string(code) + symbol, or -1.
    private var child = [Int16](repeating: -1, count: 4096 * 256)
    /// Slots set since the last reset, so that a reset clears only those.
    private var touched: [Int32] = []
    /// Codes of the current stretch, written once its end is chosen.
    private var codes: [UInt16] = []
    /// How often (in new entries) a stretch may end.
    private static let checkpoint = 16
    /// Fewest entries before a stretch may end (shorter ones never pay for their start-up).
    private static let shortest = 256

    init() {
        touched.reserveCapacity(4096)
        codes.reserveCapacity(4096)
    }

    /// The LZW code stream for `data` (every value below `1 << minCodeSize`), as GIF sub-blocks
    /// (each a length byte and up to 255 bytes), without the leading code-size byte and the
    /// terminating empty block.
    mutating func encode(_ data: [UInt8], minCodeSize: Int, policy: Policy) -> [UInt8] {
        precondition((2...8).contains(minCodeSize))
        var bits = BitPacker()
        let clear = 1 << minCodeSize
        let mask = UInt8(truncatingIfNeeded: (1 << minCodeSize) - 1)
        data.withUnsafeBufferPointer { d in
            let n = d.count
            var start = 0
            var width = minCodeSize + 1
            bits.put(clear, width: width)
            while start < n {
                let end = parseStretch(d, from: start, minCodeSize: minCodeSize, mask: mask, policy: policy)
                // Write the chosen codes, widening exactly as the decoder will.
                var next = clear + 2
                width = minCodeSize + 1
                for code in codes {
                    bits.put(Int(code), width: width)
                    if next < 4096 {
                        next += 1
                        if next > 1 << width && width < 12 { width += 1 }
                    }
                }
                start = end
                if start < n {
                    bits.put(clear, width: width)
                }
            }
            bits.put(clear + 1, width: width)  // end of information
        }
        return bits.subBlocks()
    }

    /// Parses greedily from `start` with a fresh dictionary, keeps in `codes` the codes of the
    /// cheapest stretch (in bits per pixel, counting the clear code that ends it) and returns
    /// where that stretch ends.
    private mutating func parseStretch(
        _ d: UnsafeBufferPointer<UInt8>, from start: Int, minCodeSize: Int,
        mask: UInt8, policy: Policy
    ) -> Int {
        for slot in touched { child[Int(slot)] = -1 }
        touched.removeAll(keepingCapacity: true)
        codes.removeAll(keepingCapacity: true)
        let n = d.count
        let clear = 1 << minCodeSize
        var next = clear + 2
        var width = minCodeSize + 1
        var bits = 0
        var best: (rate: Double, end: Int, count: Int)?
        var j = start
        return child.withUnsafeMutableBufferPointer { table in
            while j < n {
                var code = Int(d[j] & mask)
                j += 1
                while j < n {
                    let c = table[code << 8 | Int(d[j] & mask)]
                    if c < 0 { break }
                    code = Int(c)
                    j += 1
                }
                codes.append(UInt16(code))
                bits += width
                if next < 4096 {
                    if j < n {
                        let slot = code << 8 | Int(d[j] & mask)
                        table[slot] = Int16(next)
                        touched.append(Int32(slot))
                    }
                    next += 1
                    if next > 1 << width && width < 12 { width += 1 }
                }
                guard j < n else { break }
                let entries = next - clear - 2
                if (policy == .whereCheapest || next == 4096) && entries >= Self.shortest
                    && (entries % Self.checkpoint == 0 || next == 4096)
                {
                    let rate = Double(bits + width) / Double(j - start)
                    if rate < best?.rate ?? .infinity { best = (rate, j, codes.count) }
                }
                if next == 4096 { break }  // full: the stretch must end by now
            }
            if j >= n, Double(bits) / Double(n - start) <= best?.rate ?? .infinity { return n }
            guard let best else { return j }
            codes.removeSubrange(best.count...)
            return best.end
        }
    }
}

/// Packs codes least-significant bit first, as GIF wants, into bytes.
private struct BitPacker {
    private var bytes: [UInt8] = []
    private var accumulator: UInt32 = 0
    private var count = 0

    mutating func put(_ code: Int, width: Int) {
        accumulator |= UInt32(code) << UInt32(count)
        count += width
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator >>= 8
            count -= 8
        }
    }

    /// The bytes so far (the last one padded with zero bits) cut into GIF sub-blocks.
    mutating func subBlocks() -> [UInt8] {
        if count > 0 {
            bytes.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator = 0
            count = 0
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 255 + 1)
        var i = 0
        while i < bytes.count {
            let len = min(255, bytes.count - i)
            out.append(UInt8(len))
            out += bytes[i..<(i + len)]
            i += len
        }
        return out
    }
}
