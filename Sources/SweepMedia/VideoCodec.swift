/// A video output format: encoder, pixel format and default settings.
package struct VideoCodec: Sendable, Equatable {
    /// Short name used by `--codec` (h264, hevc, vp9, webp, apng, prores).
    package let name: String
    /// libavcodec encoder name.
    package let encoder: String
    /// Pixel format the encoder gets.
    package let pixelFormat: String
    /// Pixel format when the frames have transparency, if the codec can carry it.
    package let alphaPixelFormat: String?
    /// Default encoder options; user options override them.
    package let defaults: [(String, String)]
    /// Default muxer options.
    package let muxerOptions: [(String, String)]
    /// The codec tag to force (HEVC in MP4 needs `hvc1` for Apple players).
    package let tag: String?
    /// The container used when the extension does not decide.
    package let container: String

    /// The file extension of ``container`` (`.mkv` for Matroska): the one rule from codec to
    /// file name, for an output named without one and for messages.
    package var fileExtension: String { container == "matroska" ? "mkv" : container }
    /// Containers this codec may go into.
    package let containers: [String]

    package static func == (a: VideoCodec, b: VideoCodec) -> Bool { a.name == b.name }

    /// True for RGB formats (no Y′CbCr matrix, nothing to tag).
    package var isRGB: Bool { pixelFormat.hasPrefix("rgb") }

    /// H.264 High: CRF 20, preset medium, yuv420p, `+faststart` in MP4; the default.
    package static let h264 = VideoCodec(
        name: "h264", encoder: "libx264", pixelFormat: "yuv420p", alphaPixelFormat: nil,
        defaults: [("crf", "20"), ("preset", "medium"), ("profile", "high")],
        muxerOptions: [("movflags", "+faststart")], tag: nil, container: "mp4",
        containers: ["mp4", "mov", "matroska"])
    /// HEVC Main (libx265), tagged `hvc1` so that Apple players play it.
    package static let hevc = VideoCodec(
        name: "hevc", encoder: "libx265", pixelFormat: "yuv420p", alphaPixelFormat: nil,
        defaults: [("crf", "22"), ("preset", "medium"), ("x265-params", "log-level=error")],
        muxerOptions: [("movflags", "+faststart")], tag: "hvc1", container: "mp4",
        containers: ["mp4", "mov", "matroska"])
    /// VP9 in WebM at constant quality (crf with b=0), row-based multithreading; carries
    /// alpha when the background is transparent.
    package static let vp9 = VideoCodec(
        name: "vp9", encoder: "libvpx-vp9", pixelFormat: "yuv420p", alphaPixelFormat: "yuva420p",
        defaults: [("crf", "32"), ("b", "0"), ("row-mt", "1"), ("deadline", "good"), ("cpu-used", "2")],
        muxerOptions: [], tag: nil, container: "webm", containers: ["webm", "matroska"])
    /// Animated WebP, looping forever by default.
    package static let webp = VideoCodec(
        name: "webp", encoder: "libwebp_anim", pixelFormat: "yuv420p", alphaPixelFormat: "yuva420p",
        defaults: [("quality", "80")], muxerOptions: [("loop", "0")], tag: nil,
        container: "webp", containers: ["webp"])
    /// Animated PNG, lossless, looping forever by default.
    package static let apng = VideoCodec(
        name: "apng", encoder: "apng", pixelFormat: "rgb24", alphaPixelFormat: "rgba",
        defaults: [], muxerOptions: [("plays", "0")], tag: nil, container: "apng",
        containers: ["apng"])
    /// ProRes 422 HQ in QuickTime, for video editors.
    package static let prores = VideoCodec(
        name: "prores", encoder: "prores_ks", pixelFormat: "yuv422p10le", alphaPixelFormat: nil,
        defaults: [("profile", "3"), ("vendor", "apl0")], muxerOptions: [], tag: nil,
        container: "mov", containers: ["mov"])

    /// Every codec, by `--codec` name.
    package static let all: [VideoCodec] = [.h264, .hevc, .vp9, .webp, .apng, .prores]

    /// The codec called `name`.
    package static func named(_ name: String) -> VideoCodec? { all.first { $0.name == name } }

    /// The container (libavformat muxer) for an output extension.
    package static func container(forExtension ext: String) -> String? {
        switch ext.lowercased() {
        case "mp4", "m4v": "mp4"
        case "mov": "mov"
        case "mkv": "matroska"
        case "webm": "webm"
        case "webp": "webp"
        case "apng": "apng"
        default: nil
        }
    }

    /// True when `container` (a libavformat muxer name) can carry sound, by ``AudioTrack``'s rule.
    package static func holdsSound(_ container: String) -> Bool { AudioTrack.encoderNames[container] != nil }

    /// The default codec for a container. A `.mov` is what phones write, H.264 (ProRes,
    /// 16 times the size, only when asked for).
    package static func forContainer(_ container: String) -> VideoCodec? {
        switch container {
        case "mp4", "matroska", "mov": .h264
        case "webm": .vp9
        case "webp": .webp
        case "apng": .apng
        default: nil
        }
    }

    /// Picks the codec for an output file extension.
    package static func forExtension(_ ext: String) -> VideoCodec? { container(forExtension: ext).flatMap(forContainer) }
}
