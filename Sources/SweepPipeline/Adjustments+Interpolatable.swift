import SweepImaging
import SweepTimeline

// Looks ease per field (docs/REFERENCE.md §timeline); the method already exists on Adjustments.
extension Adjustments: Interpolatable {}
