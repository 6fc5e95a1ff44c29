/// Where a render's frames go: a GIF, a video, a PNG sequence or a still.
///
/// A sink owns its output until ``commit()``: it writes every frame of a ``FramePlan``
/// somewhere hidden, reports its size, and only on commit makes the output appear. A sink
/// dropped without a commit leaves nothing behind and keeps any existing output, so the
/// renderer can check flashes and size caps between writing and committing.
protocol FrameSink: ~Copyable {
    /// The format's name in summaries ("gif", "h264", "png-sequence", "jpeg", …).
    var formatName: String { get }
    /// Bytes written so far (all files, for a sequence).
    var bytes: Int { get }
    /// Frames stored (a GIF merges identical neighbours into one).
    var framesWritten: Int { get }
    /// A GIF's palette size (visible colours of its global table); nil for other formats.
    var paletteColors: Int? { get }
    /// The sound a video carries: the input's codec, the file's, and whether it was copied.
    var audioCodecs: (input: String, output: String, copied: Bool)? { get }

    /// Writes every frame of `plan`, showing each finished frame to `observer`.
    mutating func write(_ plan: FramePlan, observer: FrameObserver) throws

    /// Makes the output appear at its destination.
    consuming func commit() throws
}

extension FrameSink where Self: ~Copyable {
    var paletteColors: Int? { nil }
    var audioCodecs: (input: String, output: String, copied: Bool)? { nil }
}
