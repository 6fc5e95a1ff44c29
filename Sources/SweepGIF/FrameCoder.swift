import Dispatch

/// Codes a frame's candidate blocks on its own queue, so that LZW coding (the lossy search
/// above all) runs on a second core while the writer compares and quantizes the next frame.
///
/// Safe to share with the queue: ``start(_:globalTableSize:)`` and ``result()`` are called
/// from the writer's thread only, alternately; the queue touches `lzw` and `coded` only
/// between the two, and ``result()`` waits for it before reading.
final class FrameCoder: @unchecked Sendable {
    private let queue = DispatchQueue(label: "sweep.gif.lzw")
    private let group = DispatchGroup()
    private var lzw = LZWEncoder()
    /// A second coder, for the early-reset pass of a large lone candidate (see ``smallest``).
    private let spare = Pass()

    /// An LZW pass that runs on another thread: its own coder, its data and its stream,
    /// touched by one thread at a time (the caller waits for the pass before reading them).
    final class Pass: @unchecked Sendable {
        var encoder = LZWEncoder()
        var data: [UInt8] = []
        var stream: [UInt8] = []
    }
    private var coded: (block: GIFBlock, stream: [UInt8], symbols: [UInt8])?

    /// Starts coding `candidates` (blocks in file order, each with its latitude).
    func start(_ candidates: [(GIFBlock, LZWLatitude)], globalTableSize: Int) {
        queue.async(group: group) { [self] in
            coded = Self.smallest(candidates, globalTableSize: globalTableSize, lzw: &lzw, spare: spare)
        }
    }

    /// The block to write, its LZW stream, and the symbols a decoder will read, once coded.
    func result() -> (block: GIFBlock, stream: [UInt8], symbols: [UInt8]) {
        group.wait()
        defer { coded = nil }
        return coded!
    }

    /// Pixels from which a lone candidate's two passes run on both cores. The first frame, a
    /// whole picture, is one candidate, and nothing else can run while it is coded: the next
    /// frame's transparency waits for what the lossy coder puts on screen.
    static let parallelPixels = 65536

    /// The candidate that codes smallest as giflib would; then that one is coded again with
    /// early dictionary resets, and the smaller stream is kept. A lone large candidate is
    /// coded both ways at once, on two cores, with the same result.
    static func smallest(
        _ candidates: [(GIFBlock, LZWLatitude)], globalTableSize: Int, lzw: inout LZWEncoder, spare: Pass
    ) -> (block: GIFBlock, stream: [UInt8], symbols: [UInt8]) {
        if candidates.count == 1 && candidates[0].0.data.count >= parallelPixels {
            let (block, latitude) = candidates[0]
            let codeSize = block.codeSize(globalTableSize: globalTableSize)
            var data = block.data
            spare.data = data
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                spare.stream = spare.encoder.encode(
                    &spare.data, minCodeSize: codeSize, policy: .whereCheapest, latitude: latitude)
            }
            let stream = lzw.encode(&data, minCodeSize: codeSize, policy: .whenFull, latitude: latitude)
            group.wait()
            defer { (spare.data, spare.stream) = ([], []) }
            return spare.stream.count < stream.count ? (block, spare.stream, spare.data) : (block, stream, data)
        }
        var best = (block: candidates[0].0, stream: [UInt8](), symbols: [UInt8](), latitude: candidates[0].1)
        var bytes = Int.max
        for (candidate, latitude) in candidates {
            var data = candidate.data
            let s = lzw.encode(
                &data, minCodeSize: candidate.codeSize(globalTableSize: globalTableSize), policy: .whenFull,
                latitude: latitude)
            let b = candidate.fileBytes(stream: s)
            if b < bytes { (best, bytes) = ((candidate, s, data, latitude), b) }
        }
        var data = best.block.data
        let early = lzw.encode(
            &data, minCodeSize: best.block.codeSize(globalTableSize: globalTableSize), policy: .whereCheapest,
            latitude: best.latitude)
        if early.count < best.stream.count { (best.stream, best.symbols) = (early, data) }
        return (best.block, best.stream, best.symbols)
    }
}
