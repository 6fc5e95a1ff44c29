import Foundation
import SweepGIF
import SweepImaging
import SweepSupport
import SweepTimeline

/// Parses and range-checks option values; every error names the option and the range.
package enum ValueParser {
    /// A time in a clip: seconds (`12.5`), or `M:SS(.s)` / `H:MM:SS(.s)`.
    package static func seconds(_ s: String, option: String) throws -> Double {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        // Decimal digits and one point per part: Double() would also take 0x10 or 1e2.
        let decimal = parts.allSatisfy { p in
            !p.isEmpty && p.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } && p.filter { $0 == "." }.count <= 1
        }
        guard (1...3).contains(parts.count), decimal else {
            throw SweepError(.usage, "'\(s)' is not a time", subject: option, fix: "give seconds (12.5) or minutes:seconds (1:02.5)")
        }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            let last = i == parts.count - 1
            // After a colon, seconds and minutes stay under 60 (0:61 is a typo, not 61 s).
            let top = i == 0 ? (last ? longestTime : longestTime / 60) : 59.999_999
            let v = try double(String(part), option: option, range: 0...top)
            guard last || v == v.rounded() else {
                throw SweepError(.usage, "'\(s)' is not a time", subject: option, fix: "give seconds (12.5) or minutes:seconds (1:02.5)")
            }
            total = total * 60 + v
        }
        guard total <= longestTime else {
            throw SweepError(.usage, "'\(s)' is beyond a day", subject: option, fix: "give a time within the clip")
        }
        return total
    }

    /// The longest time taken in a clip (a day), in seconds.
    package static let longestTime = 86_400.0

    /// The sides a size may have, in pixels.
    package static let sizeSides = 2...16384

    package static func double(_ s: String, option: String, range: ClosedRange<Double>) throws -> Double {
        guard let v = Double(s), v.isFinite else {
            throw SweepError(.usage, "'\(s)' is not a number", subject: option, fix: "give a number in \(fmt(range))")
        }
        guard range.contains(v) else {
            throw SweepError(.usage, "\(s) is out of range", subject: option, fix: "give a number in \(fmt(range))")
        }
        return v
    }

    package static func int(_ s: String, option: String, range: ClosedRange<Int>) throws -> Int {
        guard let v = Int(s) else {
            throw SweepError(
                .usage, "'\(s)' is not a whole number", subject: option,
                fix: "give a whole number in \(range.lowerBound)…\(range.upperBound)")
        }
        guard range.contains(v) else {
            throw SweepError(
                .usage, "\(s) is out of range", subject: option,
                fix: "give a whole number in \(range.lowerBound)…\(range.upperBound)")
        }
        return v
    }

    /// The largest byte count taken (1 TB): far past any output, and exact in a `Double`.
    package static let maxBytes = 1e12

    /// A byte count: 15000000, 15MB, 10MiB, 500KB, 4GB.
    package static func bytes(_ s: String, option: String, minimum: Double = 1024) throws -> Int {
        let units: [(String, Double)] = [
            ("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("KB", 1000), ("MB", 1_000_000), ("GB", 1e9),
            ("K", 1000), ("M", 1_000_000), ("G", 1e9), ("B", 1),
        ]
        var text = s.trimmingCharacters(in: .whitespaces)
        var factor = 1.0
        for (u, f) in units where text.uppercased().hasSuffix(u.uppercased()) {
            text = String(text.dropLast(u.count)).trimmingCharacters(in: .whitespaces)
            factor = f
            break
        }
        guard let v = Double(text), v.isFinite, v >= 0 else {
            throw SweepError(.usage, "'\(s)' is not a byte count", subject: option, fix: "write e.g. 15MB, 10MiB or 500000")
        }
        // A well-formed size that is too small or too large is a range error, not a syntax one.
        guard v * factor >= minimum else {
            throw SweepError(
                .usage, "\(s) is out of range", subject: option,
                fix: "give at least \(Self.byteText(minimum)) (e.g. 15MB, 10MiB or 500000)")
        }
        guard v * factor <= Self.maxBytes else {
            throw SweepError(.usage, "\(s) is out of range", subject: option, fix: "give at most 1 TB (\(Int(Self.maxBytes)) bytes)")
        }
        return Int(v * factor)
    }

    /// A size as people write it: `1080x1080`, `1080×1080` (as the README's tables print
    /// it), `1080` (a square), `640x` or `x480` (the other side from the before image's
    /// aspect ratio, `nil` here).
    package static func size(_ s: String, option: String = "--size") throws -> (Int?, Int?) {
        let text = s.lowercased().replacingOccurrences(of: "×", with: "x").trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        let bad = SweepError(
            .usage, "'\(s)' is not a size", subject: option,
            fix: "write WIDTHxHEIGHT (1080x1080), one side for a square (1080), or 640x / x480 to keep the aspect ratio")
        let sides: [Int?]
        switch parts.count {
        case 1: guard let v = Int(parts[0]) else { throw bad }; sides = [v, v]
        case 2:
            guard !(parts[0].isEmpty && parts[1].isEmpty) else { throw bad }
            sides = try parts.map { p in
                if p.isEmpty { return nil }
                guard let v = Int(p) else { throw bad }
                return v
            }
        default: throw bad
        }
        guard sides.allSatisfy({ $0.map { Self.sizeSides.contains($0) } ?? true }) else {
            throw SweepError(
                .usage, "\(s) is out of range", subject: option,
                fix: "use \(Self.sizeSides.lowerBound)…\(Self.sizeSides.upperBound) pixels per side")
        }
        return (sides[0], sides[1])
    }

    /// The curves by one name each (``Curve/named`` also takes SwiftUI's spellings, `easeIn`).
    package static let curveNames = Curve.named.keys.filter { $0 == $0.lowercased() }.sorted()
    /// The other spellings ``curve(_:option:)`` takes.
    package static let curveAliases = Curve.named.keys.filter { $0 != $0.lowercased() }.sorted()

    package static func curve(_ s: String, option: String = "--ease") throws -> Curve {
        if let c = Curve.named[s] { return c }
        let hint =
            Suggestion.nearest(s, in: Array(Curve.named.keys).sorted()).map { "did you mean \($0)?" }
            ?? "use one of \(Curve.named.keys.sorted().joined(separator: ", "))"
        throw SweepError(.usage, "unknown curve '\(s)'", subject: option, fix: hint)
    }

    /// The loop modes by name; a count is the other way to give one.
    package static let loopNames = ["forever", "once", "boomerang"]
    /// The counts a loop may be (a GIF's loop count is 16 bits).
    package static let loopCounts = 1...65535

    package static func loop(_ s: String) throws -> LoopMode {
        switch s {
        case "once": return .once
        case "forever": return .forever
        case "boomerang": return .boomerang
        default:
            let counts = "a count \(loopCounts.lowerBound)…\(loopCounts.upperBound)"
            if let n = Int(s) {
                guard loopCounts.contains(n) else {
                    throw SweepError(.usage, "\(s) is out of range", subject: "--loop", fix: "give \(counts)")
                }
                return n == 1 ? .once : .count(n)
            }
            throw SweepError(
                .usage, "unknown loop '\(s)'", subject: "--loop",
                fix: "use once, forever, boomerang or \(counts)")
        }
    }

    package static func choice<T: RawRepresentable & CaseIterable>(_ s: String, option: String, as: T.Type) throws -> T
    where T.RawValue == String {
        if let v = T(rawValue: s) { return v }
        let all = T.allCases.map(\.rawValue)
        let hint = Suggestion.nearest(s, in: all).map { "did you mean \($0)?" } ?? "use one of \(all.joined(separator: ", "))"
        throw SweepError(.usage, "unknown value '\(s)'", subject: option, fix: hint)
    }

    /// A colour as #RRGGBB, #RRGGBBAA, or a few names.
    package static func color(_ s: String, option: String) throws -> RGBA8 {
        let named: [String: RGBA8] = ["white": .white, "black": .black, "transparent": .clear]
        if let c = named[s.lowercased()] { return c }
        var hex = s
        if hex.hasPrefix("#") { hex.removeFirst() }
        guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit), let v = UInt32(hex, radix: 16) else {
            throw SweepError(
                .usage, "'\(s)' is not a colour", subject: option, fix: "write #RRGGBB, #RRGGBBAA, white, black or transparent")
        }
        if hex.count == 6 { return RGBA8(r: UInt8(v >> 16 & 0xff), g: UInt8(v >> 8 & 0xff), b: UInt8(v & 0xff)) }
        return RGBA8(r: UInt8(v >> 24), g: UInt8(v >> 16 & 0xff), b: UInt8(v >> 8 & 0xff), a: UInt8(v & 0xff))
    }

    /// `minimum` as people write it: 1024 → "1 KiB (1024 bytes)".
    package static func byteText(_ minimum: Double) -> String {
        minimum == 1024 ? "1 KiB (1024 bytes)" : "\(Int(minimum)) bytes"
    }

    package static func fmt(_ r: ClosedRange<Double>) -> String {
        "\(r.lowerBound.plainText)…\(r.upperBound.plainText)"
    }
}
