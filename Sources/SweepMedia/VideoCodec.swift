/// A video output format: container plus encoder.
public struct VideoCodec: Sendable, Equatable {
    /// Short name used by `--codec` (h264, hevc, vp9, webp, apng, prores).
    public let name: String
    /// libavformat muxer name.
    public let muxer: String
    /// libavcodec encoder name.
    public let encoder: String
    /// Pixel format the encoder gets.
    public let pixelFormat: String
    /// Default encoder options (crf, preset, …); user options override them.
    public let defaults: [(String, String)]
    /// Default muxer options.
    public let muxerOptions: [(String, String)]
    /// The codec tag to force (HEVC in MP4 needs `hvc1` for Apple players).
    public let tag: String?

    public static func == (a: VideoCodec, b: VideoCodec) -> Bool { a.name == b.name && a.muxer == b.muxer }

    /// H.264 High in MP4: CRF 20, preset medium, yuv420p, +faststart.
    public static let h264 = VideoCodec(name: "h264", muxer: "mp4", encoder: "libx264", pixelFormat: "yuv420p",
                                        defaults: [("crf", "20"), ("preset", "medium"), ("profile", "high")],
                                        muxerOptions: [("movflags", "+faststart")], tag: nil)

    /// Picks the codec for an output file extension.
    public static func forExtension(_ ext: String) -> VideoCodec? {
        switch ext.lowercased() {
        case "mp4", "m4v": return .h264
        default: return nil
        }
    }
}
