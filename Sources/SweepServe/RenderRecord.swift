import Foundation
import SweepPipeline

/// What the service knows about one render: written beside its files (`record.json`), so that
/// a restart finds it, and held in memory only while the render is queued or running.
package struct RenderRecord: Sendable, Codable, Equatable {
    /// Where a render stands.
    package enum State: String, Sendable, Codable {
        case queued, running, done, failed
        /// True once nothing more will happen to it.
        package var isFinal: Bool { self == .done || self == .failed }
    }

    package var id: String
    package var state: State
    /// 0…1, across every attempt of a size cap.
    package var progress: Double = 0
    /// The output's bare file name.
    package var output: String
    package var notes: [String] = []
    /// The render's summary (its output named by the bare name), once done.
    package var summary: RenderResult?
    /// The CLI's error line and exit code, once failed.
    package var error: String?
    package var exit: Int?
    /// The output's ETag (a hash of its bytes), once done.
    package var etag: String?
    /// Seconds since 1970 when it was submitted and when it ended.
    package var created: Double
    package var finished: Double?

    package init(id: String, output: String, created: Double = Date().timeIntervalSince1970) {
        (self.id, self.state, self.output, self.created) = (id, .queued, output, created)
    }

    /// The JSON the API answers with.
    package var json: [String: Any] {
        var j: [String: Any] = [
            "id": id, "state": state.rawValue, "progress": (progress * 1000).rounded() / 1000, "notes": notes, "output": output,
        ]
        if let summary, let data = try? JSONEncoder().encode(summary), let object = try? JSONSerialization.jsonObject(with: data) {
            j["summary"] = object
        }
        if let error { j["error"] = error }
        if let exit { j["exit"] = exit }
        return j
    }
}
