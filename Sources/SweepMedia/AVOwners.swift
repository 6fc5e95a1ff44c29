import CFFmpeg
import SweepSupport

/// Owns one AVFrame; freed in deinit.
final class FrameHandle {
    let ptr: UnsafeMutablePointer<AVFrame>
    init() throws {
        guard let p = av_frame_alloc() else { throw SweepError(.internalError, "out of memory allocating a frame") }
        ptr = p
    }
    deinit { var p: UnsafeMutablePointer<AVFrame>? = ptr; av_frame_free(&p) }
}

/// Owns one AVPacket; freed in deinit.
final class PacketHandle {
    let ptr: UnsafeMutablePointer<AVPacket>
    init() throws {
        guard let p = av_packet_alloc() else { throw SweepError(.internalError, "out of memory allocating a packet") }
        ptr = p
    }
    deinit { var p: UnsafeMutablePointer<AVPacket>? = ptr; av_packet_free(&p) }
}

/// Owns one AVCodecContext; freed in deinit.
final class CodecContextHandle {
    let ptr: UnsafeMutablePointer<AVCodecContext>
    init(codec: UnsafePointer<AVCodec>) throws {
        guard let p = avcodec_alloc_context3(codec) else { throw SweepError(.internalError, "out of memory allocating a codec") }
        ptr = p
    }
    deinit { var p: UnsafeMutablePointer<AVCodecContext>? = ptr; avcodec_free_context(&p) }
}

/// Owns one swscale context; freed in deinit.
final class ScalerHandle {
    let ptr: OpaquePointer
    init(_ p: OpaquePointer) { ptr = p }
    deinit { sws_freeContext(ptr) }

    /// Converts a packed picture (one plane, `stride` bytes a row) into `frame`'s planes.
    func scale(packed: UnsafePointer<UInt8>, stride: Int, height: Int, into frame: UnsafeMutablePointer<AVFrame>) {
        var src: [UnsafePointer<UInt8>?] = [packed, nil, nil, nil]
        var strides: [Int32] = [Int32(stride), 0, 0, 0]
        withUnsafeMutablePointer(to: &frame.pointee.data) { d in
            d.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { data in
                withUnsafePointer(to: &frame.pointee.linesize) { l in
                    l.withMemoryRebound(to: Int32.self, capacity: 8) { ls in
                        _ = sws_scale(ptr, &src, &strides, 0, Int32(height), data, ls)
                    }
                }
            }
        }
    }

    /// Converts `frame`'s planes into a packed picture (one plane, `stride` bytes a row).
    func scale(frame: UnsafeMutablePointer<AVFrame>, height: Int, into packed: UnsafeMutablePointer<UInt8>, stride: Int) {
        var dst: [UnsafeMutablePointer<UInt8>?] = [packed, nil, nil, nil]
        var strides: [Int32] = [Int32(stride), 0, 0, 0]
        withUnsafePointer(to: &frame.pointee.data) { d in
            d.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { data in
                withUnsafePointer(to: &frame.pointee.linesize) { l in
                    l.withMemoryRebound(to: Int32.self, capacity: 8) { ls in
                        _ = sws_scale(ptr, data, ls, 0, Int32(height), &dst, &strides)
                    }
                }
            }
        }
    }
}

/// An AVDictionary of options; freed in deinit.
final class DictionaryHandle {
    var ptr: OpaquePointer?
    init(_ entries: [(String, String)] = []) {
        for (k, v) in entries { av_dict_set(&ptr, k, v, 0) }
    }
    func set(_ key: String, _ value: String) { av_dict_set(&ptr, key, value, 0) }
    /// The keys still in the dictionary: after an open call, the options nobody took.
    var keys: [String] {
        var out: [String] = []
        var e: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(ptr, "", e, AV_DICT_IGNORE_SUFFIX) {
            out.append(String(cString: next.pointee.key))
            e = next
        }
        return out
    }
    deinit { av_dict_free(&ptr) }
}
