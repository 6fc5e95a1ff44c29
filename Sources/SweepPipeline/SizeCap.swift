import Foundation
import SweepGIF
import SweepImaging
import SweepMedia
import SweepSupport

/// Fits a render under a byte budget by giving things up one step at a time, each attempt
/// rendered whole and measured before anything is committed.
///
/// - GIF: quality (→ 70 → 55 → 40: more lossy LZW error in texture, the cheapest loss to
///   see, and from 80 down fewer colours for a photo, from 60 down for any picture), then
///   colours (at most half of what the last attempt's palette held, down to 15 and the
///   transparent entry), then frame rate (× 2/3, down to 10 fps), then size (× 0.8, down to
///   160 px on the shorter side).
/// - Video: the CRF, +4 at a time, up to 3 times.
/// - Anything else must fit as it is.
///
/// Every attempt writes to its own hidden temporary output (registered for signal
/// cleanup); only the one that fits is committed, so an existing output is replaced whole
/// or not at all.
struct SizeCap {
    /// The budget in bytes.
    let bytes: Int

    /// An attempt over the budget (internal control flow between an attempt and the ladder).
    private struct OverBudget: Error { let result: RenderResult }

    /// Renders `spec` to `path` within the budget.
    func render(_ spec: RenderSpec, kind: OutputKind, to path: String, progress: Renderer.Progress?) throws -> RenderResult {
        switch kind {
        case .gif: return try gif(spec, to: path, progress: progress)
        case .video: return try video(spec, kind: kind, to: path, progress: progress)
        case .pngSequence, .still, .html:
            var attempt = spec
            attempt.maxBytes = nil
            return try Renderer.renderOnce(
                attempt, kind: kind, to: path, progress: progress,
                accept: { result in
                    guard result.bytes <= bytes else {
                        throw SweepError(
                            .dataError, "the output is \(result.bytes) bytes, over the limit of \(bytes)",
                            subject: path, fix: "use a smaller size or another format")
                    }
                })
        }
    }

    private func gif(_ spec: RenderSpec, to path: String, progress: Renderer.Progress?) throws -> RenderResult {
        let source = try FrameSource(spec: spec)  // fixes the size (and validates the inputs) once
        var first = spec
        first.width = source.width
        first.height = source.height
        if let rate = source.clipRate, spec.clip.followClipRate {
            // Clips set the rate; the ladder lowers it from there.
            first.fps = min(rate, GIFTiming.maxFPS)
            first.clip.followClipRate = false
        }
        var result = try fit(first, kind: .gif, to: path, progress: progress) { attempt, last, smallest in
            let w = attempt.width!, h = attempt.height!
            if attempt.quality > 40 && attempt.lossy == nil {
                let q = attempt.quality > 70 ? 70 : (attempt.quality > 55 ? 55 : 40)
                defer { attempt.quality = q }
                return "quality \(attempt.quality) → \(q)"
            } else if let used = last.colors, used > 20 {
                // Halve what the palette held: quality may already have taken the palette
                // below --colors, and a cap above it would change nothing. (--colors counts
                // the transparent entry; the summary and this note count visible colours.
                // Merged duplicates can leave a palette a few colours short of its cap.)
                let c = max(15, used / 2)
                attempt.gifColors = c + 1
                return "colours \(used) → at most \(c)"
            } else if attempt.fps > 10.5 {
                let f = max(10, (attempt.fps * 2 / 3).rounded())
                defer { attempt.fps = f }
                return String(format: "frame rate %g → %g fps", attempt.fps, f)
            } else if min(w, h) > 160 {
                // × 0.8, but the shorter side no smaller than 160 px.
                let scale = max(0.8, 160 / Double(min(w, h)))
                let nw = max(2, Int((Double(w) * scale).rounded())), nh = max(2, Int((Double(h) * scale).rounded()))
                attempt.width = nw
                attempt.height = nh
                return "size \(w)x\(h) → \(nw)x\(nh)"
            }
            throw SweepError(
                .dataError, "cannot fit under \(bytes) bytes; the smallest attempt was \(smallest) bytes",
                subject: path, fix: "raise the byte limit, or shorten the animation")
        }
        if let note = Renderer.fittedNote(spec, source) { result.notes.insert(note, at: 0) }
        return result
    }

    private func video(_ spec: RenderSpec, kind: OutputKind, to path: String, progress: Renderer.Progress?) throws -> RenderResult {
        guard case let .video(codec, _) = kind else { preconditionFailure("not a video") }
        let codecCRF = codec.defaults.first { $0.0 == "crf" }.flatMap { Int($0.1) }
        var steps = 0
        return try fit(spec, kind: kind, to: path, progress: progress) { attempt, lastResult, _ in
            let last = lastResult.bytes
            let current = attempt.videoOptions.last(where: { $0.0 == "crf" }).flatMap { Int($0.1) } ?? codecCRF
            guard steps < 3, let crf = current, codecCRF != nil else {
                throw SweepError(
                    .dataError, "the video is \(last) bytes, over the limit of \(bytes)", subject: path,
                    fix: "shorten it, lower the size or frame rate, or raise the CRF")
            }
            steps += 1
            attempt.videoOptions.removeAll { $0.0 == "crf" }
            attempt.videoOptions.append(("crf", String(crf + 4)))
            return "CRF \(crf) → \(crf + 4)"
        }
    }

    /// Renders attempts until one fits. `degrade` changes the attempt (given the last
    /// attempt's result and the smallest attempt's bytes) and says what it gave up, or
    /// throws when nothing is left to give.
    private func fit(
        _ spec: RenderSpec, kind: OutputKind, to path: String, progress: Renderer.Progress?,
        degrade: (inout RenderSpec, RenderResult, Int) throws -> String
    ) throws -> RenderResult {
        let start = Date()
        var attempt = spec
        attempt.maxBytes = nil
        var gaveUp: [String] = []
        var smallest = Int.max
        while true {
            do {
                var result = try Renderer.renderOnce(
                    attempt, kind: kind, to: path, progress: progress,
                    accept: { result in
                        smallest = min(smallest, result.bytes)
                        if result.bytes > bytes { throw OverBudget(result: result) }
                    })
                if !gaveUp.isEmpty { result.notes.append("to fit under \(bytes) bytes: " + gaveUp.joined(separator: ", ")) }
                result.seconds = Date().timeIntervalSince(start)
                return result
            } catch let over as OverBudget {
                gaveUp.append(try degrade(&attempt, over.result, smallest))
            }
        }
    }
}
