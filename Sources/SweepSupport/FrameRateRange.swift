/// The frame rates sweep writes and believes, in one place: an output's `--fps`, a format's
/// `fps`, a clip's stated or measured rate. Above 240 a stated rate is a container's timebase
/// rather than a rate (and an hour would be 100 000 frames past the frame limit); below 1 a
/// frame would outlast most animations.
package enum FrameRateRange {
    /// The lowest rate.
    package static let lowest = 1.0
    /// The highest rate.
    package static let highest = 240.0
    /// `lowest...highest`.
    package static let values = lowest...highest
    /// How messages and help write the range: `1…240`.
    package static let text = "\(Int(lowest))…\(Int(highest))"

    /// Whether `rate` is a finite rate in the range.
    package static func contains(_ rate: Double) -> Bool { rate.isFinite && values.contains(rate) }
}
