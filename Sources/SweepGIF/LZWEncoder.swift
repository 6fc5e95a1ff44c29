/// GIF's LZW coder (variable-width codes up to 12 bits), with one change from giflib's:
/// the dictionary may be reset before it is full.
///
/// A dictionary grown on one part of a photo (sky) fits the next part (texture) poorly while
/// its codes keep growing wider. With ``Policy/whereCheapest`` the coder parses greedily
/// (longest match) after each reset and, every 16 new entries, notes the bits per pixel the
/// stretch would cost if it ended there with a clear code; the stretch ends at the best such
/// point, searched for until ``patience`` codes pass without a better one. That choice
/// looks only at the stretch itself, so it wins on some pictures and loses on others:
/// callers code both ways and keep the smaller. The stream stays plain GIF: a clear code may
/// appear anywhere.
///
/// Given an ``LZWLatitude`` the coder is lossy: from each string it starts, it searches the
/// dictionary tree for the longest string whose every pixel is within its own budget of what
/// the pixel should show, and within it of that plus the error earlier substitutions left
/// (carried forward, so a too-light pixel is followed by a darker choice). Of equally long
/// strings it takes the one of least error, as gifsicle does. See ``LZWTree``.
///
/// Lossy, it also looks one string ahead (flexible parsing): the longest string need not
/// leave the best start for the next one. Each of the ``lookahead`` lengths just below the
/// longest (its least wrong string there) is tried with the longest string that would follow
/// it, and the shorter one is taken when the two together reach further for no more error.
/// A shorter string whose next entry the dictionary already holds is skipped: the decoder
/// would add that entry again, a code spent on nothing (why lookahead gains nothing when
/// coding exactly, where every shorter string is such a prefix).
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
    /// The dictionary as a tree, for the lossy search (allocated once, reused).
    private let tree = LZWTree()
    /// How many lengths below the longest string the lossy coder tries (see the type's doc).
    /// 0 parses greedily. On photos at 60, 8 codes within 0.3 % of 16 and 64, and 2 loses
    /// 0.5–1 % against 8. Each length tried may cost a search: up to 9 per string, which a look
    /// animation that changes every pixel feels, about twice the greedy coder's time at 60
    /// (docs/decisions/gif-encoder.md).
    var lookahead = 8
    /// Whether the coder reuses the next string's search that looking ahead made (the same
    /// result as searching again, only faster; off only to test exactly that).
    var reusesLookahead = true
    /// Whether a search skips branches too short to matter once its inexact steps are spent
    /// (see ``LZWTree``; the same result as walking them, only faster; off only to test that).
    var skipsSpentBranches = true
    /// Nodes the lossy search has visited so far (how much work skipping saves).
    var searchSteps: Int { tree.steps }
    /// How often (in new entries) a stretch may end.
    private static let checkpoint = 16
    /// Fewest entries before a stretch may end (shorter ones never pay for their start-up).
    private static let shortest = 256
    /// Codes parsed past a stretch's best end before the search for a better one gives up.
    /// Parsing on to a full dictionary would cost 16 times the pixels on a dithered exact
    /// picture (each stretch ends at its first possible end, then is parsed again from
    /// there), and ending sooner makes files 0.2 % smaller overall
    /// (docs/decisions/gif-encoder.md).
    private static let patience = 256

    init() {
        touched.reserveCapacity(4096)
        codes.reserveCapacity(4096)
    }

    /// The LZW code stream for `data` (every value below `1 << minCodeSize`), as GIF sub-blocks
    /// (each a length byte and up to 255 bytes), without the leading code-size byte and the
    /// terminating empty block.
    mutating func encode(_ data: [UInt8], minCodeSize: Int, policy: Policy) -> [UInt8] {
        var symbols = data
        return encode(&symbols, minCodeSize: minCodeSize, policy: policy, latitude: nil)
    }

    /// Codes `symbols` like ``encode(_:minCodeSize:policy:)``; with a `latitude`, lossily,
    /// leaving in `symbols` what a decoder will read (each within its pixel's budget).
    mutating func encode(_ symbols: inout [UInt8], minCodeSize: Int, policy: Policy, latitude: LZWLatitude?) -> [UInt8] {
        precondition((2...8).contains(minCodeSize))
        // A symbol the code size cannot hold would be cut to its low bits: another colour.
        assert(symbols.allSatisfy { Int($0) < 1 << minCodeSize }, "a symbol exceeds the code size")
        precondition(latitude.map { $0.target.count == symbols.count && $0.budget.count == symbols.count } ?? true)
        let original = latitude == nil ? [] : symbols
        tree.skipsSpent = skipsSpentBranches
        var bits = BitPacker()
        let clear = 1 << minCodeSize
        let mask = UInt8(truncatingIfNeeded: (1 << minCodeSize) - 1)
        symbols.withUnsafeMutableBufferPointer { d in
            let n = d.count
            var start = 0
            var width = minCodeSize + 1
            bits.put(clear, width: width)
            while start < n {
                let end = parseStretch(d, from: start, minCodeSize: minCodeSize, mask: mask, policy: policy, latitude: latitude)
                // Pixels parsed past the chosen end are parsed again from their own symbols.
                if latitude != nil, let j = parsedTo, j > end { for k in end..<j { d[k] = original[k] } }
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
        _ d: UnsafeMutableBufferPointer<UInt8>, from start: Int, minCodeSize: Int,
        mask: UInt8, policy: Policy, latitude: LZWLatitude?
    ) -> Int {
        for slot in touched { child[Int(slot)] = -1 }
        if latitude != nil { tree.reset() }
        touched.removeAll(keepingCapacity: true)
        codes.removeAll(keepingCapacity: true)
        let n = d.count
        let clear = 1 << minCodeSize
        var next = clear + 2
        var width = minCodeSize + 1
        var bits = 0
        var best: (rate: Double, end: Int, count: Int)?
        var j = start
        var carry = SIMD4<Float>(repeating: 0)
        defer { parsedTo = j }
        let tree = tree
        let window = lookahead
        let reuses = reusesLookahead
        // The next string's search, when looking ahead already made it (see `lookAhead`); kept
        // only until that string starts, the next time round.
        var ahead: (string: LZWTree.Found, error: Float)?
        return child.withUnsafeMutableBufferPointer { table in
            while j < n {
                var code = Int(d[j] & mask)
                j += 1
                if let latitude {
                    var found: LZWTree.Found
                    if let ahead {
                        // Searched while looking ahead; the one entry added since cannot be
                        // met (see where `ahead` is kept).
                        found = ahead.string
                        tree.lastError = ahead.error
                    } else {
                        found = tree.longest(from: code, at: j, d, mask: mask, table: table, latitude, carry: carry, slack: window)
                    }
                    ahead = nil
                    if window > 0 && found.end > j && found.end < n {
                        let first = code
                        let next: (string: LZWTree.Found, error: Float)?
                        (found, next) = Self.lookAhead(from: found, start: j, window: window, tree, d, mask: mask, table: table, latitude)
                        // The entry added after this string extends it; a search from the next
                        // pixel can meet that entry only if this string starts with that pixel.
                        if reuses, let next, first != Int(d[found.end] & mask) { ahead = next }
                    }
                    tree.spell(found.code, into: d, to: found.end, from: j)
                    (code, j, carry) = (found.code, found.end, found.carry)
                } else {
                    while j < n {
                        let c = table[code << 8 | Int(d[j] & mask)]
                        if c < 0 { break }
                        code = Int(c)
                        j += 1
                    }
                }
                codes.append(UInt16(code))
                bits += width
                if next < 4096 {
                    if j < n {
                        let symbol = Int(d[j] & mask)
                        let slot = code << 8 | symbol
                        table[slot] = Int16(next)
                        touched.append(Int32(slot))
                        if latitude != nil { tree.add(next, parent: code, symbol: symbol) }
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
                    if rate < best?.rate ?? .infinity {
                        best = (rate, j, codes.count)
                    } else if policy == .whereCheapest, let b = best, codes.count - b.count >= Self.patience {
                        break  // no better end for a while: a later one is unlikely to pay
                    }
                }
                if next == 4096 { break }  // full: the stretch must end by now
            }
            if j >= n, Double(bits) / Double(n - start) <= best?.rate ?? .infinity { return n }
            guard let best else { return j }
            codes.removeSubrange(best.count...)
            return best.end
        }
    }

    /// How far the last stretch was parsed (past its chosen end when it was cut back).
    private var parsedTo: Int?

    /// Of the longest string `found` from `start` and the least wrong strings up to
    /// `window` pixels shorter, the one whose next string reaches furthest, for no more
    /// error over the two strings than the longest string and its next one. When that is
    /// `found`, also the search for its next string (`next`), which the tree's records
    /// still describe, so the coder need not search again.
    private static func lookAhead(
        from found: LZWTree.Found, start: Int, window: Int, _ tree: LZWTree, _ d: UnsafeMutableBufferPointer<UInt8>, mask: UInt8,
        table: UnsafeMutableBufferPointer<Int16>, _ latitude: LZWLatitude
    ) -> (string: LZWTree.Found, next: (string: LZWTree.Found, error: Float)?) {
        typealias Shorter = (string: LZWTree.Found, error: Float)
        // The next string's search below overwrites the tree's record of shorter strings:
        // copy it first.
        return withUnsafeTemporaryAllocation(of: Shorter.self, capacity: window) { shorter in
            var count = 0
            let firstError = tree.lastError
            for end in stride(from: found.end - 1, through: max(start, found.end - window), by: -1) {
                guard let s = tree.recorded(length: end - start) else { continue }
                // The decoder would add string + next symbol, which the dictionary holds: no gain.
                if tree.child(of: s.code, d[end] & mask, table) >= 0 { continue }
                shorter.initializeElement(at: count, to: ((s.code, end, s.carry), s.error))
                count += 1
            }
            if count == 0 { return (found, nil) }
            // The longest string's next first, with records (the next string may reuse it).
            let after = tree.longest(
                from: Int(d[found.end] & mask), at: found.end + 1, d, mask: mask, table: table, latitude, carry: found.carry,
                slack: window)
            let afterError = tree.lastError
            var best = found
            var (reach, error) = (after.end, firstError + afterError)
            for s in shorter[..<count] where s.error <= error {
                let first = Int(d[s.string.end] & mask)
                // Its next string cannot reach past `reach` at all: no need to search.
                if tree.skipsSpent && s.string.end + 1 + tree.height(of: first) <= reach { continue }
                // Only a next string reaching past `reach` can win: once its inexact steps are
                // spent, the search skips the rest.
                let r = tree.longest(
                    from: first, at: s.string.end + 1, d, mask: mask, table: table, latitude,
                    carry: s.string.carry, floor: reach + 1)
                if r.end > reach && s.error + tree.lastError <= error {
                    (best, reach, error) = (s.string, r.end, s.error + tree.lastError)
                }
            }
            return (best, best.end == found.end ? (after, afterError) : nil)
        }
    }
}

/// The dictionary as a tree (first child, next sibling, parent, last symbol per code) and
/// the lossy coder's search over it.
///
/// From the string just started, the search walks the tree depth first, the exact next
/// symbol first, then every other child whose colour fits the next pixel's budget, and keeps
/// the longest string found, of equally long ones the one of least squared error. Inexact
/// steps stop after ``maxDetours`` per string, which bounds the time a string can take; from
/// then on, a branch too short to matter (each code knows how far the strings below it
/// reach) is not walked either, which changes nothing found.
private final class LZWTree {
    private let firstChild = UnsafeMutablePointer<Int16>.allocate(capacity: 4096)
    private let sibling = UnsafeMutablePointer<Int16>.allocate(capacity: 4096)
    private let parent = UnsafeMutablePointer<Int16>.allocate(capacity: 4096)
    private let last = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
    /// How many pixels the longest string below each code adds to it (see the type's doc).
    private let height = UnsafeMutablePointer<Int16>.allocate(capacity: 4096)
    /// The search's stack: code, pixel position, next sibling to try, exact child, carried error.
    private let stackCode = UnsafeMutablePointer<Int32>.allocate(capacity: 4097)
    private let stackPos = UnsafeMutablePointer<Int32>.allocate(capacity: 4097)
    private let stackNext = UnsafeMutablePointer<Int32>.allocate(capacity: 4097)
    private let stackExact = UnsafeMutablePointer<Int32>.allocate(capacity: 4097)
    private let stackCarry = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 4097)
    /// The squared error the string has taken on up to each depth.
    private let stackError = UnsafeMutablePointer<Float>.allocate(capacity: 4097)
    /// A string the search found: its code, where it ends, the error it leaves to carry.
    typealias Found = (code: Int, end: Int, carry: SIMD4<Float>)
    /// The least wrong string the last search that records (`slack` > 0) found at each
    /// length (from its start), with its squared error, valid where `recordedIn` holds that
    /// search's number. Only lengths within `slack` of the longest are sure to be the least
    /// wrong: shorter branches may have been skipped.
    private let recordedCode = UnsafeMutablePointer<Int32>.allocate(capacity: 4097)
    private let recordedCarry = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 4097)
    private let recordedError = UnsafeMutablePointer<Float>.allocate(capacity: 4097)
    private let recordedIn = UnsafeMutablePointer<UInt32>.allocate(capacity: 4097)
    private var search: UInt32 = 0
    /// The squared error of the string the last search returned.
    var lastError: Float = 0
    /// Whether searches skip short branches once their inexact steps are spent.
    var skipsSpent = true
    /// Nodes visited by all searches so far.
    private(set) var steps = 0
    /// Inexact steps tried per string before only exact ones are.
    static let maxDetours = 128
    /// Children walked to find the exact one before looking it up in the table instead.
    static let shortList = 8
    /// How much of a substitution's error the next pixel makes up for.
    static let carryShare: Float = 0.8

    init() {
        recordedIn.initialize(repeating: 0, count: 4097)
        reset()
    }

    deinit {
        firstChild.deallocate(); sibling.deallocate(); parent.deallocate(); last.deallocate(); height.deallocate()
        stackCode.deallocate(); stackPos.deallocate(); stackNext.deallocate(); stackExact.deallocate()
        stackCarry.deallocate(); stackError.deallocate()
        recordedCode.deallocate(); recordedCarry.deallocate(); recordedError.deallocate(); recordedIn.deallocate()
    }

    /// The least wrong string of `length` pixels past its first (0: the first pixel alone)
    /// that the last search that records found (see `recordedCode`): its code, the error it
    /// leaves to carry, its squared error.
    func recorded(length: Int) -> (code: Int, carry: SIMD4<Float>, error: Float)? {
        guard length >= 0 && length < 4097 && recordedIn[length] == search else { return nil }
        return (Int(recordedCode[length]), recordedCarry[length], recordedError[length])
    }

    /// How many pixels the longest string below `code` adds to it.
    func height(of code: Int) -> Int { Int(height[code]) }

    func reset() {
        firstChild.update(repeating: -1, count: 4096)
        parent.update(repeating: -1, count: 4096)
        height.update(repeating: 0, count: 4096)
    }

    func add(_ code: Int, parent p: Int, symbol: Int) {
        last[code] = UInt8(symbol)
        parent[code] = Int16(p)
        firstChild[code] = -1
        sibling[code] = firstChild[p]
        firstChild[p] = Int16(code)
        height[code] = 0
        var (k, h) = (p, Int16(1))
        while k >= 0 && height[k] < h {
            height[k] = h
            (k, h) = (Int(parent[k]), h + 1)
        }
    }

    /// The child of `code` for `symbol` (string(code) + symbol), or -1. The table is 2 MB and
    /// the lists a few KB: a short list is cheaper to walk than a likely cache miss, and a
    /// leaf, the end of every string searched, has nothing to look up.
    func child(of code: Int, _ symbol: UInt8, _ table: UnsafeMutableBufferPointer<Int16>) -> Int {
        var k = Int(firstChild[code])
        var steps = 0
        while k >= 0 && last[k] != symbol {
            if steps == Self.shortList { return Int(table[code << 8 | Int(symbol)]) }
            k = Int(sibling[k])
            steps += 1
        }
        return k
    }

    /// Writes the symbols of string `code` that lie at `start..<end` (its tail) into `d`.
    func spell(_ code: Int, into d: UnsafeMutableBufferPointer<UInt8>, to end: Int, from start: Int) {
        var k = code
        var pos = end - 1
        while pos >= start {
            d[pos] = last[k]
            k = Int(parent[k])
            pos -= 1
        }
    }

    /// The longest string extending `code` (whose last pixel is at `j − 1`), its end, and the
    /// error it leaves to carry.
    ///
    /// With `slack` > 0 the search also records, per length, the least wrong string down to
    /// `slack` pixels shorter than the longest (see ``recorded(length:)``). A `floor` says that
    /// only a string ending there or later matters: what the search returns is the same as
    /// without it whenever that reaches the floor.
    func longest(
        from code: Int, at j: Int, _ d: UnsafeMutableBufferPointer<UInt8>, mask: UInt8,
        table: UnsafeMutableBufferPointer<Int16>, _ latitude: LZWLatitude, carry: SIMD4<Float>,
        slack: Int = 0, floor: Int = 0
    ) -> Found {
        let n = d.count
        var best = (code: code, end: j, carry: carry)
        var bestError: Float = 0
        var depth = 0
        let records = slack > 0
        if records {
            search &+= 1
            if search == 0 {  // wrapped: no record may pass for this search's
                recordedIn.update(repeating: 0, count: 4097)
                search = 1
            }
            recordedIn[0] = search; recordedCode[0] = Int32(code); recordedCarry[0] = carry; recordedError[0] = 0
        }
        let search = search
        stackCode[0] = Int32(code); stackPos[0] = Int32(j); stackNext[0] = -2; stackCarry[0] = carry
        stackError[0] = 0
        var detours = 0
        let skips = skipsSpent
        var visited = 0
        // The transparent symbol as a plain number: the candidate loop below is the coder's
        // hottest, and an optional's comparison there costs on every candidate.
        let transparent = latitude.transparent ?? -1
        latitude.target.withUnsafeBufferPointer { target in
            latitude.budget.withUnsafeBufferPointer { budget in
                while depth >= 0 {
                    visited += 1
                    let node = Int(stackCode[depth]), pos = Int(stackPos[depth])
                    if pos >= n || depth >= 4096 { depth -= 1; continue }
                    var chosen = -1
                    var newCarry = SIMD4<Float>(repeating: 0)
                    var stepError: Float = 0
                    let aim = target[pos] + stackCarry[depth]
                    // A child at `pos` reaches at most pos + 1 + its height; one short of this
                    // can neither be the longest nor a record worth keeping. Skipped only once
                    // no inexact step is left: before, walking it spends inexact steps that
                    // later branches then lack, and skipping it would change what is found.
                    let need = detours < Self.maxDetours || !skips ? Int.min / 2 : max(best.end - slack, floor) - pos - 1
                    if stackNext[depth] == -2 {
                        // First visit: the exact child, then the siblings list.
                        let exact = child(of: node, d[pos] & mask, table)
                        stackExact[depth] = Int32(exact)
                        stackNext[depth] = Int32(firstChild[node])
                        if exact >= 0 && Int(height[exact]) >= need {
                            chosen = exact
                            newCarry = (aim - target[pos]) * Self.carryShare
                        }
                    }
                    let b = budget[pos]
                    // With no budget only a symbol of the same colour fits: over a changed
                    // pixel that can only be the transparent one (palette colours are
                    // distinct), so look it up instead of walking every child.
                    if chosen < 0 && b == 0 && stackNext[depth] >= 0 && Int(d[pos] & mask) != transparent {
                        stackNext[depth] = -1
                        if transparent >= 0 {
                            let k = Int(table[node << 8 | transparent])
                            if k >= 0 && k != Int(stackExact[depth]) && latitude.behind[pos] == target[pos]
                                && Int(height[k]) >= need
                            {
                                chosen = k
                                newCarry = (aim - target[pos]) * Self.carryShare
                            }
                        }
                    }
                    if chosen < 0 && b >= 0 && detours < Self.maxDetours {
                        var k = Int(stackNext[depth])
                        let exact = Int(stackExact[depth])
                        while k >= 0 {
                            let candidate = k
                            k = Int(sibling[k])
                            if candidate == exact { continue }
                            let symbol = Int(last[candidate])
                            let color = symbol == transparent ? latitude.behind[pos] : latitude.symbolColors[symbol]
                            let e = color - target[pos]
                            guard (e * e).sum() <= b else { continue }
                            // The carried error must fit too, unless the pixel allows only its own colour.
                            let f = color - aim
                            guard b == 0 || (f * f).sum() <= b else { continue }
                            chosen = candidate
                            newCarry = f * -Self.carryShare
                            stepError = (e * e).sum()
                            detours += 1
                            break
                        }
                        stackNext[depth] = Int32(k)
                    }
                    if chosen < 0 { depth -= 1; continue }
                    depth += 1
                    stackCode[depth] = Int32(chosen); stackPos[depth] = Int32(pos + 1)
                    stackNext[depth] = -2; stackCarry[depth] = newCarry
                    stackError[depth] = stackError[depth - 1] + stepError
                    let length = pos + 1 - j
                    if records && length < 4097 && (recordedIn[length] != search || stackError[depth] < recordedError[length]) {
                        recordedIn[length] = search
                        recordedCode[length] = Int32(chosen)
                        recordedCarry[length] = newCarry
                        recordedError[length] = stackError[depth]
                    }
                    // The longest string; of equally long ones, the one of least error.
                    if pos + 1 > best.end || (pos + 1 == best.end && stackError[depth] < bestError) {
                        best = (chosen, pos + 1, newCarry)
                        bestError = stackError[depth]
                    }
                }
            }
        }
        lastError = bestError
        steps += visited
        return best
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
