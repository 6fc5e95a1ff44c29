import Dispatch
import SweepImaging
import SweepSupport

/// Prepares the next frame on another core while ``GIFWriter`` quantizes the one before it:
/// what changed against the previous frame, and, for a band of changes, a table fitted to it
/// and how well the global palette fits it.
///
/// None of this depends on what the writer decided for earlier frames, so it can run a frame
/// ahead; the choices that do (the local table in use, the stretch's palette) stay with the
/// writer. Fitting a band's table is the largest part of a wipe's per-frame time: done on
/// the writer's thread, that thread would always be busy while the second core waited.
///
/// ``start(_:previous:)`` and ``result()`` are called from the writer's thread only,
/// alternately; between the two, the global mapper belongs to the queue (a ``Pending``
/// hand-off). Each mapper made on the queue is handed over with the frame and not touched by
/// the queue again.
final class FramePreparer {
    /// A frame with its changes measured.
    struct Prepared {
        let frame: RGBAImage
        /// The changed pixels' bounding rectangle (the whole frame for the first one).
        let rect: PixelRect
        /// Which pixels changed; nil for the first frame, where all of them are new.
        let changed: [Bool]?
        /// How many pixels changed.
        let count: Int
        /// What choosing the frame's palette needs, for a changed frame of a fitted palette.
        let band: Band?
    }

    /// A changed frame's sample, and the candidates that do not depend on earlier frames.
    struct Band {
        /// About 20 000 changed pixels, as RGBA bytes (``FrameChanges/sample(_:rect:changed:width:count:)``).
        let sample: [UInt8]
        /// The global palette's mean error on the sample.
        let globalError: Double
        /// The share of the sample that is textured (``FrameChanges/sample(_:rect:changed:width:count:)``).
        let texturedShare: Double
        /// A table fitted to the changes, its error, and the share of the best error it must
        /// come under to be taken (infinity: unless that error is already 0).
        let fresh: (mapper: PaletteMapper, error: Double, share: Double)?
    }

    private let queue = DispatchQueue(label: "sweep.gif.prepare")
    private var preparing: Pending<Prepared, Never>?
    /// The global palette's own mapper for this queue (the writer's is used on its thread).
    private let global: PaletteMapper
    private let width: Int
    private let height: Int
    private let overlayColors: [RGBA8]
    private let quality: GIFQuality

    init(palette: GIFPalette, width: Int, height: Int, overlayColors: [RGBA8], quality: GIFQuality) {
        global = PaletteMapper(palette: palette)
        self.width = width
        self.height = height
        self.overlayColors = overlayColors
        self.quality = quality
    }

    /// Starts preparing `frame`, compared with `previous` (nil for the first frame).
    func start(_ frame: RGBAImage, previous: [UInt8]?) {
        preparing = Pending(on: queue) { [self] in prepare(frame, previous: previous) }
    }

    /// The frame given to the last ``start(_:previous:)``, once prepared.
    func result() -> Prepared {
        defer { preparing = nil }
        return preparing!.value()
    }

    private func prepare(_ frame: RGBAImage, previous: [UInt8]?) -> Prepared {
        guard let previous else {
            return Prepared(
                frame: frame, rect: PixelRect(x: 0, y: 0, width: width, height: height), changed: nil, count: width * height,
                band: nil)
        }
        var changed = [Bool](repeating: false, count: width * height)
        let (rect, count) = FrameChanges.diff(previous, frame.pixels, width: width, height: height, marks: &changed)
        let band = rect.isEmpty || global.palette.isExact ? nil : fit(frame, rect: rect, changed: changed, count: count)
        return Prepared(frame: frame, rect: rect, changed: changed, count: count, band: band)
    }

    /// The sample of a frame's changes and the table fitted to them, as ``GIFWriter`` chooses
    /// among them (see its `choosePalette`):
    /// - a change over 40 % of the picture (looks changing) gets a full table, taken when it
    ///   cuts the error by 85 %;
    /// - a band mostly smooth gets ``GIFWriter/smoothBandEntries`` from quality 70, taken when
    ///   they cut the error by a fifth;
    /// - a textured band gets as many entries as the global palette spends on it, always.
    private func fit(_ frame: RGBAImage, rect: PixelRect, changed: [Bool], count: Int) -> Band? {
        let (sample, texturedShare) = FrameChanges.sample(frame, rect: rect, changed: changed, width: width, count: count)
        guard sample.count >= 4 else { return nil }
        // No band's table has more entries than the global palette, which holds at most the
        // `--colors` asked for.
        let most = global.palette.colors.count + 1
        var fresh: (PaletteMapper, Double, Double)?
        func fit(entries: Int, share: Double, to limit: Int? = nil) {
            // A few thousand pixels place a small table's entries as well as all of them
            // would: fitting is the costly part, checking the fit is not.
            let step = limit.map { max(1, sample.count / 4 / $0) } ?? 1
            let pixels = step == 1 ? sample : stride(from: 0, to: sample.count, by: 4 * step).flatMap { sample[$0..<($0 + 4)] }
            let row = RGBAImage(width: pixels.count / 4, height: 1, pixels: pixels)
            let mapper = PaletteMapper(
                palette: GIFPalette.build(samples: [(row, 1)], count: entries, reserved: overlayColors, transparent: true))
            fresh = (mapper, FrameChanges.meanError(mapper, sample), share)
        }
        if count * 5 >= width * height * 2 {
            fit(entries: most, share: 0.15)
        } else if texturedShare < GIFWriter.bandTextureShare {
            if quality.allowsOwnTables { fit(entries: min(most, GIFWriter.smoothBandEntries), share: 0.8, to: GIFWriter.bandTableSamples) }
        } else {
            let usage = global.usage(of: sample)
            let entries = StretchPalettes.tableEntries(usage: usage, reserved: overlayColors.count, quality: quality)
            fit(entries: min(most, entries), share: .infinity, to: GIFWriter.bandTableSamples)
        }
        return Band(sample: sample, globalError: FrameChanges.meanError(global, sample), texturedShare: texturedShare, fresh: fresh)
    }
}
