import Dispatch
import SweepSupport

/// Codes a frame's candidate blocks on its own queue, so that LZW coding (the lossy search
/// above all) runs on a second core while the writer compares and quantizes the next frame.
///
/// ``start(_:globalTableSize:early:)`` and ``result()`` are called from the writer's thread only,
/// alternately; between the two, the coders belong to the queue (a ``Pending`` hand-off).
final class FrameCoder {
    /// The block to write, its LZW stream, the symbols a decoder will read, and whether the
    /// stream is the early-reset pass's (``LZWEncoder/Policy/whereCheapest``).
    typealias Coded = (block: GIFBlock, stream: [UInt8], symbols: [UInt8], early: Bool)
    private let queue = DispatchQueue(label: "sweep.gif.lzw")
    /// The coder of every candidate, and a second one for the early-reset pass of a large
    /// lone candidate (see ``smallest(_:globalTableSize:passes:early:)``).
    private let passes = (Pass(), Pass())
    private var coding: Pending<Coded, Never>?

    /// An LZW coder with its data and its stream, used by one thread at a time: the one that
    /// runs the pass, then, after waiting for it, the one that reads the result.
    final class Pass {
        /// Made on first use: the second pass may never be needed. (Not a `lazy var`: a
        /// mutating call through one copies the coder's 2 MB table out and back each time.)
        private var encoder: LZWEncoder?
        var data: [UInt8] = []
        var stream: [UInt8] = []

        /// ``LZWEncoder/encode(_:minCodeSize:policy:latitude:)`` with this pass's coder.
        func encode(
            _ symbols: inout [UInt8], minCodeSize: Int, policy: LZWEncoder.Policy, latitude: LZWLatitude?
        ) -> [UInt8] {
            if encoder == nil { encoder = LZWEncoder() }
            return encoder!.encode(&symbols, minCodeSize: minCodeSize, policy: policy, latitude: latitude)
        }
    }

    /// Starts coding `candidates` (blocks in file order, each with its latitude); without
    /// `early`, the early-reset pass is not run.
    func start(_ candidates: [(GIFBlock, LZWLatitude?)], globalTableSize: Int, early: Bool = true) {
        let passes = passes
        coding = Pending(on: queue) { Self.smallest(candidates, globalTableSize: globalTableSize, passes: passes, early: early) }
    }

    /// The frame as coded (see ``Coded``), once coded.
    func result() -> Coded {
        defer { coding = nil }
        return coding!.value()
    }

    /// Pixels from which a lone candidate's two passes run on both cores. A lone candidate
    /// is a frame with a table of its own, or the first frame: a whole picture, and nothing
    /// else can run while it is coded, since the next frame's transparency waits for what
    /// the lossy coder puts on screen.
    static let parallelPixels = 65536

    /// The candidate that codes smallest as giflib would; then, when `early`, that one is
    /// coded again with early dictionary resets, and the smaller stream is kept. A lone large
    /// candidate is coded both ways at once, with the same result (``Pending/both(_:_:)``: the
    /// calling thread runs one of the two passes itself, and both when the pool has no thread
    /// to give).
    static func smallest(
        _ candidates: [(GIFBlock, LZWLatitude?)], globalTableSize: Int, passes: (Pass, Pass), early runsEarly: Bool = true
    ) -> Coded {
        if runsEarly && candidates.count == 1 && candidates[0].0.data.count >= parallelPixels {
            let (block, latitude) = candidates[0]
            let codeSize = block.codeSize(globalTableSize: globalTableSize)
            let (full, early) = passes
            (full.data, early.data) = (block.data, block.data)
            func run(_ pass: Pass, _ policy: LZWEncoder.Policy) {
                pass.stream = pass.encode(&pass.data, minCodeSize: codeSize, policy: policy, latitude: latitude)
            }
            _ = try? Pending.both({ run(full, .whenFull) }, { run(early, .whereCheapest) })
            defer { (full.data, full.stream, early.data, early.stream) = ([], [], [], []) }
            return early.stream.count < full.stream.count
                ? (block, early.stream, early.data, true) : (block, full.stream, full.data, false)
        }
        let lzw = passes.0
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
        guard runsEarly else { return (best.block, best.stream, best.symbols, false) }
        var data = best.block.data
        let early = lzw.encode(
            &data, minCodeSize: best.block.codeSize(globalTableSize: globalTableSize), policy: .whereCheapest,
            latitude: best.latitude)
        if early.count < best.stream.count { return (best.block, early, data, true) }
        return (best.block, best.stream, best.symbols, false)
    }
}
