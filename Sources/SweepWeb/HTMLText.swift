import Foundation

/// Escaping for the three contexts the page writes user text into: HTML text and
/// attribute values, a JSON data block inside `<script>`, and a CSS font-family list.
///
/// Labels, fonts and URLs come from the command line or a batch file, so each must stay
/// inert wherever it lands: a label `</script><script>…` must not end the data block.
package enum HTMLText {
    /// Text or a double-quoted attribute value: `& < > " '` become character references.
    package static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A JSON string literal that is also safe inside `<script>`: `<` is written `\u003c`,
    /// so no `</script>` or `<!--` can appear, and control characters are escaped.
    package static func jsonString(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if c.value < 0x20 {
                    let hex = String(c.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out + "\""
    }

    /// A JSON number: the shortest text that reads back the same; non-finite becomes 0.
    package static func jsonNumber(_ x: Double) -> String {
        guard x.isFinite else { return "0" }
        if x == x.rounded(), abs(x) < 1e15 { return String(Int(x)) }
        return "\(x)"
    }

    /// A fontconfig family list ("Noto Sans, Noto Sans CJK JP", "Sans") as a CSS
    /// `font-family` value: generic names map to CSS generics, others are quoted with
    /// anything that could end the string or the declaration removed.
    ///
    /// fontconfig's "Sans" is Noto Sans on Debian (what the renderer draws with), while a
    /// browser's `sans-serif` is often Arial or Liberation Sans: name Noto Sans first so the
    /// page matches the GIF where the font exists, then the system's interface font.
    package static func cssFontFamily(_ list: String) -> String {
        let generic = [
            "sans": "\"Noto Sans\",system-ui,sans-serif", "sans-serif": "sans-serif", "serif": "serif",
            "monospace": "monospace", "mono": "monospace", "cursive": "cursive", "system-ui": "system-ui",
        ]
        var names: [String] = []
        for part in list.split(separator: ",") {
            let name = part.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { continue }
            if let g = generic[name.lowercased()] { names.append(g); continue }
            let safe = name.unicodeScalars.filter { !"\"'\\<>;{}()".unicodeScalars.contains($0) && $0.value >= 0x20 }
            if !safe.isEmpty { names.append("\"" + String(String.UnicodeScalarView(safe)) + "\"") }
        }
        if !names.contains(where: { $0.hasSuffix("sans-serif") }) { names.append("sans-serif") }
        return names.joined(separator: ",")
    }
}
