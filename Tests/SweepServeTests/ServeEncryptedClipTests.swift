import Foundation
import SweepTestSupport
import Testing

/// An encrypted clip uploaded to the render service fails as on the command line: exit 65 and
/// the same line after the file's name (#58).
@Suite("The service names an encrypted clip as the command line does", .serialized)
struct ServeEncryptedClipTests {
    @Test("A ClearKey fragment: render failed, exit 65, the CLI's line")
    func encryptedUpload() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let input = root.appendingPathComponent("Tests/Fixtures/media/clearkey-drm.mp4").path
        let dir = try Scratch.folder("serve-drm")
        let cli = try runSweep(["render", input, input, "-o", dir + "/cli.mp4"])
        #expect(cli.code == 65, "\(cli.stderr)")
        let prefix = "sweep: \(input): "
        let line = try #require(cli.stderr.split(separator: "\n").first.map(String.init), "\(cli.stderr)")
        #expect(line.hasPrefix(prefix + "the clip is encrypted (DRM, scheme cenc); sweep cannot decrypt it"), "\(line)")

        let server = try ServeProcess()
        let posted = try curl(form(input, spec: #"{"output":"svc.mp4","size":"64x48"}"#) + [server.url + "/v1/renders"])
        let id = try #require(posted.json["id"] as? String, "\(posted.text)")
        let record = try waitFor(id, at: server.url)
        #expect(record["state"] as? String == "failed", "\(record)")
        #expect(record["exit"] as? Int == 65, "\(record)")
        let error = try #require(record["error"] as? String, "\(record)")
        #expect(error.hasSuffix(String(line.dropFirst(prefix.count))), "service: \(error)\nCLI: \(line)")
    }
}
