/// What a render produced.
public struct RenderResult: Sendable, Equatable, Codable {
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
}
