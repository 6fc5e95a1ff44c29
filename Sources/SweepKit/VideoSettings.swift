/// How a video is encoded.
public struct VideoSettings: Sendable, Equatable {
    /// The encoder's constant rate factor: lower is better and larger (H.264 and HEVC
    /// 0…51, VP9 0…63); nil keeps the codec's default.
    public var crf: Int?
    /// `h264`, `hevc`, `vp9`, `webp`, `apng`, `prores` or `gif`; nil follows the file's
    /// extension (.mp4, .mov and .mkv are H.264, .webm VP9; ProRes only when named).
    public var codec: String?

    /// Settings with the given rate factor and codec.
    public init(crf: Int? = nil, codec: String? = nil) {
        self.crf = crf
        self.codec = codec
    }
}
