import SweepSupport

/// This process's share of a batch: job i belongs to shard `i % count == index`.
package struct Shard: Sendable, Equatable {
    /// This shard, 0-based.
    package let index: Int
    /// How many shards there are.
    package let count: Int

    /// Shard `index` of `count`.
    package init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// The most shards a batch is split into. Scheduler variables are strings from the
    /// environment; anything near `Int.max` is a mistake, not a cluster.
    package static let maxCount = 1_000_000

    /// True when job number `i` (0-based) is this shard's.
    package func owns(_ i: Int) -> Bool { i % count == index }

    /// The shard from `--shard K/N`, else from the scheduler's environment: Kubernetes
    /// Indexed Jobs (`JOB_COMPLETION_INDEX`, with `JOB_COMPLETIONS` set from the Job's
    /// `completions`) or Slurm job arrays (`SLURM_ARRAY_TASK_ID` − `SLURM_ARRAY_TASK_MIN`
    /// of `SLURM_ARRAY_TASK_COUNT`). `nil`: run every job.
    package static func resolve(option: String?, environment env: [String: String]) throws -> Shard? {
        func make(_ k: Int?, _ n: Int?, _ source: String) throws -> Shard {
            guard let k, let n, (1...maxCount).contains(n), k >= 0, k < n else {
                throw SweepError(
                    .usage, "shard from \(source) is not K/N with 0 ≤ K < N ≤ \(maxCount)", subject: source,
                    fix: "use e.g. --shard 0/4")
            }
            return Shard(index: k, count: n)
        }
        if let option {
            let parts = option.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw SweepError(.usage, "'\(option)' is not K/N", subject: "--shard", fix: "use e.g. --shard 0/4")
            }
            return try make(Int(parts[0]), Int(parts[1]), "--shard")
        }
        if let k = env["JOB_COMPLETION_INDEX"] {
            return try make(Int(k), env["JOB_COMPLETIONS"].flatMap { Int($0) }, "JOB_COMPLETION_INDEX/JOB_COMPLETIONS")
        }
        if let id = env["SLURM_ARRAY_TASK_ID"] {
            let source = "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"
            var min = 0
            if let text = env["SLURM_ARRAY_TASK_MIN"] {
                guard let m = Int(text) else {
                    throw SweepError(.usage, "SLURM_ARRAY_TASK_MIN is not a whole number", subject: source, fix: "unset it or fix it")
                }
                min = m
            }
            // Checked: an ID near Int.min minus a minimum near Int.max must not trap.
            let k = Int(id).flatMap { id in
                let (d, overflow) = id.subtractingReportingOverflow(min)
                return overflow ? nil : d
            }
            return try make(k, env["SLURM_ARRAY_TASK_COUNT"].flatMap { Int($0) }, source)
        }
        return nil
    }
}
