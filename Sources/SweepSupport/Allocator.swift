#if canImport(Glibc)
    import Glibc
#endif

/// glibc's allocator, tuned for a process that renders: `mallopt` and `malloc_trim` are in
/// `<malloc.h>`, which Swift's Glibc module leaves out, so they are looked up by name.
package enum Allocator {
    /// One malloc arena for every thread. A render allocates frames and tables on one thread
    /// and frees them on another (the GIF writer prepares the next frame on the second core);
    /// with an arena per thread glibc kept the freed blocks: 171 MB for a 4 s GIF at 720²,
    /// 198 MB for 120 s. With one arena it stays at about 147 MB, and is no slower.
    package static func useOneArena() {
        #if canImport(Glibc)
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            // M_ARENA_MAX is -8 in <malloc.h>.
            if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") {
                _ = unsafeBitCast(symbol, to: Mallopt.self)(-8, 1)
            }
        #endif
    }

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
