/// Where untrusted inputs are decoded.
public enum DecodeIsolation: String, Sendable, CaseIterable {
    /// In a child process with limits and a system-call filter (``DecodeWorker``): a decoder
    /// bug that a crafted file hits ends that child, not the program. The default; the
    /// service starts by itself on the first decode when `startAtLaunch()` did not start it.
    case worker
    /// In this process: no helper process, for benchmarks and for apps that decode only
    /// files they trust. Unsafe for anything else: a decoder crash ends the program.
    case inProcess = "in-process"
}
