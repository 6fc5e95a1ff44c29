import Foundation
import SweepImaging
import SweepMedia
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The worker side of a ``WorkerClipDecoder``: opens the clip with the decoder sweep plays it
/// with in process, and runs each call the proxy sends on it, in order, so the frames, their
/// numbering and every error are those of the in-process decoder.
///
/// Drawn frames go into the shared memory at the output frame's layout (RGBA rows, or the
/// Y, U and V planes one after another), which the proxy copies into its own frame.
enum ClipWorker {
    /// The frames decoded ahead of the one due next, besides it: a few, so that a frame that
    /// takes long (a key frame) does not stall the render.
    static let aheadFrames = 3

    /// Serves until the proxy closes the channel; runs inside the worker's box.
    static func serve(_ request: WorkerRequest, clip: ClipRequest, memory: Int32, channel: Int32) -> Never {
        // Its process first, so that the proxy can kill it when opening the clip hangs.
        var pid = getpid()
        guard ClipChannel.send(channel, withUnsafeBytes(of: &pid) { Array($0) }) else { _exit(0) }
        var answer = ClipChannel.Answer()
        let background = RGBA8(r: request.background[0], g: request.background[1], b: request.background[2], a: request.background[3])
        let decoder: any ClipDecoder
        do {
            if clip.animatedWebP {
                decoder = try AnimatedWebPDecoder(
                    path: request.path, start: clip.start, background: background, maxPixels: request.maxPixels)
            } else {
                decoder = try VideoDecoder(
                    path: request.path, start: clip.start, maxPixels: request.maxPixels, maxMemory: clip.decoderMemory,
                    hdr: HDRHandling(rawValue: request.hdr) ?? .tonemap)
            }
        } catch {
            answer.failed = true
            answer.payload = WorkerReply.encode(named(error, request))
            _ = ClipChannel.send(channel, answer.encoded())
            _exit(0)
        }
        let opened = ClipChannel.Opened(
            width: decoder.width, height: decoder.height, frameRate: decoder.frameRate, duration: decoder.duration,
            hdrTransfer: decoder.hdrTransfer, statedFrames: decoder.statedEnd?.frames, statedLength: decoder.statedEnd?.stated,
            layers: decoder.layers, keyFrames: decoder.keyFrameTimes)
        answer.payload = (try? JSONEncoder().encode(opened)).map { [UInt8]($0) } ?? []
        answer.frameNumber = decoder.frameNumber
        answer.convertsYUV = decoder.convertsToVideoYUVDirectly
        guard ClipChannel.send(channel, answer.encoded()) else { _exit(0) }
        var mapping: (base: UnsafeMutableRawPointer, bytes: Int)?
        var rgba: RGBAImage?
        var yuv: YUVImage?
        var advances = 0
        // Frames are decoded ahead only once the output's size is known (HDR frames are
        // tone-mapped at it).
        var expected = false
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = ClipChannel.receive(channel, into: &buffer)
            guard n > 0, let call = buffer.withUnsafeBytes({ ClipChannel.Call(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) else {
                _exit(0)
            }
            var reply = ClipChannel.Answer()
            do {
                switch call.op {
                case .expect:
                    decoder.expectOutput(width: call.width, height: call.height, fit: call.fit)
                case .advance:
                    advances += 1
                    injectFault(for: request.path, advances: advances)
                    try decoder.advance(to: call.t)
                case .drawRGBA, .drawYUV:
                    let yuvBytes = call.width * call.height * 3 / 2
                    let need = call.op == .drawRGBA ? call.width * call.height * 4 : yuvBytes
                    guard call.width > 0, call.height > 0, need <= call.memoryBytes else { _exit(71) }
                    if mapping?.bytes != call.memoryBytes {
                        if let m = mapping { munmap(m.base, m.bytes) }
                        guard let base = mmap(nil, call.memoryBytes, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0), base != MAP_FAILED
                        else { _exit(71) }
                        mapping = (base, call.memoryBytes)
                    }
                    let base = mapping!.base
                    if call.op == .drawRGBA {
                        var image =
                            rgba.flatMap { $0.width == call.width && $0.height == call.height ? $0 : nil }
                            ?? RGBAImage(width: call.width, height: call.height)
                        rgba = nil
                        try decoder.draw(into: &image, fit: call.fit)
                        let a = decoder.drawnArea ?? (0, 0, image.width, image.height)
                        guard a.x >= 0, a.y >= 0, a.width >= 0, a.height >= 0, a.x + a.width <= image.width, a.y + a.height <= image.height
                        else { _exit(71) }
                        image.pixels.withUnsafeBytes { src in
                            let stride = image.width * 4
                            for row in a.y..<a.y + a.height {
                                let at = row * stride + a.x * 4
                                (base + at).copyMemory(from: src.baseAddress! + at, byteCount: a.width * 4)
                            }
                        }
                        reply.area = a
                        rgba = image
                    } else {
                        var image =
                            yuv.flatMap { $0.width == call.width && $0.height == call.height ? $0 : nil }
                            ?? YUVImage(width: call.width, height: call.height)
                        yuv = nil
                        try decoder.draw(into: &image, fit: call.fit)
                        guard image.y.count + image.u.count + image.v.count == yuvBytes else { _exit(71) }
                        var at = 0
                        for plane in [image.y, image.u, image.v] {
                            plane.withUnsafeBytes { (base + at).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                            at += plane.count
                        }
                        yuv = image
                    }
                }
            } catch {
                reply.failed = true
                reply.payload = WorkerReply.encode(named(error, request))
            }
            reply.frameNumber = decoder.frameNumber
            reply.convertsYUV = decoder.convertsToVideoYUVDirectly
            guard ClipChannel.send(channel, reply.encoded()) else { _exit(0) }
            if call.op == .expect { expected = true }
            // Until the next call comes, the frames after the one due are decoded: here, on
            // another core, while the render composes and encodes.
            if expected, let video = decoder as? VideoDecoder {
                var next = pollfd(fd: channel, events: Int16(POLLIN), revents: 0)
                while poll(&next, 1, 0) == 0, video.decodeAhead(limit: aheadFrames) {}
            }
        }
    }

    /// The error as the proxy throws it: the user's spelling of the file, not the absolute path
    /// the worker opened.
    private static func named(_ error: any Error, _ r: WorkerRequest) -> SweepError {
        guard let e = error as? SweepError else { return SweepError(.internalError, "\(error)", subject: r.name) }
        return e.subject == r.path ? SweepError(e.code, e.message, subject: r.name, fix: e.fix, field: e.field) : e
    }

    /// Test-only faults part-way through a clip (`SWEEP_TEST_DECODE_FAULT=clip-KIND` or
    /// `clip-KIND@SUFFIX`): at the third frame asked for, `clip-segv` crashes, `clip-kill` is
    /// killed and `clip-hang` never answers.
    private static func injectFault(for path: String, advances: Int) {
        guard advances == 3, let kind = WorkerService.fault(for: path) else { return }
        switch kind {
        case "clip-segv": UnsafeMutablePointer<Int32>(bitPattern: Int(getpid() & 0) | 16)!.pointee = 1
        case "clip-kill": raise(SIGKILL)
        case "clip-hang": while true { pause() }
        default: break
        }
    }
}
