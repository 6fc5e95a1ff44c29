import Foundation
import SweepRequest
import SweepSupport

/// `--help`'s option sections and the man page's OPTIONS, both written from ``OptionTable``.
enum OptionHelp {
    /// Where an option's explanation starts on a terminal of 80 columns or more.
    static let column = 26

    /// The help sections listing the groups `include` keeps, in the table's order.
    static func sections(where include: (OptionGroup) -> Bool = { _ in true }) -> [HelpText.Block] {
        var out: [HelpText.Block] = []
        for section in OptionGroup.Section.allCases {
            let groups = OptionTable.groups.filter { $0.section == section && include($0) }
            guard !groups.isEmpty else { continue }
            if !out.isEmpty { out.append(.blank) }
            out.append(.text(section.helpTitle + ":"))
            out.append(.entries(groups.map(entry), column: column))
        }
        return out
    }

    /// One group's entry: its options' names, broken between options (long names aligned
    /// under each other), and its help.
    static func entry(_ group: OptionGroup) -> HelpText.Entry {
        let pieces = group.options.enumerated().map { i, option in option.synopsis + (i < group.options.count - 1 ? "," : "") }
        return HelpText.Entry(pieces, indent: group.options.first?.short == nil ? 6 : 2, hang: 6, group.help)
    }

    /// `line` broken at spaces into lines of at most `width` characters (a longer word stands
    /// alone), for the man page's source, which roff fills again.
    static func wrap(_ line: String, to width: Int) -> [String] {
        var lines: [String] = []
        for word in line.split(separator: " ") {
            if let last = lines.last, last.count + 1 + word.count <= width {
                lines[lines.count - 1] = last + " " + word
            } else {
                lines.append(String(word))
            }
        }
        return lines.isEmpty ? [""] : lines
    }

    /// The man page's OPTIONS sections (roff), every group under its section's heading.
    static func manual() -> String {
        var out: [String] = []
        for section in OptionGroup.Section.allCases {
            let groups = OptionTable.groups.filter { $0.section == section }
            guard !groups.isEmpty else { continue }
            out.append(".SS " + section.manualTitle)
            if let intro = section.manualIntro { out.append(roff(intro)) }
            for group in groups {
                out.append(".TP")
                out.append(
                    group.options.map { o in
                        (o.short.map { "\\fB\\-\($0)\\fR, " } ?? "") + "\\fB" + escape("--" + o.name) + "\\fR"
                            + (o.placeholder.map { " \\fI" + escape($0) + "\\fR" } ?? "")
                    }.joined(separator: ", "))
                out.append(roff(group.manual ?? sentence(group.help)))
            }
        }
        out.append(".PP")
        out.append(
            roff(
                "An option that cannot act on the output (--quality on a video, --crf on a GIF, --fps on a still) is refused with exit 64, naming the option that does its job there; in a batch job or set by a format, it is a note."
            ))
        return out.joined(separator: "\n")
    }

    /// A help line as a man page sentence: capitalised, with a full stop.
    static func sentence(_ line: String) -> String {
        line.prefix(1).uppercased() + line.dropFirst() + (line.hasSuffix(".") ? "" : ".")
    }

    /// Text for roff: escaped, `--name` words in bold, no line starting with a control character.
    static func roff(_ text: String) -> String {
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            let w = String(word)
            guard w.hasPrefix("--") else { return escape(w) }
            let name = w.prefix { $0.isLetter || $0.isNumber || $0 == "-" }
            return "\\fB" + escape(String(name)) + "\\fR" + escape(String(w.dropFirst(name.count)))
        }
        // Lines of at most about 100 characters, for diffs.
        return wrap(words.joined(separator: " "), to: 100).map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : $0 }.joined(
            separator: "\n")
    }

    /// Backslashes and hyphens as roff writes them.
    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    }
}
