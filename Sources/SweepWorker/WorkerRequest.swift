import SweepImaging
import SweepMedia

/// One decode asked of the worker service: the file, its limits, and how to show it.
struct WorkerRequest: Codable, Sendable {
    /// Absolute, since the worker runs in an empty folder.
    var path: String
    /// The user's spelling, for messages.
    var name: String
    var maxPixels: Int
    var background: [UInt8]
    var hdr: String
    /// Animations are wanted as their first frame (a still), not as clips.
    var firstFrame: Bool
    /// The size to resize a still to, when the render knows it already.
    var target: StillTarget?
    /// Wall-clock and CPU seconds before the worker is killed.
    var seconds: Int
    /// The address space the worker may map beyond what it has at the start, in bytes.
    var addressSpace: Int
    /// The shared-memory file's size: the reply header plus the largest picture allowed.
    var replyBytes: Int
    /// Set when the worker is to play the file as a clip for a ``WorkerClipDecoder``.
    var clip: ClipRequest?

    /// The limits for `path`: time in proportion to the file's size, memory to the pixel limit.
    init(path: String, name: String, fileBytes: Int, maxPixels: Int, background: RGBA8, hdr: HDRHandling, firstFrame: Bool) {
        self.path = path
        self.name = name
        self.maxPixels = maxPixels
        self.background = [background.r, background.g, background.b, background.a]
        self.hdr = hdr.rawValue
        self.firstFrame = firstFrame
        // A 12 MP JPEG decodes in a fraction of a second and a 48 MP HEIC in about two;
        // 10 s plus 4 s per megabyte leaves room on a slow machine and still ends a hang.
        seconds = 10 + min(fileBytes >> 20, 1 << 20) * 4
        let pixels = min(max(maxPixels, 1), 1 << 32)
        replyBytes = WorkerReply.headerBytes + pixels * 4
        // Decoders hold the file, their planes and a few copies of the picture, and their
        // threads' stacks; 512 MiB covers the rest.
        addressSpace = (512 << 20) + pixels * 24 + replyBytes
    }
}

/// How a clip worker opens its clip (``WorkerClipDecoder``).
struct ClipRequest: Codable, Sendable {
    /// Which decoder plays it.
    var animatedWebP: Bool
    /// Seconds into the clip where it begins.
    var start: Double
    /// The bytes the video decoder may take (``DecoderMemory``).
    var decoderMemory: Int
}
