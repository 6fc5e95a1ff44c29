import Foundation
import SweepMedia

/// A clip whose frames end before the length its file states: cut short (a download or a
/// recording that stopped), or a header that is wrong. The clip plays to its last frame, and
/// the render says where that was (summary line, `--json`), never padding it silently.
public struct ClipCut: Sendable, Equatable, Codable {
    /// "before" or "after".
    public var side: String
    /// The file.
    public var input: String
    /// Seconds from the clip's start to the end of its last frame.
    public var framesEnd: Double
    /// The length the file states, in seconds.
    public var stated: Double

    /// "the before clip's frames end at 0:00.733, not at 1.20 s as its file states".
    public var phrase: String {
        String(format: "the %@ clip's frames end at %@, not at %.2f s as its file states", side, VideoDecoder.clipTime(framesEnd), stated)
    }
}
