import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// glibc's allocator, tuned for a process that renders: `mallopt` and `malloc_trim` are in
/// `<malloc.h>`, which Swift's Glibc module leaves out, so they are looked up by name.
package enum Allocator {
    /// One malloc arena for every thread. A render allocates frames and tables on one thread
    /// and frees them on another (the GIF writer prepares the next frame on the second core);
    /// with an arena per thread glibc keeps the freed blocks: 171 MB for a 4 s GIF at 720²,
    /// 198 MB for 120 s. With one arena it stays at about 147 MB, and is no slower.
    package static func useOneArena() {
        _ = mallopt.map { $0(-8, 1) }  // M_ARENA_MAX
    }

    /// While one is alive (process-wide), every new large block (128 KiB or more) is a fresh
    /// mapping, zeroed by the kernel, and the pages of blocks freed before each one starts
    /// read as zeros again (`malloc_trim`). libx264 (core 164) reads heap memory it never wrote in its
    /// MB-tree analysis, so with reused blocks its bitstream follows whatever they held: the
    /// demo's MP4 after its GIF differs by a byte in 3 runs of 20 under load, with identical
    /// decoded frames; with this, 60 of 60 are the same (docs/decisions/deterministic-video.md).
    /// A video writer holds one, at no cost in peak memory or speed (a 1080p 8 s MP4:
    /// 557–564 MB, 4.7–5.0 s either way). Not for a whole process: a GIF render, which takes
    /// and frees frame-sized blocks all the time, is 35 % slower on fresh mappings.
    package final class FreshLargeBlocks: Sendable {
        private static let holders = Mutex(0)

        package init() {
            Self.holders.withLock { n in
                if n == 0 { _ = mallopt.map { $0(-3, 128 * 1024) } }  // M_MMAP_THRESHOLD: glibc's first value, fixed
                n += 1
            }
            // Free blocks are still handed out before new mappings: their pages go back. (A
            // render running beside this one still frees blocks into the heap meanwhile: the
            // guarantee is for a writer with no other render at the same time.)
            giveBackFreeMemory()
        }

        deinit {
            Self.holders.withLock { n in
                n -= 1
                // Back to reusing blocks up to glibc's highest dynamic threshold (32 MiB).
                if n == 0 { _ = mallopt.map { $0(-3, 32 * 1024 * 1024) } }
            }
        }
    }

    /// glibc's `mallopt`, found by name.
    private static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? = {
        #if canImport(Glibc)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        #else
            return nil
        #endif
    }()

    /// Gives the pages of freed blocks back to the system. A long-running service calls it
    /// after each render: a render frees tens of megabytes in blocks glibc would otherwise
    /// keep, so resident memory would follow the largest renders seen, not the ones running.
    package static func giveBackFreeMemory() {
        #if canImport(Glibc)
            typealias MallocTrim = @convention(c) (Int) -> Int32
            if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
                _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
            }
        #endif
    }
}
