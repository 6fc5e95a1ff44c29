import CWorker
import Foundation
import SweepImaging
import SweepMedia
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A clip played in a decode worker (``DecodeWorker``): the same decoder as in process, each
/// call run there in order, so frames, frame numbers and errors are the in-process decoder's.
///
/// The worker lives as long as this proxy, in the box of a still's worker (empty folder,
/// limits, system-call filter, nothing open but its input, the channel and the shared
/// memory). Frames cross drawn at the output size, in the form asked for (RGBA rows, or
/// 4:2:0 planes for the fast path), through one shared-memory buffer of the output frame's
/// size, copied once on each side.
///
/// A worker that crashes, is killed, or takes longer than a frame's deadline is a data error
/// naming the file; the worker is killed and every later call fails the same way.
package final class WorkerClipDecoder: ClipDecoder {
    package let path: String
    package private(set) var width: Int
    package private(set) var height: Int
    package private(set) var frameRate: Double
    package private(set) var duration: Double
    package private(set) var hdrTransfer: String?
    package private(set) var statedEnd: (frames: Double, stated: Double)?
    package private(set) var layers = LayeredStream()
    package private(set) var keyFrameTimes: [Double] = []
    package private(set) var frameNumber: Int
    package private(set) var convertsToVideoYUVDirectly: Bool
    package private(set) var drawnArea: (x: Int, y: Int, width: Int, height: Int)?
    /// The worker's process, for tests that kill it part-way.
    package private(set) var workerProcess: pid_t

    /// The socket to the worker.
    private let channel: Int32
    /// The shared memory frames cross in, sized by this side (the worker cannot grow a file).
    private let memory: Int32
    private var mapping: (base: UnsafeMutableRawPointer, bytes: Int)?
    /// The first failure of the worker itself: every later call throws it.
    private var broken: SweepError?
    /// The clip time last asked for, to scale the next advance's deadline.
    private var lastTime = 0.0
    private var buffer = [UInt8](repeating: 0, count: ClipChannel.maxMessage)
    /// What it was opened with, for ``reopened()``.
    private let opening: (animatedWebP: Bool, start: Double, maxPixels: Int, decoderMemory: Int, hdr: HDRHandling, background: RGBA8)

    /// Opens the clip at `path` (of `kind`: a video or animation, or an animated WebP) from
    /// `start` in a worker.
    ///
    /// - Throws: what the decoder throws in process; `.dataError` when the worker crashed or
    ///   ran out of time; `.internalError` when the service is gone.
    package init(
        path: String, animatedWebP: Bool, start: Double, maxPixels: Int, decoderMemory: Int, hdr: HDRHandling, background: RGBA8
    ) throws {
        self.path = path
        opening = (animatedWebP, start, maxPixels, decoderMemory, hdr, background)
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var request = WorkerRequest(
            path: absolute, name: path, fileBytes: FileBytes.size(absolute), maxPixels: maxPixels, background: background, hdr: hdr,
            firstFrame: false)
        request.clip = ClipRequest(animatedWebP: animatedWebP, start: start, decoderMemory: decoderMemory)
        // The decoder's budget, its threads' stacks, and the frames drawn at the output size
        // (within the pixel limit) on top of what a still's worker may take.
        let pixels = min(max(maxPixels, 1), 1 << 32)
        request.addressSpace = (512 << 20) + decoderMemory + pixels * 24 + ProcessInfo.processInfo.activeProcessorCount * (16 << 20)
        request.replyBytes = 0
        memory = sweep_memfd_sealable("sweep-clip")
        guard memory >= 0 else {
            throw SweepError.writeFailed("cannot make the decode worker's shared memory", errno: errno, subject: path)
        }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            let code = errno
            close(memory)
            throw SweepError(.internalError, "cannot reach the decode worker (\(String(cString: strerror(code))))", subject: path)
        }
        channel = pair[0]
        (width, height, frameRate, duration, hdrTransfer, statedEnd, frameNumber, convertsToVideoYUVDirectly, workerProcess) =
            (0, 0, 0, 0, nil, nil, -1, false, 0)
        let reply: Int32
        do {
            reply = try DecodeWorker.start(request, memory: memory, channel: pair[1], input: OpenedFiles.shared.descriptor(of: absolute))
        } catch {
            close(pair[1])
            throw error
        }
        defer { close(reply) }
        close(pair[1])
        // The worker's process comes first; then the clip, opened, within the time a still's
        // worker is given for a file this size (opening scans the file's packets). A channel
        // that ends before it is a worker that never began (the reply says so) or one that died.
        var first = [UInt8](repeating: 0, count: 8)
        guard try wait(seconds: request.seconds, pid: nil) else { throw hang(request.seconds) }
        guard ClipChannel.receive(channel, into: &first) == 4 else { throw DecodeWorker.notStarted(reply, name: path) ?? crashed() }
        workerProcess = first.withUnsafeBytes { $0.load(as: Int32.self) }
        let answer = try receive(seconds: request.seconds)
        if answer.failed { throw error(in: answer) }
        guard let opened = try? JSONDecoder().decode(ClipChannel.Opened.self, from: Data(answer.payload)),
            opened.width > 0, opened.height > 0, !ImageDecoder.exceeds(opened.width, opened.height, maxPixels),
            opened.frameRate.isFinite, opened.frameRate > 0, opened.duration.isFinite, opened.duration >= 0
        else { throw crashed() }  // the worker's word is checked as the file's would be
        (width, height, frameRate, duration, hdrTransfer) =
            (
                opened.width, opened.height, opened.frameRate, opened.duration,
                opened.hdrTransfer.flatMap { ["PQ", "HLG"].contains($0) ? $0 : nil }
            )
        layers = opened.layers?.checked ?? LayeredStream()
        if let frames = opened.statedFrames, let stated = opened.statedLength { statedEnd = (frames, stated) }
        // Ascending times within the clip, as many as a decoder keeps; anything else is dropped.
        if let keys = opened.keyFrames, keys.count <= VideoDecoder.maxKeyFrames,
            zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }), keys.allSatisfy({ $0 >= 0 && $0 <= duration })
        {
            keyFrameTimes = keys
        }
        frameNumber = answer.frameNumber
        convertsToVideoYUVDirectly = answer.convertsYUV
    }

    /// Another worker playing the same clip from its start (to play it again).
    package func reopened() throws -> WorkerClipDecoder {
        let o = opening
        return try WorkerClipDecoder(
            path: path, animatedWebP: o.animatedWebP, start: o.start, maxPixels: o.maxPixels, decoderMemory: o.decoderMemory, hdr: o.hdr,
            background: o.background)
    }

    deinit {
        close(channel)
        close(memory)
        if let mapping { munmap(mapping.base, mapping.bytes) }
    }

    package func expectOutput(width w: Int, height h: Int, fit: FitMode) {
        // A failure here is thrown by the next call, which meets the same broken worker.
        _ = try? call(ClipChannel.Call(op: .expect, width: w, height: h, fit: fit), seconds: Self.baseSeconds)
    }

    package func advance(to t: Double) throws {
        // Every frame from the last time asked for to this one may be decoded on the way.
        let frames = max(0, (t - lastTime) * frameRate) + 2
        lastTime = t
        let seconds = Self.baseSeconds + Int(min(frames * frameSeconds, 1e6))
        try call(ClipChannel.Call(op: .advance, t: t), seconds: seconds)
    }

    package func draw(into image: inout RGBAImage, fit: FitMode) throws {
        let bytes = try mapped(image.width * image.height * 4)
        let answer = try call(
            ClipChannel.Call(op: .drawRGBA, width: image.width, height: image.height, fit: fit, memoryBytes: bytes.count),
            seconds: Self.baseSeconds + Int(frameSeconds))
        let a = answer.area
        guard a.x >= 0, a.y >= 0, a.width >= 0, a.height >= 0, a.x + a.width <= image.width, a.y + a.height <= image.height else {
            throw fail(crashed())
        }
        let stride = image.width * 4
        image.pixels.withUnsafeMutableBytes { dst in
            if a.x == 0 && a.width == image.width {
                (dst.baseAddress! + a.y * stride).copyMemory(from: bytes.baseAddress! + a.y * stride, byteCount: a.height * stride)
            } else {
                for row in a.y..<a.y + a.height {
                    let at = row * stride + a.x * 4
                    (dst.baseAddress! + at).copyMemory(from: bytes.baseAddress! + at, byteCount: a.width * 4)
                }
            }
        }
        drawnArea = a.x == 0 && a.y == 0 && a.width == image.width && a.height == image.height ? nil : a
    }

    package func draw(into image: inout YUVImage, fit: FitMode) throws {
        let bytes = try mapped(image.width * image.height * 4)
        try call(
            ClipChannel.Call(op: .drawYUV, width: image.width, height: image.height, fit: fit, memoryBytes: bytes.count),
            seconds: Self.baseSeconds + Int(frameSeconds))
        var at = 0
        for plane in [\YUVImage.y, \YUVImage.u, \YUVImage.v] {
            image[keyPath: plane].withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: bytes.baseAddress! + at, byteCount: $0.count) }
            at += image[keyPath: plane].count
        }
    }

    /// Seconds every call may take besides its frames: room for a loaded machine.
    private static let baseSeconds = 10

    /// Seconds for one frame: one per megapixel of the clip's picture (an 8K HDR frame decodes
    /// and tone-maps in well under a second on one core).
    private var frameSeconds: Double { max(1, Double(width * height) / 1_000_000) }

    /// The shared memory, grown to at least `bytes` (a whole RGBA output frame, which a
    /// 4:2:0 one fits in too) and mapped here.
    private func mapped(_ bytes: Int) throws -> UnsafeMutableRawBufferPointer {
        if let broken { throw broken }
        if let mapping, mapping.bytes >= bytes { return UnsafeMutableRawBufferPointer(start: mapping.base, count: mapping.bytes) }
        var fileLimit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &fileLimit) == 0, fileLimit.rlim_cur != rlim_t.max,
            bytes > Int(clamping: fileLimit.rlim_cur)
        {
            throw SweepError(
                .ioError, "a frame drawn at the output size does not fit under the file-size limit (ulimit -f)", subject: path,
                fix: "raise the limit")
        }
        // Sealed against shrinking: a worker a crafted clip took over cannot cut the file under
        // this mapping (the copies below would raise SIGBUS here).
        guard ftruncate(memory, off_t(bytes)) == 0, sweep_seal_shrink(memory) == 0 else {
            throw SweepError.writeFailed("cannot size the decode worker's shared memory", errno: errno, subject: path)
        }
        if let mapping { munmap(mapping.base, mapping.bytes) }
        mapping = nil
        guard let base = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0), base != MAP_FAILED else {
            throw SweepError.writeFailed("cannot map the decode worker's shared memory", errno: errno, subject: path)
        }
        mapping = (base, bytes)
        return UnsafeMutableRawBufferPointer(start: base, count: bytes)
    }

    /// Sends `call` and waits at most `seconds` for its answer; the frame on screen follows it.
    @discardableResult
    private func call(_ call: ClipChannel.Call, seconds: Int) throws -> ClipChannel.Answer {
        if let broken { throw broken }
        guard ClipChannel.send(channel, call.encoded()) else { throw fail(crashed()) }
        let answer = try receive(seconds: seconds)
        frameNumber = answer.frameNumber
        convertsToVideoYUVDirectly = answer.convertsYUV
        if answer.failed { throw error(in: answer) }
        return answer
    }

    /// The worker's next answer, within `seconds`.
    private func receive(seconds: Int) throws -> ClipChannel.Answer {
        guard try wait(seconds: seconds, pid: workerProcess) else { throw fail(hang(seconds)) }
        let n = ClipChannel.receive(channel, into: &buffer)
        guard n > 0, let answer = buffer.withUnsafeBytes({ ClipChannel.Answer(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) else {
            throw fail(crashed())
        }
        return answer
    }

    /// Waits until the channel has something to read (an answer, or its end); false when
    /// `seconds` passed first, after killing the worker when its process is known.
    private func wait(seconds: Int, pid: pid_t?) throws -> Bool {
        var ready = pollfd(fd: channel, events: Int16(POLLIN), revents: 0)
        var left = seconds * 1000
        while true {
            let before = Self.milliseconds()
            let r = poll(&ready, 1, Int32(min(left, Int(Int32.max))))
            if r > 0 { return true }
            left -= Self.milliseconds() - before
            if r == 0 || left <= 0 || errno != EINTR { break }
        }
        if let pid, pid > 0 { kill(pid, SIGKILL) }
        return false
    }

    /// The decoder's own error, as the in-process decoder throws it.
    private func error(in answer: ClipChannel.Answer) -> SweepError {
        guard let e = answer.payload.withUnsafeBytes({ WorkerReply.decode($0) }) else { return fail(crashed()) }
        return e.subject == nil ? SweepError(e.code, e.message, subject: path, fix: e.fix, field: e.field) : e
    }

    /// Remembers the worker's failure, so later calls throw it too.
    private func fail(_ e: SweepError) -> SweepError {
        broken = broken ?? e
        return broken!
    }

    private func crashed() -> SweepError {
        SweepError(
            .dataError, "the decoder crashed on a frame of this file (it is malformed or hits a decoder bug); nothing was written",
            subject: path, fix: "re-export it from the original, or give another file")
    }

    private func hang(_ seconds: Int) -> SweepError {
        SweepError(
            .dataError, "the decoder took more than \(seconds) s on a frame of this file and was stopped; nothing was written",
            subject: path, fix: "re-export it from the original, or give another file")
    }

    private static func milliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }
}
