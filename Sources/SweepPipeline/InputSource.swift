import SweepImaging

/// Where one side's picture comes from.
package enum InputSource: Sendable, Equatable {
    /// An image file (decoded by content, not by name).
    case file(String)
    /// Pixels already in memory.
    case image(RGBAImage)

    /// A short name for messages.
    package var label: String {
        switch self {
        case let .file(p): p
        case let .image(i): "<image \(i.width)×\(i.height)>"
        }
    }
}
