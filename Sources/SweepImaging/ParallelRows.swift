import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Splits `0..<count` rows into bands and runs `body` on them across the cores.
///
/// Bands (not single rows) keep the per-task overhead negligible next to the pixel work.
@inlinable
func parallelRows(_ count: Int, minimumRowsPerBand: Int = 16, _ body: @Sendable (Range<Int>) -> Void) {
    let bands = max(1, min(ParallelConfig.bands, count / max(1, minimumRowsPerBand)))
    if bands == 1 { body(0..<count); return }
    DispatchQueue.concurrentPerform(iterations: bands) { b in
        let lo = count * b / bands, hi = count * (b + 1) / bands
        if lo < hi { body(lo..<hi) }
    }
}

/// How many bands parallel pixel loops use: a few per core so that uneven bands balance.
@usableFromInline
enum ParallelConfig {
    @usableFromInline static let bands: Int = {
        #if os(Linux)
            let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #else
            let cores = 4
        #endif
        return max(1, cores) * 2
    }()
}

/// A raw pointer that crosses into `concurrentPerform`.
///
/// Safe because every band writes a disjoint range of rows and the owner outlives the call.
@usableFromInline
struct UnsafeSendablePointer<T>: @unchecked Sendable {
    @usableFromInline let base: UnsafeMutablePointer<T>
    @usableFromInline init(_ base: UnsafeMutablePointer<T>) { self.base = base }
}

/// A read-only raw pointer that crosses into `concurrentPerform`; see ``UnsafeSendablePointer``.
@usableFromInline
struct UnsafeSendableReadPointer<T>: @unchecked Sendable {
    @usableFromInline let base: UnsafePointer<T>
    @usableFromInline init(_ base: UnsafePointer<T>) { self.base = base }
}
