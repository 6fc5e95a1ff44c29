import CFFmpeg

/// Bytes handed to libavformat through a custom AVIOContext, so that the container is
/// recognised from its content (not its name) and a '%' in a file name is never read as
/// an image-sequence pattern.
final class MemoryInput {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// libavformat read callback.
    static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { opaque, buf, size in
        guard let opaque, let buf else { return sweep_averror_eof() }
        let input = Unmanaged<MemoryInput>.fromOpaque(opaque).takeUnretainedValue()
        let n = min(Int(size), input.bytes.count - input.offset)
        if n <= 0 { return sweep_averror_eof() }
        input.bytes.withUnsafeBufferPointer { p in buf.update(from: p.baseAddress! + input.offset, count: n) }
        input.offset += n
        return Int32(n)
    }

    /// libavformat seek callback (AVSEEK_SIZE = 0x10000 asks for the size).
    static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
        guard let opaque else { return -1 }
        let input = Unmanaged<MemoryInput>.fromOpaque(opaque).takeUnretainedValue()
        if whence & 0x10000 != 0 { return Int64(input.bytes.count) }
        let base: Int
        switch whence & 3 {
        case 0: base = 0  // SEEK_SET
        case 1: base = input.offset  // SEEK_CUR
        case 2: base = input.bytes.count  // SEEK_END
        default: return -1
        }
        let target = base + Int(offset)
        guard target >= 0, target <= input.bytes.count else { return -1 }
        input.offset = target
        return Int64(target)
    }
}
