import Synchronization

/// The service's counters, in the Prometheus text format.
package final class ServeMetrics: Sendable {
    /// The render-seconds histogram's upper bounds.
    static let buckets: [Double] = [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600]

    private struct Counts {
        var outcomes: [String: Int] = ["done": 0, "failed": 0, "cancelled": 0]
        var bucketCounts = [Int](repeating: 0, count: ServeMetrics.buckets.count)
        var seconds = 0.0
        var renders = 0
        var bytesOut = 0
        var previews = 0
        var rejected = 0
    }

    private let counts = Mutex(Counts())

    package init() {}

    /// A render ended with `outcome` (done, failed, cancelled) after `seconds`.
    package func rendered(_ outcome: String, seconds: Double) {
        counts.withLock { c in
            c.outcomes[outcome, default: 0] += 1
            c.renders += 1
            c.seconds += seconds
            for (i, bound) in Self.buckets.enumerated() where seconds <= bound { c.bucketCounts[i] += 1 }
        }
    }

    /// A render was deleted before it started: counted as cancelled, outside the time histogram
    /// (it took no render time).
    package func cancelledWaiting() { counts.withLock { $0.outcomes["cancelled", default: 0] += 1 } }

    /// The mean time of the renders ended so far, or nil before the first.
    package var meanSeconds: Double? { counts.withLock { $0.renders > 0 ? $0.seconds / Double($0.renders) : nil } }

    /// `bytes` of output were sent.
    package func sent(_ bytes: Int) { counts.withLock { $0.bytesOut += bytes } }
    /// A preview was rendered.
    package func previewed() { counts.withLock { $0.previews += 1 } }
    /// A submission was refused for a full queue (429).
    package func rejected() { counts.withLock { $0.rejected += 1 } }

    /// The exposition text, with the queue's current `waiting` and `running`.
    package func text(waiting: Int, running: Int) -> String {
        let c = counts.withLock { $0 }
        var lines = [
            "# HELP sweep_queue_length Renders waiting to start.", "# TYPE sweep_queue_length gauge", "sweep_queue_length \(waiting)",
            "# HELP sweep_renders_running Renders running now.", "# TYPE sweep_renders_running gauge", "sweep_renders_running \(running)",
            "# HELP sweep_renders_total Renders ended, by outcome.", "# TYPE sweep_renders_total counter",
        ]
        for (outcome, n) in c.outcomes.sorted(by: { $0.key < $1.key }) { lines.append("sweep_renders_total{outcome=\"\(outcome)\"} \(n)") }
        lines += ["# HELP sweep_render_seconds Time a render took.", "# TYPE sweep_render_seconds histogram"]
        for (i, bound) in Self.buckets.enumerated() {
            lines.append("sweep_render_seconds_bucket{le=\"\(bound)\"} \(c.bucketCounts[i])")
        }
        lines += [
            "sweep_render_seconds_bucket{le=\"+Inf\"} \(c.renders)", "sweep_render_seconds_sum \(c.seconds)",
            "sweep_render_seconds_count \(c.renders)",
            "# HELP sweep_output_bytes_total Bytes of output sent.", "# TYPE sweep_output_bytes_total counter",
            "sweep_output_bytes_total \(c.bytesOut)",
            "# HELP sweep_previews_total Previews rendered.", "# TYPE sweep_previews_total counter", "sweep_previews_total \(c.previews)",
            "# HELP sweep_rejected_total Submissions refused for a full queue.", "# TYPE sweep_rejected_total counter",
            "sweep_rejected_total \(c.rejected)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
