#if canImport(Glibc)
    import Glibc
#endif

/// The number of cores, for default parallelism.
package enum ParallelCores {
    package static let count = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
}
