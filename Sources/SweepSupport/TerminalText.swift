import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Text from strangers (file names, labels, job fields) made safe to print on a terminal.
///
/// A file name may hold a newline (forging a second message), an escape sequence (moving the
/// cursor, retitling the window, hiding what came before) or a C1 control that some
/// terminals read as ESC. Every message the CLI prints goes through ``escape(_:)``.
package enum TerminalText {
    /// `s` with control characters (C0, DEL, C1) and the bidirectional overrides written as
    /// `\n`, `\t`, `\r` or `\u{…}`; a backslash itself stays as it is.
    package static func escape(_ s: String) -> String {
        if !s.unicodeScalars.contains(where: needsEscape) { return s }
        var out = ""
        for u in s.unicodeScalars {
            guard needsEscape(u) else { out.unicodeScalars.append(u); continue }
            switch u {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: out += "\\u{" + String(u.value, radix: 16) + "}"
            }
        }
        return out
    }

    package static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7F...0x9F).contains(u.value) || (0x202A...0x202E).contains(u.value)
            || (0x2066...0x2069).contains(u.value)
    }

    /// The width help is laid out for: `$COLUMNS` when it is a number, else the width of the
    /// terminal `fd` writes to (TIOCGWINSZ), else 80, for a pipe or a file that is read later
    /// at any width.
    package static func columns(of fd: Int32 = 1, variable: String? = getenv("COLUMNS").map { String(cString: $0) }) -> Int {
        if let variable, let n = Int(variable.trimmingCharacters(in: .whitespaces)), n > 0 { return n }
        var size = winsize()
        if isatty(fd) == 1, ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// True when everything printed on stdout so far has arrived: flushes it and checks its
    /// error flag (set by any earlier failed write, say to a full disk or a closed pipe).
    package static func stdoutIsIntact() -> Bool {
        // C's `stdout` is a mutable global Swift 6 will not read directly; its address from
        // the C library is the same stream that `print` writes to.
        guard let symbol = dlsym(nil, "stdout") else { return fflush(nil) == 0 }
        let out = symbol.load(as: UnsafeMutablePointer<FILE>.self)
        return fflush(out) == 0 && ferror(out) == 0
    }

    /// Writes `s` as it is to file descriptor `fd` with write(2), retrying short writes. A
    /// closed or broken descriptor loses the text quietly: FileHandle would raise an
    /// uncatchable exception there, and a message is not worth a crash.
    package static func write(_ s: String, to fd: Int32 = 2) {
        let bytes = Array(s.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
