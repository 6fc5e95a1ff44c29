/// `--help` as blocks, laid out when printed for the terminal's width (``TerminalText/columns(of:)``).
///
/// Text wraps at spaces, continuation lines keep their block's indent, and a paragraph of
/// several words never leaves one word alone on a line: among the layouts with the fewest
/// such lines, the fewest lines, then the most even right edge wins. An option's or a
/// command's explanation starts at a column that moves left on a narrow terminal, and under
/// the term when the term is too wide for it.
package struct HelpText: Sendable {
    /// A part of the help, laid out on its own lines.
    package enum Block: Sendable {
        /// Running text wrapped at spaces; every line starts at `indent`.
        case text(String, indent: Int = 0)
        /// A command to type: broken between words (`[--jobs N]` stays whole), each
        /// continuation ending the line before with ` \` and indented 4 more.
        case command(String, indent: Int = 2)
        /// Terms and their explanations, the explanations at `column` (nearer on a narrow terminal).
        case entries([Entry], column: Int)
        /// An empty line.
        case blank

        /// A command's synopsis at the top of its help: broken between words (never inside
        /// brackets), continuation lines indented 4.
        package static func synopsis(_ text: String) -> Block {
            .entries([Entry(HelpText.words(text), indent: 0, hang: 4, "")], column: 4)
        }
    }

    /// A term (an option's names, a command) and what it does.
    package struct Entry: Sendable {
        /// The term's pieces, kept whole: a line breaks only between them.
        let pieces: [String]
        /// Where the term's first line starts.
        let indent: Int
        /// Where the term's continuation lines start.
        let hang: Int
        /// The explanation (empty: none).
        let text: String

        /// A term made of `pieces`, starting at `indent`, its continuation lines at `hang`.
        package init(_ pieces: [String], indent: Int = 2, hang: Int? = nil, _ text: String) {
            self.pieces = pieces
            self.indent = indent
            self.hang = hang ?? indent + 4
            self.text = text
        }

        /// A command synopsis (`sweep batch JOBS.jsonl [--jobs N]`) as a term, broken between
        /// its words and never inside brackets; its continuation lines are indented 6, past
        /// an explanation at 4, so that the two cannot be mistaken for each other.
        package init(command: String, indent: Int = 2, _ text: String = "") {
            self.init(HelpText.words(command), indent: indent, hang: indent + 6, text)
        }
    }

    /// The blocks, in order.
    package var blocks: [Block]

    package init(_ blocks: [Block]) { self.blocks = blocks }

    /// The help laid out within `width` columns (at least 20), one line per element joined by
    /// newlines; only a word longer than the room left for it runs past the width.
    package func render(width: Int) -> String {
        let width = max(20, width)
        var out: [String] = []
        for block in blocks {
            switch block {
            case .blank:
                out.append("")
            case let .text(text, indent):
                let pad = String(repeating: " ", count: indent)
                out += Self.wrap(text.split(separator: " ").map(String.init), width: width - indent).map { pad + $0 }
            case let .command(text, indent):
                out += Self.command(Self.words(text), indent: indent, width: width)
            case let .entries(entries, column):
                // A third of the terminal at most, so that a narrow one keeps room for the text.
                let column = min(column, max(min(column, 8), width / 3))
                for entry in entries { out += Self.entry(entry, column: column, width: width) }
            }
        }
        return out.joined(separator: "\n")
    }

    /// A command's lines: its words wrapped at `width`, each line but the last ending in ` \`.
    package static func command(_ words: [String], indent: Int, width: Int) -> [String] {
        let hang = indent + 4
        let lines = wrap(words, width: width - hang, first: width - indent, reserve: 2)
        return lines.enumerated().map { i, line in
            String(repeating: " ", count: i == 0 ? indent : hang) + line + (i < lines.count - 1 ? " \\" : "")
        }
    }

    /// One entry: its term, wrapped; its text at `column`, on the term's last line when the
    /// term leaves two spaces before the column, else on the lines below.
    package static func entry(_ entry: Entry, column: Int, width: Int) -> [String] {
        // A piece too wide for a line of its own (`[--reduce-motion cut|dissolve|auto]` on a
        // narrow terminal) is broken at its spaces after all.
        let pieces = entry.pieces.flatMap { piece in
            piece.count > width - entry.hang && piece.contains(" ") ? piece.split(separator: " ").map(String.init) : [piece]
        }
        let term = wrap(pieces, width: width - entry.hang, first: width - entry.indent).enumerated().map { i, line in
            String(repeating: " ", count: i == 0 ? entry.indent : entry.hang) + line
        }
        let words = entry.text.split(separator: " ").map(String.init)
        guard !words.isEmpty else { return term }
        let text = wrap(words, width: width - column)
        let pad = String(repeating: " ", count: column)
        if let last = term.last, last.count + 2 <= column {
            return Array(term.dropLast()) + [last + String(repeating: " ", count: column - last.count) + text[0]]
                + text.dropFirst().map { pad + $0 }
        }
        return term + text.map { pad + $0 }
    }

    /// `words` in lines of at most `width` characters (`first` for the first line), the lines
    /// but the last `reserve` characters shorter (room for ` \`).
    ///
    /// Of the layouts where a line holds only what fits (or one word longer than the room),
    /// it picks the one with the fewest lines of a single word (none, when the paragraph has
    /// two words or more and any layout allows it), then the fewest lines, then the smallest
    /// sum of the squared gaps at the end of the lines but the last.
    package static func wrap(_ words: [String], width: Int, first: Int? = nil, reserve: Int = 0) -> [String] {
        let n = words.count
        guard n > 1 else { return [words.first ?? ""] }
        // cost[i]: the best layout of words i..<n as (single-word lines, lines, raggedness),
        // compared in that order; next[i]: where that layout's first line ends.
        var cost = [(Int, Int, Int)](repeating: (0, 0, 0), count: n + 1)
        var next = [Int](repeating: n, count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            var best: (Int, Int, Int)?
            var length = -1
            for j in (i + 1)...n {
                length += 1 + words[j - 1].count
                let room = (i == 0 ? (first ?? width) : width) - (j < n ? reserve : 0)
                if length > room && j > i + 1 { break }
                let gap = j < n ? max(0, room - length) : 0
                let rest = cost[j]
                let candidate = (rest.0 + (j == i + 1 ? 1 : 0), rest.1 + 1, rest.2 + gap * gap)
                if best == nil || candidate < best! {
                    best = candidate
                    next[i] = j
                }
            }
            cost[i] = best!
        }
        var lines: [String] = []
        var i = 0
        while i < n {
            lines.append(words[i..<next[i]].joined(separator: " "))
            i = next[i]
        }
        return lines
    }

    /// `text` split at spaces, except inside brackets (`[--jobs N]` is one word) and after an
    /// option that takes a value (`-o OUT` is one word).
    package static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var depth = 0
        for c in text {
            if c == " " && depth == 0 {
                if !current.isEmpty { words.append(current) }
                current = ""
                continue
            }
            if c == "[" { depth += 1 }
            if c == "]" { depth = max(0, depth - 1) }
            current.append(c)
        }
        if !current.isEmpty { words.append(current) }
        var glued: [String] = []
        for word in words {
            if let last = glued.last, last.hasPrefix("-"), !last.contains(" "), !"-[|".contains(word.first ?? "-") {
                glued[glued.count - 1] = last + " " + word
            } else {
                glued.append(word)
            }
        }
        return glued
    }
}
