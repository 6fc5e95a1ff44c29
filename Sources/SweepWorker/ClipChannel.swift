import Foundation
import SweepImaging
import SweepMedia
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What crosses the socket between a ``WorkerClipDecoder`` and its clip worker: one call of
/// ``ClipDecoder`` each way, as fixed binary fields (a frame's round trip costs microseconds,
/// not a JSON coder's tenths of a millisecond). Pixels go through the shared memory, never
/// the socket.
enum ClipChannel {
    /// The largest message: the header and an error (or the opened clip) as JSON.
    static let maxMessage = 1 << 16
    static let headerBytes = 64

    enum Op: UInt32 {
        case expect = 1, advance, drawRGBA, drawYUV
    }

    /// One call: `t` for advance, the output frame's size and fit for the others, and the
    /// shared memory's size now (the proxy grows it; the worker maps what it is told).
    struct Call {
        var op: Op
        var t = 0.0
        var width = 0
        var height = 0
        var fit = FitMode.fill
        var memoryBytes = 0

        func encoded() -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 48)
            bytes.withUnsafeMutableBytes { b in
                b.storeBytes(of: op.rawValue, toByteOffset: 0, as: UInt32.self)
                b.storeBytes(of: UInt32(FitMode.allCases.firstIndex(of: fit) ?? 0), toByteOffset: 4, as: UInt32.self)
                b.storeBytes(of: t, toByteOffset: 8, as: Double.self)
                b.storeBytes(of: Int64(width), toByteOffset: 16, as: Int64.self)
                b.storeBytes(of: Int64(height), toByteOffset: 24, as: Int64.self)
                b.storeBytes(of: Int64(memoryBytes), toByteOffset: 32, as: Int64.self)
            }
            return bytes
        }

        init(op: Op, t: Double = 0, width: Int = 0, height: Int = 0, fit: FitMode = .fill, memoryBytes: Int = 0) {
            (self.op, self.t, self.width, self.height, self.fit, self.memoryBytes) = (op, t, width, height, fit, memoryBytes)
        }

        /// The call in `bytes`, or nil when they are not one.
        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count == 48, let op = Op(rawValue: bytes.load(fromByteOffset: 0, as: UInt32.self)) else { return nil }
            let fitIndex = Int(bytes.load(fromByteOffset: 4, as: UInt32.self))
            guard fitIndex < FitMode.allCases.count else { return nil }
            self.op = op
            fit = FitMode.allCases[fitIndex]
            t = bytes.load(fromByteOffset: 8, as: Double.self)
            width = Int(bytes.load(fromByteOffset: 16, as: Int64.self))
            height = Int(bytes.load(fromByteOffset: 24, as: Int64.self))
            memoryBytes = Int(bytes.load(fromByteOffset: 32, as: Int64.self))
        }
    }

    /// One answer: the frame on screen after the call, and for an RGBA draw the area of the
    /// output frame it wrote (what lies outside keeps the caller's pixels). `payload` is the
    /// opened clip (``Opened``) or the error, as JSON.
    struct Answer {
        var failed = false
        var frameNumber = -1
        var convertsYUV = false
        var area = (x: 0, y: 0, width: 0, height: 0)
        var payload: [UInt8] = []

        func encoded() -> [UInt8] {
            let body = payload.count <= maxMessage - headerBytes ? payload : []
            var bytes = [UInt8](repeating: 0, count: headerBytes + body.count)
            bytes.withUnsafeMutableBytes { b in
                b.storeBytes(of: UInt32(failed ? 1 : 0), toByteOffset: 0, as: UInt32.self)
                b.storeBytes(of: UInt32(convertsYUV ? 1 : 0), toByteOffset: 4, as: UInt32.self)
                b.storeBytes(of: Int64(frameNumber), toByteOffset: 8, as: Int64.self)
                for (i, v) in [area.x, area.y, area.width, area.height].enumerated() {
                    b.storeBytes(of: Int64(v), toByteOffset: 16 + 8 * i, as: Int64.self)
                }
                b.storeBytes(of: UInt32(body.count), toByteOffset: 48, as: UInt32.self)
                body.withUnsafeBytes { (b.baseAddress! + headerBytes).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            }
            return bytes
        }

        init() {}

        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= headerBytes else { return nil }
            let count = Int(bytes.load(fromByteOffset: 48, as: UInt32.self))
            guard headerBytes + count == bytes.count else { return nil }
            failed = bytes.load(fromByteOffset: 0, as: UInt32.self) != 0
            convertsYUV = bytes.load(fromByteOffset: 4, as: UInt32.self) != 0
            frameNumber = Int(bytes.load(fromByteOffset: 8, as: Int64.self))
            let v = (0..<4).map { Int(bytes.load(fromByteOffset: 16 + 8 * $0, as: Int64.self)) }
            area = (v[0], v[1], v[2], v[3])
            payload = Array(bytes[headerBytes...])
        }
    }

    /// What the worker tells once its decoder is open: the clip's fixed properties.
    struct Opened: Codable {
        var width: Int
        var height: Int
        var frameRate: Double
        var duration: Double
        var hdrTransfer: String?
        var statedFrames: Double?
        var statedLength: Double?
        /// What of a layered stream is drawn (checked on arrival: ``LayeredStream/checked``).
        var layers: LayeredStream?
        /// ``VideoDecoder/keyFrameTimes`` (checked on arrival).
        var keyFrames: [Double]?
    }

    /// Sends one message whole; false when the other end is gone.
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var n = 0
        repeat { n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } } while n < 0 && errno == EINTR
        return n == bytes.count
    }

    /// Receives one message into `buffer`; its length, 0 when the other end is gone.
    static func receive(_ fd: Int32, into buffer: inout [UInt8]) -> Int {
        var n = 0
        repeat { n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } } while n < 0 && errno == EINTR
        return max(n, 0)
    }
}
