import SweepImaging
import SweepTimeline

// Looks ease per field (DESIGN §5); the method already exists on Adjustments.
extension Adjustments: Interpolatable {}
