import Synchronization

/// Set from another thread to stop a render at its next frame (``RenderSpec/cancellation``):
/// the render throws `CancellationError` and, like any failed render, leaves nothing behind.
package final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    /// Asks the render to stop.
    package func cancel() { flag.store(true, ordering: .relaxed) }

    /// True once ``cancel()`` was called.
    package var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
