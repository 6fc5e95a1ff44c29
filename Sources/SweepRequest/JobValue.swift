/// A value in a job line (or a service spec). Encoded back, a number is written as its text,
/// which ``RequestKeys`` reads as it reads the number.
package enum JobValue: Codable, Equatable, Sendable {
    case flag(Bool), string(String), number(String), list([JobValue])

    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .flag(b); return }
        if let i = try? c.decode(Int.self) { self = .number(String(i)); return }
        if let d = try? c.decode(Double.self) { self = .number(String(d)); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        self = .list(try c.decode([JobValue].self))
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .flag(let b): try c.encode(b)
        case .string(let s), .number(let s): try c.encode(s)
        case .list(let l): try c.encode(l)
        }
    }

    /// A list stands for a repeated option (e.g. several codec-opt values).
    package var items: [JobValue] { if case let .list(l) = self { return l } else { return [self] } }
}
