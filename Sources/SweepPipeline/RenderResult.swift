import Foundation

/// What a render produced.
public struct RenderResult: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The file written (for PNG sequences, the pattern).
    public var output: String
    /// "gif", "h264", "png-sequence", "png", …
    public var format: String
    /// Bytes on disk (all files for a sequence).
    public var bytes: Int
    public var width: Int
    public var height: Int
    /// Frames rendered.
    public var frames: Int
    /// Frames stored in the file (a GIF merges identical neighbours).
    public var framesWritten: Int
    public var fps: Double
    /// Playing time of one pass, in seconds.
    public var duration: Double
    /// Wall-clock seconds the render took.
    public var seconds: Double
    /// Things the render gave up or noticed (e.g. a size made even).
    public var notes: [String]
    /// A GIF's palette size: the visible colours of its global table (a frame's own table,
    /// fitted to the same budget, may hold a few more); nil for other formats.
    public var colors: Int? = nil
    /// What became of the sound: set for every video and for a GIF of clips; nil for stills,
    /// PNG sequences and HTML pages, which never hold sound.
    public var sound: SoundOutcome? = nil
    /// Clips whose frames end before the length their files state (see ``ClipCut``); nil when none does.
    public var cutShort: [ClipCut]? = nil
    /// For a size cap that costs the look (a GIF's colours or frames, a video's rate factor
    /// past where blocks show): the end or size that would keep it (``CapAdvice``); nil otherwise.
    public var capAdvice: CapAdvice? = nil

    /// One line for a log: the file, its kind, size, frames and sound, e.g.
    /// `out.gif: gif, 600×800, 132 frames at 30 fps (4.4 s), 519012 bytes, no sound (…)`.
    public var description: String {
        let rate = String(format: "%.4g", fps), length = String(format: "%.4g", duration)
        var line = "\(output): \(format), \(width)×\(height), \(frames) frames at \(rate) fps (\(length) s), \(bytes) bytes"
        if let sound { line += ", \(sound.phrase)" }
        if !notes.isEmpty { line += "; " + notes.joined(separator: "; ") }
        return line
    }
}
