import Foundation

/// JSON decoding for preset and job files that reports every problem with the file, the
/// field and the reason, and treats unknown keys as errors (a typo must not be ignored).
package enum StrictJSON {
    /// Decodes `T` from `data`; errors name `file`.
    ///
    /// - Throws: `.dataError` with "line L, column C" for malformed JSON, or the field path
    ///   for a missing key, a wrong type, an unknown key or an out-of-range value.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data, file: String) throws -> T {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let at = position(of: error, in: data)
            throw SweepError(
                .dataError, "invalid JSON\(at)", subject: file,
                fix: at.hasSuffix("out of range")
                    ? "write a number a Double can hold (within ±1.7e308)"
                    : "fix the syntax (quotes, commas, brackets)")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let e as SweepError {
            throw SweepError(e.code, e.message, subject: file, fix: e.fix)
        } catch let e as DecodingError {
            throw SweepError(.dataError, describe(e), subject: file, fix: "see the preset schema in the README")
        }
    }

    /// Decodes one JSON document given as a string (a line of a JSONL file, say).
    package static func decode<T: Decodable>(_ type: T.Type, from text: String, file: String) throws -> T {
        try decode(type, from: Data(text.utf8), file: file)
    }

    /// "field a.b[2].c" for a coding path (or "the top level").
    package static func path(_ keys: [any CodingKey]) -> String {
        let parts = keys.map { k in k.intValue.map { "[\($0)]" } ?? k.stringValue }
        var s = ""
        for p in parts { s += p.hasPrefix("[") || s.isEmpty ? p : "." + p }
        return s.isEmpty ? "the top level" : "field \(s)"
    }

    static func describe(_ e: DecodingError) -> String {
        switch e {
        case let .keyNotFound(key, ctx): return "\(path(ctx.codingPath + [key])) is missing"
        case let .typeMismatch(t, ctx): return "\(path(ctx.codingPath)) should be \(typeName(t))"
        case let .valueNotFound(t, ctx): return "\(path(ctx.codingPath)) should be \(typeName(t)), not null"
        case let .dataCorrupted(ctx): return "\(path(ctx.codingPath)): \(ctx.debugDescription)"
        @unknown default: return "\(e)"
        }
    }

    static func typeName(_ t: Any.Type) -> String {
        switch t {
        case is Double.Type, is Float.Type: "a number"
        case is Int.Type: "a whole number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "\(t)".contains("Array") ? "a list" : "an object"
        }
    }

    /// " at line L, column C" of the first syntax error in `data` ("" when Foundation gives no
    /// offset), or `nil` when it parses.
    package static func syntaxError(in data: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            return position(of: error, in: data)
        }
    }

    /// " at line L, column C" from Foundation's character offset, when it gives one; for a
    /// number too large for a Double (`1e400`), which Foundation reports without a place,
    /// ": the number … at line L, column C is out of range".
    static func position(of error: any Error, in data: Data) -> String {
        let text = "\((error as NSError).userInfo)"
        guard let r = text.range(of: #"character (\d+)"#, options: .regularExpression),
            let offset = Int(text[r].split(separator: " ")[1])
        else {
            if let (offset, token) = hugeNumber(in: data) {
                let shown = token.count > 40 ? String(token.prefix(40)) + "…" : token
                return ": the number \(shown)\(lineAndColumn(offset, in: data)) is out of range"
            }
            return ""
        }
        return lineAndColumn(offset, in: data)
    }

    /// The offset and text of the first number outside strings that a Double cannot hold.
    static func hugeNumber(in data: Data) -> (Int, String)? {
        let bytes = [UInt8](data)
        var i = 0, inString = false
        while i < bytes.count {
            let b = bytes[i]
            if inString {
                if b == UInt8(ascii: "\\") { i += 2; continue }
                if b == UInt8(ascii: "\"") { inString = false }
                i += 1
                continue
            }
            if b == UInt8(ascii: "\"") { inString = true; i += 1; continue }
            if b == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) {
                let start = i
                while i < bytes.count, "0123456789+-.eE".utf8.contains(bytes[i]) { i += 1 }
                let token = String(decoding: bytes[start..<i], as: UTF8.self)
                if let v = Double(token), !v.isFinite { return (start, token) }
                continue
            }
            i += 1
        }
        return nil
    }

    /// " at line L, column C" for a byte offset.
    static func lineAndColumn(_ offset: Int, in data: Data) -> String {
        var line = 1, column = 1
        for (i, b) in data.enumerated() {
            if i >= offset { break }
            if b == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
        }
        return " at line \(line), column \(column)"
    }

    /// Throws when the object being decoded has keys outside `allowed`.
    package static func rejectUnknownKeys(in decoder: any Decoder, allowed: Set<String>) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        for key in c.allKeys where !allowed.contains(key.stringValue) {
            let near = Suggestion.nearest(key.stringValue, in: allowed.sorted())
            throw SweepError(
                .dataError, "\(path(decoder.codingPath + [key])) is not a known key", subject: nil,
                fix: near.map { "did you mean \"\($0)\"?" } ?? "allowed: \(allowed.sorted().joined(separator: ", "))")
        }
    }

    /// The file's `version` (1 when absent); throws unless it is one this build reads.
    package static func version<K: CodingKey>(_ c: KeyedDecodingContainer<K>, key: K, supported: Int = 1) throws -> Int {
        let v = try c.decodeIfPresent(Int.self, forKey: key) ?? 1
        guard v == supported else {
            throw SweepError(.dataError, "version \(v) is not supported", fix: "use \"version\": \(supported)")
        }
        return v
    }

    /// Throws unless `value` is finite and inside `range`.
    package static func check(_ value: Double, _ field: String, in range: ClosedRange<Double>, decoder: any Decoder) throws {
        guard value.isFinite, range.contains(value) else {
            throw SweepError(
                .dataError, "\(path(decoder.codingPath)).\(field) is \(value), outside \(range.lowerBound)…\(range.upperBound)",
                subject: nil, fix: "use a value in \(range.lowerBound)…\(range.upperBound)")
        }
    }
}

/// Any string key, for reading all the keys of an object.
package struct AnyKey: CodingKey {
    package var stringValue: String
    package var intValue: Int?
    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { self.stringValue = String(intValue); self.intValue = intValue }
}

/// Nearest-name suggestions for typos (edit distance).
package enum Suggestion {
    /// The candidate closest to `word`, if close enough to help.
    package static func nearest(_ word: String, in candidates: [String]) -> String? {
        let w = Array(word.lowercased())
        var best: (String, Int)?
        for c in candidates {
            let d = distance(w, Array(c.lowercased()))
            if d < (best?.1 ?? Int.max) { best = (c, d) }
        }
        guard let best, best.1 <= max(2, w.count / 3) else { return nil }
        return best.0
    }

    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev = Array(0...b.count)
        for i in 1...a.count {
            var cur = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }
}
