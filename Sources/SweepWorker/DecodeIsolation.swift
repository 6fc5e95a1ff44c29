/// Where untrusted inputs are decoded.
public enum DecodeIsolation: String, Sendable, CaseIterable {
    /// In a child process with limits and a system-call filter (``DecodeWorker``): a decoder
    /// bug that a crafted file hits ends that child, not the program. The default.
    case worker
    /// In this process: faster to start, for benchmarks and for apps that decode only files
    /// they trust. A decoder crash ends the program.
    case inProcess = "in-process"
}
