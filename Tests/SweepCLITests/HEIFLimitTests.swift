import Foundation
import SweepTestSupport
import Testing

/// Valid HEIF files that libheif 1.15 (Debian 12) cannot open are refused as unsupported
/// (exit 69) with what they use, not as corrupt (exit 65). The fixtures are shaped like
/// conformance files C008/C014 (an `iden` primary without an `iloc` entry) and C023 (such
/// an `iden` beside a plain primary); libheif 1.15's own `heif-info` fails on those three
/// files and on both fixtures alike: "Item with ID … has no compressed data".
@Suite("HEIF files beyond libheif 1.15")
struct HEIFLimitTests {
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images").path

    @Test(
        "An iden item without item data is a libheif 1.15 limit, exit 69, in the worker and in-process",
        arguments: ["heic-iden-bare.heic", "heic-iden-bare-unused.heic"], [[], ["--decode", "in-process"]])
    func bareIdentity(file: String, decode: [String]) throws {
        let dir = try Scratch.folder("heif-limit")
        let input = "\(Self.images)/\(file)", out = dir + "/p.png"
        let r = try runSweep(["preview", input, "-o", out] + decode)
        #expect(r.code == 69, "\(r.code): \(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(r.stderr)")
        let line = String(lines.first ?? "")
        #expect(line.hasPrefix("sweep: \(input): the file uses an identity-derived image without item data (iden, item 2)"), "\(line)")
        #expect(line.contains("valid HEIF that libheif 1.15") && line.contains("(1.18 and later can)"), "\(line)")
        #expect(line.contains("libheif 1.18 or later (heif-convert)") && !line.contains("corrupt"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("The --json error names the code as unavailable")
    func json() throws {
        let dir = try Scratch.folder("heif-limit-json")
        let r = try runSweep(["preview", "\(Self.images)/heic-iden-bare.heic", "-o", dir + "/p.png", "--json"])
        #expect(r.code == 69, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let error = try #require(object["error"] as? [String: Any], "\(r.stdout)")
        #expect(error["code"] as? String == "unavailable" && error["exit"] as? Int == 69, "\(error)")
        #expect((error["fix"] as? String)?.contains("heif-convert") == true, "\(error)")
    }
}
