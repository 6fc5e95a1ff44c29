import SweepSupport

/// Walks a JPEG's markers before the decoder runs: it counts the scans and finds where the
/// data ends.
///
/// A progressive JPEG can hold thousands of tiny scans, each of which costs the decoder a
/// pass over the whole picture (about 13 ms at 8000², so minutes in all); libjpeg-turbo
/// caps them for the same reason. And a JPEG cut short past its header still decodes, grey
/// where the data ended: it is refused instead, as Pillow refuses it.
package enum JPEGMarkers {
    /// The most scans a JPEG may have (progressive files use about 10).
    package static let maxScans = 500

    /// Checks `jpeg`; `name` is used in errors.
    ///
    /// - Throws: ``SweepError/Code/dataError`` for too many scans, a segment running past
    ///   the end, or data ending before the end-of-image marker.
    package static func check(_ jpeg: [UInt8], name: String) throws {
        func refuse(_ what: String) -> SweepError {
            SweepError(.dataError, "the JPEG is \(what)", subject: name, fix: "re-export it from the original")
        }
        let n = jpeg.count
        guard n >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw refuse("not a JPEG (no start-of-image marker)") }
        var at = 2
        var scans = 0
        while true {
            // Find the next marker: 0xFF, any fill bytes 0xFF, then the code.
            while at < n && jpeg[at] != 0xFF { at += 1 }
            while at < n && jpeg[at] == 0xFF { at += 1 }
            guard at < n else { throw refuse(scans > 0 ? "truncated (it ends inside scan \(scans))" : "truncated") }
            let code = jpeg[at]
            at += 1
            switch code {
            case 0xD9:
                return  // end of image; anything after it is ignored, as decoders do
            case 0x01, 0xD0...0xD7:
                continue  // markers without a length
            default:
                guard at + 2 <= n else { throw refuse("truncated") }
                let length = Int(jpeg[at]) << 8 | Int(jpeg[at + 1])
                guard length >= 2, at + length <= n else { throw refuse("truncated (a segment runs past the end)") }
                at += length
                guard code == 0xDA else { continue }
                scans += 1
                if scans > maxScans {
                    throw SweepError(
                        .dataError, "the JPEG has more than \(maxScans) scans", subject: name,
                        fix: "re-export it as a baseline or ordinary progressive JPEG")
                }
                // Entropy-coded data: skip to the next marker that is not a stuffed 0xFF00
                // or a restart marker.
                while at + 1 < n {
                    if jpeg[at] == 0xFF, jpeg[at + 1] != 0x00, !(0xD0...0xD7).contains(jpeg[at + 1]), jpeg[at + 1] != 0xFF {
                        break
                    }
                    at += 1
                }
                if at + 1 >= n { throw refuse("truncated (it ends inside scan \(scans))") }
            }
        }
    }
}
