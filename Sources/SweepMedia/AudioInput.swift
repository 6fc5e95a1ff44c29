/// An input's sound to carry into a video: its first audio stream, from `start` seconds
/// (input time) for `duration` seconds.
///
/// Input time counts from the beginning of the file (the container's start time), the same
/// clock a video input's frames are matched on, so output time 0 shows input time `start`.
package struct AudioInput: Sendable, Equatable {
    /// The file whose audio is used.
    package var path: String
    /// Where the output's audio begins, in seconds of input time; 0 or more.
    package var start: Double
    /// How long the output's audio lasts, in seconds; more than 0. The writer also stops at
    /// the end of the last video frame, so a slightly long duration does no harm.
    package var duration: Double

    /// - Parameters:
    ///   - path: the file whose first audio stream is used.
    ///   - start: where to begin, in seconds of input time.
    ///   - duration: how long, in seconds.
    package init(path: String, start: Double = 0, duration: Double) {
        self.path = path
        self.start = start
        self.duration = duration
    }
}
