import SweepImaging

/// The size a still is shown at, when known before decoding: the worker then resizes it,
/// so that only output-size pixels cross back (a 12 MP picture is 48 MB to move twice).
package struct StillTarget: Codable, Sendable, Hashable {
    package var width: Int
    package var height: Int
    package var fit: FitMode

    package init(width: Int, height: Int, fit: FitMode) {
        (self.width, self.height, self.fit) = (width, height, fit)
    }
}
