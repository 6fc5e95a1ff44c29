import Foundation

/// Byte counts as people read them, in decimal units as `--max-bytes` takes them, to three
/// significant digits: "812 bytes", "2.05 KB", "93.4 KB", "650 MB", "5.00 GB". One rule for
/// summaries and messages alike.
package enum ByteCount {
    package static func text(_ bytes: Int) -> String {
        if bytes < 1000 { return "\(bytes) bytes" }
        var value = Double(bytes), unit = 0
        let units = ["KB", "MB", "GB", "TB"]
        repeat {
            value /= 1000
            unit += 1
        } while value >= 999.5 && unit < units.count
        let digits = value < 9.995 ? 2 : (value < 99.95 ? 1 : 0)
        return String(format: "%.\(digits)f %@", value, units[unit - 1])
    }
}
