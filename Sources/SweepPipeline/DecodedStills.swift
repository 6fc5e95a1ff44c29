import SweepImaging
import SweepWorker
import Synchronization

/// The still inputs of one capped render, each decoded once and kept at every size an attempt
/// asked for (``RenderSpec/stills``): a size cap renders the same inputs several times, and
/// decoding and resizing them is a tenth of a short render (docs/decisions/size-cap.md).
/// Clips are opened afresh each time: a decoder plays forward, and seeking it back costs what
/// opening does.
///
/// A side is kept as decoding gave it (the same `LoadedSide` result and the same resize), so
/// an attempt's pixels are those of a render that decoded the file itself. Holds each still
/// as decoded (at most ``RenderSpec/maxPixels`` each) and once per size tried, until the
/// capped render ends.
package final class DecodedStills: Sendable {
    /// A still as decoded: its pixels, and the picture's own size when the decode worker
    /// resized it to the render's size.
    typealias Still = (image: RGBAImage, resizedFrom: (width: Int, height: Int)?)
    private struct Opened: Hashable {
        let side: Int
        let target: StillTarget?
    }
    private struct Sized: Hashable {
        let side: Int
        let width: Int
        let height: Int
    }
    private let opened = Mutex<[Opened: Still]>([:])
    private let sized = Mutex<[Sized: RGBAImage]>([:])
    private let openings = Mutex<[Int]>([0, 0])

    package init() {}

    /// How many times side `side` was opened (decoded, or a clip opened): once for a still.
    package func opens(side: Int) -> Int { openings.withLock { $0[side] } }

    /// Side `side` (0 before, 1 after) as `open` decodes it for `target` (nil where the
    /// decode does not depend on it), once; a clip is not kept.
    func side(_ side: Int, target: StillTarget?, open: () throws -> LoadedSide) rethrows -> LoadedSide {
        let key = Opened(side: side, target: target)
        if let still = opened.withLock({ $0[key] }) {
            return still.resizedFrom.map { .resized(still.image, source: $0) } ?? .image(still.image)
        }
        let loaded = try open()
        openings.withLock { $0[side] += 1 }
        switch loaded {
        case let .image(image): opened.withLock { $0[key] = (image, nil) }
        case let .resized(image, source): opened.withLock { $0[key] = (image, source) }
        case .clip: break
        }
        return loaded
    }

    /// Side `side`'s still at `width`×`height` as `resize` makes it, once per size.
    func base(_ side: Int, width: Int, height: Int, resize: () -> RGBAImage) -> RGBAImage {
        let key = Sized(side: side, width: width, height: height)
        if let image = sized.withLock({ $0[key] }) { return image }
        let image = resize()
        sized.withLock { $0[key] = image }
        return image
    }
}
