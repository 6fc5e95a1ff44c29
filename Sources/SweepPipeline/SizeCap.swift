import Foundation
import SweepGIF
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTimeline
import Synchronization

/// Fits a render under a byte budget by giving things up one step at a time, each attempt
/// measured before anything is committed (a GIF attempt stops as soon as it is over).
///
/// - GIF: quality first (more lossy LZW error in texture, the cheapest loss to see, and from
///   80 down fewer colours for a photo, from 60 down for any picture), searched down to 40
///   so that the file uses the budget rather than stepping past it (a photo wipe at 720²
///   under 400 KB: 382 KB at quality 57 and 20 fps, where fixed steps to 70, 55 and 40 give
///   298 KB at 40 with 15 colours); then colours (at most half of what the last attempt's
///   palette held, down to 15 and the transparent entry), then frame rate (× 2/3, down to
///   10 fps), then size (× 0.8, down to 160 px on the shorter side). Once a lower frame rate
///   or size fits with room to spare, quality is searched again there, with every colour.
/// - Video: the rate factor (an animated WebP's quality), aimed at the budget from the bytes
///   the attempts made (``VideoCapSearch``), at most 6 attempts.
/// - Anything else must fit as it is.
///
/// Every attempt writes to its own hidden temporary output (registered for signal
/// cleanup); only one that fits is committed, to a hidden stage, and a later one replaces it
/// only when it fits too and is better. The stage becomes the output when the fit is done,
/// so the output's name shows nothing before, and an existing output is replaced whole or
/// not at all.
struct SizeCap {
    /// The budget in bytes.
    let bytes: Int

    /// An attempt over the budget (internal control flow between an attempt and the ladder).
    private struct OverBudget: Error { let result: RenderResult }

    /// Renders `spec` to `path` within the budget.
    func render(_ spec: RenderSpec, kind: OutputKind, to path: String, progress: Renderer.Progress?) throws -> RenderResult {
        var spec = spec
        switch kind {
        case .gif, .video:
            // Every attempt renders the same inputs: the stills are decoded once.
            if spec.stills == nil { spec.stills = DecodedStills() }
            // Every attempt that fits is kept in a hidden stage: the output's name shows
            // nothing until the fit is done.
            let stage = try StagedOutput(destination: path)
            var result: RenderResult
            do {
                if case .gif = kind {
                    result = try gif(spec, to: path, stage: stage.path, progress: progress)
                } else {
                    result = try video(spec, kind: kind, to: path, stage: stage.path, progress: progress)
                }
            } catch let e as SweepError where e.subject == stage.path {
                throw SweepError(e.code, e.message, subject: path, fix: e.fix, field: e.field)
            }
            try stage.commit()
            result.output = path
            return result
        case .pngSequence, .still, .html:
            var attempt = spec
            attempt.maxBytes = nil
            return try Renderer.renderOnce(
                attempt, kind: kind, to: path, progress: progress,
                accept: { result in
                    guard result.bytes <= bytes else {
                        throw SweepError(
                            .dataError,
                            "the output is \(ByteCount.text(result.bytes)) (\(result.bytes) bytes), over the limit of \(ByteCount.text(bytes)) (\(bytes) bytes)",
                            subject: path, fix: "use a smaller size or another format")
                    }
                })
        }
    }

    private func gif(_ spec: RenderSpec, to path: String, stage: String, progress: Renderer.Progress?) throws -> RenderResult {
        let source = try FrameSource(spec: spec)  // fixes the size (and validates the inputs) once
        var first = spec
        first.width = source.width
        first.height = source.height
        first.maxBytes = nil
        if let rate = source.clipRate, spec.clip.followClipRate {
            // Clips set the rate; the ladder lowers it from there.
            first.fps = min(rate, GIFTiming.maxFPS)
            first.clip.followClipRate = false
        }
        let start = Date()
        var tries = Attempts(cap: bytes, kind: .gif, target: stage, progress: progress)
        var attempt = first
        let searches = attempt.lossy == nil && attempt.quality > Self.qualityFloor
        // The most attempts the rest can take: each rung of the ladder one until one fits,
        // then a search at it (or, when none fits, the last rendered whole).
        let search = searches ? Attempts.searchTries + 1 : 0
        func after(_ spec: RenderSpec, colors: Int?) -> Int { Self.rungs(spec, colors: colors) + max(search, 1) }
        // The least the ladder gives, when it costs a fraction of a render, says whether the
        // cap can be met at all: first for a long render, from a sample (its attempts are then
        // estimated from samples too), after the first attempt for a short one (which may fit
        // as it is, and then costs nothing more); either way before the ladder's rungs. A
        // short one whose quality search should fit (its floor, read off the typical curve, is
        // under the cap) leaves the least until the ladder needs it: it would only say what
        // the search shows.
        let least = Self.least(first)
        let cheap = Self.work(least) * 4 <= Self.work(first)
        let length = source.clipDuration.map { (spec.clip.end ?? $0) - spec.clip.start } ?? first.animation.passDuration
        let long = length * first.fps >= Double(Self.sampledFrames)
        // A long render's lower rung may be estimated, searched, then rendered whole: one more.
        let rungEstimate = long && searches ? 1 : 0
        // A long render's least is estimated first, then maybe rendered whole: two. A short
        // one's first attempt may be coded again with larger lossy budgets, a round an attempt.
        let lossyRounds = searches && !long ? Attempts.searchTries : 0
        tries.tighten((cheap ? (long ? 2 : 1) : 0) + 1 + lossyRounds + search + after(attempt, colors: nil) + rungEstimate)
        var leastFit: Attempts.Fit?
        func tryLeast() throws {
            leastFit = try tries.render(least, stopping: false, isReference: long)
            if leastFit == nil {
                throw impossible(spec, source: source, least: least, bytes: tries.smallest, leadIn: tries.leadIn, path: path)
            }
        }
        if cheap && long {
            // Estimated from a sample first: a cap it is under can be met, and the least is
            // rendered whole only when the ladder reaches it. One it reads over is rendered
            // whole at once, to fail with its real size or to keep it.
            // Too short to sample (a high rate's few seconds at 10 fps), it is cheap whole.
            let sampled = length * least.fps >= Double(Attempts.shortestSampled)
            let estimated = sampled ? try tries.estimateLeast(least) : nil
            // Rendered whole from 95 % of the budget: a least read a little low still fails at once.
            if estimated.map({ Double($0) > 0.95 * Double(bytes) }) ?? true {
                try tryLeast()
                if tries.sampling == nil { tries.sampling = leastFit?.result.duration }
            }
        }
        // The first attempt keeps its quantization, so that a lossy budget that fits is found by
        // coding it again (``QuantizedFrames``) rather than by rendering again.
        let recording = searches && !long ? QuantizedFrames() : nil
        var best = try tries.render(attempt, recording: recording)
        let firstResult = tries.lastWhole
        // What the first attempt's pixels say of its bytes at lower qualities.
        let curve = recording.map(Self.curve) ?? .typical
        // The first attempt's bytes, which a quality search starts from (a lossy search leaves
        // its own as the last).
        let firstBytes = tries.last?.bytes
        // What would keep the look, said before the long work: from the first attempt's bytes
        // (rendered whole, or estimated from a sample).
        var advice: CapAdvice?
        if best == nil, let over = tries.last?.bytes { advice = self.advice(first, source: source, over: over) }
        if let advice { spec.advise?(advice) }
        if best == nil && cheap && !long && leastFit == nil,
            !searches || tries.last.map({ Double(bytes) < floorBytes(first, over: $0.bytes) }) ?? true
        {
            try tryLeast()
        }
        // A larger lossy budget on the first attempt's colours and dithering, coded again
        // from its quantization at a fraction of a render's cost.
        var lossyNote: String?
        if best == nil, let recording, recording.replayable, recording.complete, let over = tries.last?.bytes,
            let base = firstResult, let depth = Self.lossyDepth(texture: recording.texture, over: over, cap: bytes)
        {
            let from = 100 - attempt.quality
            best = try tries.searchLossy(
                attempt, recording: recording, base: base, from: from, over: over, depth: depth,
                then: search + after(attempt, colors: nil))
            if let l = best?.spec.lossy { lossyNote = "lossy LZW \(from) → \(l) (quality \(attempt.quality)'s palette and dithering kept)" }
        }
        // Quality first, searched rather than stepped, so that the file uses the budget: along
        // the curve the first attempt's pixels say, when it was recorded.
        if best == nil && searches {
            best = try tries.searchQuality(
                attempt, top: attempt.quality, over: firstBytes, curve: curve, then: after(attempt, colors: nil))
            attempt.quality = best?.spec.quality ?? Self.qualityFloor
        }
        var steps: [String] = []
        // Quality with every colour back, searched from the first quality at a lower rate or
        // size (`attempt`) that leaves room: from a fit made there or from its estimate (see
        // ``Attempts/searchQuality``); `then` attempts may follow it. A fit with every colour
        // takes back the colours the note gave up.
        func searchWithEveryColour(fallback: Attempts.Fit?, hint: (q: Int, bytes: Int)?, then: Int) throws -> Attempts.Fit? {
            var again = attempt
            again.gifColors = first.gifColors
            again.quality = first.quality
            tries.tighten(search + then)
            let higher = try tries.searchQuality(again, top: first.quality, over: nil, fallback: fallback, hint: hint, then: then)
            if let higher, higher.spec.gifColors != attempt.gifColors { steps.removeAll { $0.hasPrefix("colours") } }
            return higher
        }
        while best == nil {
            tries.tighten(after(attempt, colors: tries.last?.colors) + rungEstimate)
            let w = attempt.width!, h = attempt.height!
            if let used = tries.last?.colors, let c = Self.fewerColors(than: used) {
                // Halve what the palette held: quality may already have taken the palette
                // below --colors, and a cap above it would change nothing. (--colors counts
                // the transparent entry; the summary and this note count visible colours.
                // Merged duplicates can leave a palette a few colours short of its cap.)
                attempt.gifColors = c + 1
                steps.append("colours \(used) → at most \(c)")
            } else if let f = Self.lowerRate(than: attempt.fps) {
                steps.append(String(format: "frame rate %g → %g fps", attempt.fps, f))
                attempt.fps = f
                // The format's rate is noted as the ladder's start (below), not as this one.
                attempt.clip.rateChosenBy = nil
            } else if let size = Self.smaller(w, h) {
                (attempt.width, attempt.height) = size
                steps.append("size \(w)x\(h) → \(size.width)x\(size.height)")
            } else {
                // The bottom of the ladder, rendered whole: the least that can be given (or
                // the error that even it is over). Rounding can leave the last rung a pixel
                // off it, and the last rung's palette a few colours over 15.
                if leastFit == nil { try tryLeast() }
                best = leastFit
                break
            }
            let lower = attempt.fps != first.fps || attempt.width != first.width
            // A long render's lower rate or size is estimated first: when that leaves room,
            // quality with every colour back is searched at once, and the rung is rendered
            // whole only when the search finds nothing. Rendered first, it would be a whole
            // render that the search's fit then replaces.
            let sampled = searches && lower ? try tries.estimateOnly(attempt) : nil
            // With colours given up: at the same colours the search's last try would be this
            // very rung, and the search below (bracketed by its fit) serves. When the search
            // finds nothing, the rung is a new attempt after the search's, sampled again.
            if let sampled, attempt.gifColors != first.gifColors, Double(sampled.bytes) < Self.roomy * Double(bytes) {
                best = try searchWithEveryColour(fallback: nil, hint: (attempt.quality, sampled.bytes), then: 1)
                if best == nil { best = try tries.render(attempt) }
                continue
            }
            best = try tries.render(attempt, sampled: sampled)
            // A lower frame rate or size may leave room: at it, quality (with every colour
            // back) rises again as far as the budget allows.
            if let fit = best, searches, lower, Double(fit.result.bytes) < Self.roomy * Double(bytes),
                let higher = try searchWithEveryColour(fallback: fit, hint: nil, then: 0)
            {
                best = higher
            }
        }
        // Every fit was committed as it came, each better than the one before: `best` is the file.
        guard var fit = best else { preconditionFailure("the loop ends with a fit") }
        if fit.spec.quality != first.quality { steps.insert("quality \(first.quality) → \(fit.spec.quality)", at: 0) }
        if let lossyNote { steps.insert(lossyNote, at: 0) }
        fit.result.capAdvice = advice
        if let by = first.clip.rateChosenBy, let rate = source.clipRate, fit.spec.fps != first.fps,
            abs(first.fps - rate) > 0.01 * rate
        {
            fit.result.notes.insert(
                String(format: "the clip runs at %g fps; the output starts at %g fps, as %@ asks", rate, first.fps, by), at: 0)
        }
        if !steps.isEmpty { fit.result.notes.append("to fit under \(ByteCount.text(bytes)): " + steps.joined(separator: ", ")) }
        fit.result.seconds = Date().timeIntervalSince(start)
        if let note = Renderer.fittedNote(spec, source) { fit.result.notes.insert(note, at: 0) }
        return fit.result
    }

    /// What would keep the look of `first` (the first attempt, `over` bytes) under the budget,
    /// when its bytes at the quality floor with every colour, read off the typical curve, are
    /// over it (the fit then takes fewer colours or frames): the end of a clip and a size at
    /// which they would fit, aiming at 95 % of the budget. Nil when quality alone may do.
    func advice(_ first: RenderSpec, source: FrameSource, over: Int) -> CapAdvice? {
        let atFloor = floorBytes(first, over: over)
        guard Double(bytes) < atFloor, let w = first.width, let h = first.height,
            // Bytes grow about as the side (see ``impossible``).
            let ways = Self.ways(
                first, width: w, height: h, clipDuration: source.clipDuration, share: 0.95 * Double(bytes) / atFloor, sideExponent: 1)
        else { return nil }
        let message =
            "fitting under \(ByteCount.text(bytes)) takes fewer colours or frames than quality \(Self.qualityFloor) keeps (about "
            + ByteCount.text(Int(atFloor)) + String(format: " at %g fps with every colour); ", first.fps)
            + ways.words + " would keep them"
        return CapAdvice(message: message, end: ways.end, width: ways.width, height: ways.height)
    }

    /// The bytes of `first` (the first attempt, `over` bytes) at the quality floor with every
    /// colour, read off the typical curve.
    func floorBytes(_ first: RenderSpec, over: Int) -> Double {
        Double(over) * exp2(QualityCurve.typical.at(Self.qualityFloor) - QualityCurve.typical.at(first.quality))
    }

    /// The ways to keep a look in `share` of the bytes `first` (at `width`×`height`) takes,
    /// when a clip's bytes go about as its length and any animation's as its side to the
    /// power `sideExponent`: a clip's end and a smaller size, with the words naming them.
    /// An end within a frame of the start is not offered; nil when neither is left (no end,
    /// and a shorter side under 16 px, which keeps no look either).
    static func ways(
        _ first: RenderSpec, width w: Int, height h: Int, clipDuration: Double?, share: Double, sideExponent: Double
    ) -> (end: Double?, width: Int, height: Int, words: String)? {
        let side = pow(share, 1 / sideExponent)
        let size = (width: max(2, 2 * Int(Double(w) * side / 2)), height: max(2, 2 * Int(Double(h) * side / 2)))
        var end: Double?
        if let available = clipDuration {
            let start = first.clip.start
            let at = ((start + ((first.clip.end ?? available) - start) * share) * 10).rounded(.down) / 10
            if at >= start + max(0.1, 1 / first.fps) { end = at }
        }
        guard end != nil || min(size.width, size.height) >= 16 else { return nil }
        let words = (end.map { [String(format: "ending at %g s", $0)] } ?? []) + ["making it \(size.width)x\(size.height)"]
        return (end, size.width, size.height, words.joined(separator: " or "))
    }

    /// The bottom of the GIF ladder below `spec`: the quality floor, 15 colours, at most
    /// 10 fps, and the shorter side at most 160 px.
    static func least(_ spec: RenderSpec) -> RenderSpec {
        var s = spec
        if s.lossy == nil { s.quality = min(s.quality, qualityFloor) }
        s.gifColors = min(s.gifColors, 16)
        s.fps = min(s.fps, 10)
        if let w = s.width, let h = s.height, min(w, h) > 160 {
            let scale = 160 / Double(min(w, h))
            s.width = max(2, Int((Double(w) * scale).rounded()))
            s.height = max(2, Int((Double(h) * scale).rounded()))
        }
        return s
    }

    /// A render's work, in pixels a second of output.
    static func work(_ spec: RenderSpec) -> Double { Double((spec.width ?? 0) * (spec.height ?? 0)) * spec.fps }

    /// The error for a cap that even the least the ladder gives (`least`, `bytes` long) is
    /// over, with a length and a size that would fit.
    private func impossible(
        _ spec: RenderSpec, source: FrameSource, least: RenderSpec, bytes made: Int, leadIn: Int, path: String
    ) -> SweepError {
        // Past the first frame, bytes grow about linearly with length; all of them with area.
        let lead = Double(min(leadIn, made / 2))
        let share = max(0, (0.9 * Double(bytes) - lead) / (Double(made) - lead))
        var ways = ["raise the byte limit"]
        // A clip's frames each change the whole picture, so a shorter clip is smaller; a
        // sweep between pictures changes each pixel once however long it takes.
        if share > 0.02, let available = source.clipDuration {
            let start = spec.clip.start
            ways.append(String(format: "end it at %.1f s", start + ((spec.clip.end ?? available) - start) * share))
        }
        if let w = least.width, let h = least.height, Double(bytes) / Double(made) > 0.05 {
            // Bytes grow more slowly than area (a smaller picture has more detail a pixel,
            // and each frame's header and palette stay); about as its side, on photos.
            let scale = 0.9 * Double(bytes) / Double(made)
            ways.append("make it \(max(2, Int(Double(w) * scale)))x\(max(2, Int(Double(h) * scale))) or smaller")
        }
        return SweepError(
            .dataError,
            "cannot fit under \(ByteCount.text(bytes)): even at quality \(least.quality), \(least.gifColors - 1) colours, "
                + String(format: "%g fps", least.fps)
                + " and \(least.width ?? 0)x\(least.height ?? 0) it is \(ByteCount.text(made)) (\(made) bytes)",
            subject: path, fix: ways.joined(separator: ", or "))
    }

    /// The lowest quality the cap searches down to before it gives up colours: below it the
    /// lossy budget allows nearly any colour in texture, and a lower frame rate costs less.
    static let qualityFloor = 40
    /// An estimate from a sample over this share of the budget is taken as over it; under, the
    /// attempt is rendered whole (and stops once its bytes pass the budget).
    static let sampleMargin = 1.05

    /// Whether an estimate of `bytes` says an attempt is over a budget of `cap` (over
    /// ``sampleMargin`` × it).
    static func overMargin(_ bytes: Int, cap: Int) -> Bool { Double(bytes) > sampleMargin * Double(cap) }

    /// A sample's estimate scaled by the last whole render's bytes over its estimate.
    static func calibrated(_ raw: Int, _ calibration: Double) -> Int { Int(Double(raw) * calibration) }
    /// The fewest frames a render must have for its attempts to be estimated from samples
    /// first: below, a sample (48 frames) is too large a share of one.
    static let sampledFrames = 300

    /// A fit under this share of the budget is worth searching a higher quality for.
    static let roomy = 0.9

    /// How many rungs of the GIF ladder are left below `spec` (colours halved from
    /// `colors`, or from a full palette when not yet known, then frame rate, then size),
    /// as the ladder in ``gif(_:to:stage:progress:)`` steps down them.
    static func rungs(_ spec: RenderSpec, colors: Int?) -> Int {
        var n = 0
        var c = colors ?? 255
        while let fewer = fewerColors(than: c) { (c, n) = (fewer, n + 1) }
        var f = spec.fps
        while let lower = lowerRate(than: f) { (f, n) = (lower, n + 1) }
        var size = (width: spec.width ?? 800, height: spec.height ?? 800)
        while let s = smaller(size.width, size.height) { (size, n) = (s, n + 1) }
        return n
    }

    /// The colour rung: half of what the palette held (`used`, visible colours), down to 15;
    /// nil once 20 or fewer.
    static func fewerColors(than used: Int) -> Int? { used > 20 ? max(15, used / 2) : nil }

    /// The frame-rate rung: × 2/3, down to 10 fps; nil at 10.5 fps or less.
    static func lowerRate(than fps: Double) -> Double? { fps > 10.5 ? max(10, (fps * 2 / 3).rounded()) : nil }

    /// The size rung: × 0.8, the shorter side no smaller than 160 px; nil at 160 px or less.
    static func smaller(_ w: Int, _ h: Int) -> (width: Int, height: Int)? {
        guard min(w, h) > 160 else { return nil }
        let scale = max(0.8, 160 / Double(min(w, h)))
        return (max(2, Int((Double(w) * scale).rounded())), max(2, Int((Double(h) * scale).rounded())))
    }

    /// What an attempt tries, for its progress: a GIF's quality, colours, frame rate and
    /// size (`alsoLossy`: a second lossy budget coded at the same time); a video's CRF.
    static func describe(_ spec: RenderSpec, kind: OutputKind, alsoLossy: Int? = nil) -> String {
        guard case .gif = kind else {
            return spec.videoOptions.last(where: { $0.0 == "crf" }).map { "CRF \($0.1)" } ?? ""
        }
        var parts = ["quality \(spec.quality)"]
        if let l = spec.lossy { parts.append("lossy \(l)" + (alsoLossy.map { " and \($0) at once" } ?? "")) }
        if spec.gifColors < 256 { parts.append("≤ \(spec.gifColors - 1) colours") }
        parts.append(String(format: "%g fps", spec.fps))
        if let w = spec.width, let h = spec.height { parts.append("\(w)x\(h)") }
        return parts.joined(separator: ", ")
    }

    /// The renders of one fit. Each attempt renders to its own hidden file; one that fits is
    /// committed to the stage at once (so a later one replaces it only when it fits too,
    /// which the GIF search makes sure is a better one), one over the budget is dropped. (An
    /// attempt coding two lossy budgets at once commits one of its fits at most.)
    private struct Attempts {
        typealias Fit = (spec: RenderSpec, result: RenderResult)
        let cap: Int
        let kind: OutputKind
        /// Where attempts are written (the stage; see ``StagedOutput``).
        let target: String
        let progress: Renderer.Progress?
        /// Attempts started so far.
        private(set) var count = 0
        /// For a long render, the length of its timeline (s): each attempt is first estimated
        /// from a sample (``estimate(_:frames:k:windows:stoppingWhen:)``), and one far over the budget goes
        /// no further, at a small share of a render's cost.
        var sampling: Double?
        /// The last whole render's bytes over its estimate, which later estimates are scaled by
        /// (samples of a photo's wipe read 10–40 % high, of clips a few percent).
        private var calibration = 1.0

        /// The estimate for the attempt being rendered whole, if one was made.
        private var estimated: Int?
        /// The most attempts the fit can take in all (see ``RenderProgress/attempts``).
        private(set) var bound = Int.max
        /// The last attempt's bytes (estimated when it was stopped) and palette, fitting or not.
        private(set) var last: (bytes: Int, colors: Int?)?
        /// The smallest file an attempt rendered whole made.
        private(set) var smallest = Int.max
        /// What the last attempt rendered whole made, fitting or not.
        private(set) var lastWhole: RenderResult?
        /// The bytes written after each frame of the last attempt rendered whole, and its
        /// size: what a stopped attempt's size is estimated from (see ``SizeCap/estimate(_:frames:reference:)``).
        private var reference: (written: [Int], bytes: Int)?
        /// Renders a search may take. Where log bytes follow the typical curve (photos), two
        /// to four land within a few percent of the budget; where the palette halving makes a
        /// step (smooth pictures), bisection needs a few more.
        static let searchTries = 8

        init(cap: Int, kind: OutputKind, target: String, progress: Renderer.Progress?) {
            (self.cap, self.kind, self.target, self.progress) = (cap, kind, target, progress)
        }

        /// The progress of attempt `k`, trying what `trying` says, as one of ``bound``.
        private func reporter(attempt k: Int, trying: String) -> Renderer.Progress? {
            let n = max(bound == Int.max ? k : bound, k)
            return progress.map { p in
                { @Sendable r in p(RenderProgress(done: r.done, total: r.total, attempt: k, attempts: n, trying: trying)) }
            }
        }

        /// Says that at most `remaining` more attempts follow (never raising the bound).
        mutating func tighten(_ remaining: Int) {
            bound = max(count, min(bound, count + remaining))
        }

        /// An attempt stopped once its bytes passed the budget, with its size estimated.
        private struct Stopped: Error {
            let estimate: Int
            let colors: Int?
        }

        /// Renders `spec`; the fit (committed) or nil when it is over the budget.
        ///
        /// Once an attempt has been rendered whole, a later one stops as soon as the bytes it
        /// has written pass the budget: it cannot fit, and the rest of it would only say by how
        /// much, which is estimated instead from how the whole one grew frame by frame. A rung
        /// of the ladder far over the budget then costs a fraction of a render. Not `stopping`,
        /// the attempt renders whole.
        ///
        /// Unless it `isReference`, a whole render leaves the last attempt and the reference for
        /// stopped attempts as they were (the least, rendered after the first attempt, is not
        /// a rung the ladder goes on from, nor shaped like the rest).
        mutating func render(
            _ spec: RenderSpec, stopping: Bool = true, isReference: Bool = true, recording: QuantizedFrames? = nil,
            sampled: Sample? = nil
        ) throws -> Fit? {
            let cap = cap
            let reference = stopping ? reference : nil
            estimated = nil
            // The sample counts the attempt; the whole render after it is the same one.
            if let sample = stopping && sampling != nil ? try sampled ?? estimateOnly(spec) : nil {
                if SizeCap.overMargin(sample.bytes, cap: cap) { return nil }
                estimated = sample.raw
            } else {
                count += 1
            }
            bound = max(bound, count)
            let report = reporter(attempt: count, trying: SizeCap.describe(spec, kind: kind))
            var written: [Int] = []
            // A long render's attempt, estimated under the margin, stops once over too, before
            // any whole render to estimate its size from: then by its share of the frames.
            let sampledWhole = estimated != nil
            let watch: FrameObserver.Watch = { w in
                written.append(w.bytes)
                guard w.bytes > cap else { return }
                if let reference {
                    throw Stopped(
                        estimate: SizeCap.estimate(written, frames: w.frames, reference: reference), colors: w.colors)
                } else if sampledWhole {
                    let share = Double(w.frames) / Double(max(w.done, 1))
                    throw Stopped(estimate: max(w.bytes + 1, Int(Double(w.bytes) * share)), colors: w.colors)
                }
            }
            do {
                let r = try Renderer.renderOnce(
                    spec, kind: kind, to: target, progress: report, watch: watch,
                    accept: { result in if result.bytes > cap { throw OverBudget(result: result) } }, recording: recording)
                note(bytes: r.bytes, colors: r.colors, written: written, leading: isReference)
                lastWhole = r
                return (spec, r)
            } catch let over as OverBudget {
                note(bytes: over.result.bytes, colors: over.result.colors, written: written, leading: isReference)
                lastWhole = over.result
                return nil
            } catch let stopped as Stopped {
                last = (stopped.estimate, stopped.colors)
                if let estimated, estimated > 0 { calibration = Double(stopped.estimate) / Double(estimated) }
                return nil
            }
        }

        /// A long render's attempt estimated from a sample: its bytes (calibrated by the last
        /// whole render) and the sample's own (`raw`).
        typealias Sample = (bytes: Int, raw: Int)

        /// The bytes `spec` would make, estimated from a sample as ``render(_:stopping:isReference:recording:sampled:)``
        /// estimates a long render's attempt, and nothing rendered whole; nil when renders are
        /// not sampled or this one is too short to be. Counts as an attempt (a whole render of
        /// `spec` given this sample is the same one) and keeps the estimate as the last.
        ///
        /// The sample stops once the runs so far, the rest counted as nothing, already put the
        /// attempt over ``SizeCap/sampleMargin`` × the budget: the full sample would say the
        /// same (its bytes only grow, and the calibration and rounding keep their order), and
        /// the runs so far estimate by how much.
        mutating func estimateOnly(_ spec: RenderSpec) throws -> Sample? {
            guard let length = sampling else { return nil }
            let (cap, calibration) = (cap, calibration)
            guard
                let e = try estimate(
                    spec, frames: Int((length * spec.fps).rounded()), k: count + 1,
                    stoppingWhen: { SizeCap.overMargin(SizeCap.calibrated($0, calibration), cap: cap) })
            else { return nil }
            count += 1
            bound = max(bound, count)
            let bytes = SizeCap.calibrated(e.bytes, calibration)
            last = (bytes, e.colors)
            return (bytes, e.bytes)
        }

        /// The runs of frames a sample takes.
        static let sampleWindows = 6
        /// The fewest frames a render is sampled from: twice the frames its sample takes.
        static let shortestSampled = 2 * sampleWindows * Renderer.sampleLength

        /// The bytes of a long render's `least` (the bottom of the ladder) estimated from a
        /// sample, which starts sampling: later attempts are estimated first too. Nil when
        /// the least is too short to sample (then nothing starts).
        mutating func estimateLeast(_ least: RenderSpec) throws -> Int? {
            guard let e = try estimate(least, frames: nil, k: count + 1), let length = e.length else { return nil }
            count += 1
            bound = max(bound, count)
            sampling = length
            return e.bytes
        }

        /// `recording` (the quantization of `base`, the first attempt) coded again with each
        /// of `specs`' lossy budgets (one or two; two at once, one on each core), as one
        /// attempt: the LZW coding alone, each frame's early-reset pass run only where it won
        /// in the first attempt (``GIFWriter/earlyPasses``). Each coding stops once its bytes
        /// pass the budget, as ``render(_:stopping:isReference:recording:sampled:)``. Returns
        /// each one's bytes (estimated when stopped; nil when the second failed, which leaves
        /// the first's result as it is) and, of the fits with a budget under `below`, the one
        /// with the smallest budget, committed; the other files are discarded.
        mutating func recode(_ specs: [RenderSpec], recording: QuantizedFrames, base: RenderResult, below: Int) throws -> (
            fit: Fit?, bytes: [Int?]
        ) {
            precondition((1...2).contains(specs.count) && specs.allSatisfy { $0.lossy != nil }, "one or two lossy budgets")
            count += 1
            bound = max(bound, count)
            let trying = SizeCap.describe(specs[0], kind: kind, alsoLossy: specs.count > 1 ? specs[1].lossy : nil)
            let report = reporter(attempt: count, trying: trying)
            let (cap, total, reference, cancellation) = (cap, recording.frameCount, reference, specs[0].cancellation)
            let one = try AtomicOutput(destination: target)
            var two: AtomicOutput? = nil
            if specs.count > 1 { two = try? AtomicOutput(destination: target) }
            let paths = [one.writePath] + ((two?.writePath).map { [$0] } ?? [])
            let target = target
            // The frames done of the coding furthest on, shown as the attempt's progress.
            let furthest = Mutex(0)
            // One coding's frames and bytes, or its size estimated when it stopped over the budget.
            typealias Made = (encoder: GIFEncoder?, bytes: Int, written: [Int])
            func code(_ i: Int) throws -> Made {
                var written: [Int] = []
                do {
                    let encoder = try GIFEncoder.recode(recording, lossy: specs[i].lossy!, path: paths[i], destination: target) {
                        bytes, done in
                        if cancellation?.isCancelled == true { throw CancellationError() }
                        // Reported under the lock, so that the two never show it going back.
                        furthest.withLock { f in
                            guard done > f else { return }
                            f = done
                            report?(RenderProgress(done: done, total: total))
                        }
                        written.append(bytes)
                        if let reference, bytes > cap {
                            throw Stopped(estimate: SizeCap.estimate(written, frames: total, reference: reference), colors: base.colors)
                        }
                    }
                    return (encoder, encoder.bytesWritten, written)
                } catch let stopped as Stopped {
                    return (nil, stopped.estimate, written)
                }
            }
            var made: [Made?]
            if paths.count == 2 {
                // The second coding is extra: should it fail (a full disk for its file), the
                // first's result stands. Cancellation stops both.
                let (a, b) = try Pending.both(
                    { try code(0) },
                    { () -> Made? in
                        do { return try code(1) } catch is CancellationError { throw CancellationError() } catch { return nil }
                    })
                made = [a, b]
            } else {
                made = [try code(0)]
            }
            var best: Int?
            for (i, m) in made.enumerated() {
                guard let m else { continue }
                if m.encoder != nil {
                    note(bytes: m.bytes, colors: base.colors, written: m.written, leading: true)
                    let l = specs[i].lossy!
                    if m.bytes <= cap && l < below && l < best.map({ specs[$0].lossy! }) ?? Int.max { best = i }
                } else {
                    last = (m.bytes, base.colors)
                }
            }
            let bytes = made.map { $0?.bytes }
            // The one kept is committed; the others' temporary files go with them.
            guard let i = best, let encoder = made[i]?.encoder else { return (nil, bytes) }
            if i == 0 { try one.commit() } else { try two.take()!.commit() }
            var result = base
            (result.bytes, result.framesWritten) = (encoder.bytesWritten, encoder.framesWritten)
            return ((specs[i], result), bytes)
        }

        /// The smallest lossy budget from `from` + 1 up to ``SizeCap/lossyCeiling`` at which
        /// `recording` (the first attempt, `base`, `over` bytes at `from`) fits, each attempt
        /// coded again from it; nil when none does. Each guess reads log bytes off
        /// ``SizeCap/typicalLossyCurve`` through the nearest attempts either side of the budget.
        /// With one core, a guess a round, aiming 3 % under the budget, kept a quarter in from
        /// either end of the bracket. With two, two budgets at once
        /// (``recode(_:recording:base:below:)``): before one fits, aiming ``SizeCap/spread``
        /// either side of 3 % under, so that a round which does not land brackets the budget;
        /// once bracketed, aiming at 99 % and 95.5 % of the budget, the second, after a round
        /// that fitted nothing, no nearer the over end than the bracket's middle.
        ///
        /// `depth` is log2 of the bytes at the ceiling over those at `from`, as the picture's
        /// texture says (``SizeCap/lossyDepth(texture:over:cap:)``): the curve's first scale.
        mutating func searchLossy(
            _ spec: RenderSpec, recording: QuantizedFrames, base: RenderResult, from: Int, over: Int, depth: Double, then: Int
        ) throws -> Fit? {
            let ceiling = SizeCap.lossyCeiling
            var hi = (l: from, bytes: over)  // over the budget
            var lo: (l: Int, bytes: Int)?  // fits
            var best: Fit?
            let target = 0.97 * Double(cap)
            var missed = false  // whether the last round, bracketed, fitted nothing
            for i in 0..<Self.searchTries {
                tighten(Self.searchTries - i + 1 + then)
                let above = lo?.l ?? ceiling + 1
                if above - hi.l <= 1 { break }
                if let lo, Double(lo.bytes) >= 0.95 * Double(cap) { break }  // close enough
                // Until one fits, the curve is scaled to what the attempts over the budget
                // made: a smooth picture's bytes hardly fall (a UI page: 4 % from 10 to 60, a
                // photo 65 %), and when even the ceiling would be over, the search ends.
                let curve = SizeCap.typicalLossyCurve
                var scale = depth / curve.at(Double(ceiling))
                if lo == nil, hi.l > from {
                    scale = max(0.05, log2(Double(hi.bytes) / Double(over)) / (curve.at(Double(hi.l)) - curve.at(Double(from))))
                    let atCeiling = Double(over) * exp2(scale * (curve.at(Double(ceiling)) - curve.at(Double(from))))
                    if atCeiling > SizeCap.ceilingMargin * target { break }
                }
                func within(_ guess: Double) -> Int { max(hi.l + 1, min(above - 1, Int(guess.rounded(.up)))) }
                let pair = ParallelCores.count > 1
                var first = within(SizeCap.nextLossy(hi: hi, lo: lo, target: target, scale: scale))
                var second = first
                if pair && lo == nil {
                    // Unbracketed, the two aim either side of the target by the curve's usual error.
                    first = within(SizeCap.nextLossy(hi: hi, lo: nil, target: target * exp2(SizeCap.spread), scale: scale))
                    second = within(SizeCap.nextLossy(hi: hi, lo: nil, target: target * exp2(-SizeCap.spread), scale: scale))
                } else if pair {
                    // Bracketed, the two aim at either end of what counts as close enough (95 % of
                    // the cap up to it), read off the curve through the two ends.
                    first = within(SizeCap.nextLossy(hi: hi, lo: lo, target: 0.99 * Double(cap), kept: false))
                    second = within(SizeCap.nextLossy(hi: hi, lo: lo, target: 0.955 * Double(cap), kept: false))
                    // After a round that fitted nothing, the larger no nearer the over end than
                    // the bracket's middle: where the curve through the ends misleads (bytes flat,
                    // then falling steeply) the bracket still halves, every other round at least.
                    if missed { second = max(second, (hi.l + above) / 2) }
                }
                if second == first { second = first + 1 < above ? first + 1 : first - 1 }
                var attempts = [spec]
                attempts[0].lossy = first
                if pair && second != first && second > hi.l && second < above {
                    attempts.append(spec)
                    attempts[1].lossy = second
                }
                let (fit, bytes) = try recode(attempts, recording: recording, base: base, below: above)
                // The fit kept narrows the bracket from above; an attempt over it, from below.
                // (Bytes need not fall with every step: only what stays inside the bracket counts.)
                if let fit {
                    best = fit
                    lo = (fit.spec.lossy!, fit.result.bytes)
                }
                missed = lo != nil && fit == nil
                for (attempt, b) in zip(attempts, bytes) {
                    guard let b, b > cap else { continue }
                    let l = attempt.lossy!
                    if l > hi.l && l < lo?.l ?? Int.max { hi = (l, b) }
                }
                if hi.l >= ceiling { break }
            }
            return best
        }

        /// The bytes of the last whole render's header and first frame, which a shorter
        /// render would still hold.
        private(set) var leadIn = 0

        /// The bytes (and palette) `spec` would make over its `frames` frames (nil: as many
        /// as its timeline holds), estimated from a sample of `windows` short runs of frames
        /// spread over the timeline (``RenderSpec/sampleWindows``), nothing written, and the
        /// timeline's length (s; nil when stopped): see ``SizeCap/sampleBytes(_:frames:windows:)``.
        /// Nil when the render is too short to sample. Shown as attempt `k`. Once the bytes at
        /// the least (the runs not yet made counted as nothing) are `over`, the sample stops
        /// there and the runs made estimate the rest.
        private func estimate(
            _ spec: RenderSpec, frames: Int?, k: Int, windows: Int = Attempts.sampleWindows,
            stoppingWhen over: ((Int) -> Bool)? = nil
        ) throws -> (bytes: Int, colors: Int?, length: Double?)? {
            let l = Renderer.sampleLength, n = windows * l
            if let frames, frames < 2 * n { return nil }
            var sample = spec
            sample.sampleWindows = windows
            var written: [Int] = []
            struct Measured: Error { let result: RenderResult }
            struct NotSampled: Error {}
            struct SurelyOver: Error {
                let estimate: Double
                let colors: Int?
            }
            let report = reporter(attempt: k, trying: "estimating " + SizeCap.describe(spec, kind: kind))
            do {
                _ = try Renderer.renderOnce(
                    sample, kind: kind, to: target, progress: report,
                    watch: { w in
                        // Too short to sample (its length read otherwise than the caller's),
                        // the render would go on whole: a frame tells.
                        if w.frames != n { throw NotSampled() }
                        written.append(w.bytes)
                        guard let over, let frames, written.count < n,
                            let so = SizeCap.sampleBytes(written, frames: frames, windows: windows),
                            over(Int(so.least.rounded()))
                        else { return }
                        throw SurelyOver(estimate: so.estimate, colors: w.colors)
                    },
                    accept: { throw Measured(result: $0) })
            } catch let m as Measured {
                guard written.count == n else { return nil }
                let frames = frames ?? Int((m.result.duration * spec.fps).rounded())
                guard frames >= 2 * n, let so = SizeCap.sampleBytes(written + [m.result.bytes], frames: frames, windows: windows)
                else { return nil }
                return (Int(so.estimate.rounded()), m.result.colors, m.result.duration)
            } catch let stopped as SurelyOver {
                return (Int(stopped.estimate.rounded()), stopped.colors, nil)
            } catch is NotSampled {
                return nil
            }
            return nil
        }

        /// Keeps what an attempt rendered whole made; one that is not `leading` the ladder
        /// (the least, after the first attempt) counts only as the smallest.
        private mutating func note(bytes: Int, colors: Int?, written: [Int], leading: Bool) {
            smallest = min(smallest, bytes)
            if let first = written.first { leadIn = written.first { $0 > first } ?? first }
            guard leading else { return }
            last = (bytes, colors)
            if let estimated, estimated > 0 { calibration = Double(bytes) / Double(estimated) }
            if written.count > 1 { reference = (written, bytes) }
        }

        /// The highest quality from ``SizeCap/qualityFloor`` to `top` at which `spec` fits,
        /// or `fallback` (a fit with less, made before) when none does. `over` is the bytes at
        /// `top` when that is known to be over the budget. Each guess interpolates log bytes
        /// between the nearest attempts either side of the budget (aiming 3 % under it), or
        /// reads it off `curve` from the one known (or from `fallback`), so a few renders
        /// find it;
        /// when nothing fits, the floor itself is tried last, so that the ladder goes on from it.
        /// `then` is the most attempts the caller may make after the search (for ``bound``).
        /// Without a fallback, a `hint` (a quality with fewer colours and its estimated bytes)
        /// says where to start as a fallback with fewer colours would.
        mutating func searchQuality(
            _ spec: RenderSpec, top: Int, over: Int?, fallback: Fit? = nil, hint: (q: Int, bytes: Int)? = nil,
            curve: QualityCurve = .typical, then: Int
        ) throws -> Fit? {
            let floor = SizeCap.qualityFloor
            var hi: (q: Int, bytes: Int)? = over.map { (top, $0) }
            // A fallback with the same colours brackets the search from below (it need not be
            // made again); one with fewer says only roughly where to start.
            var lo: (q: Int, bytes: Int)? = fallback.flatMap {
                $0.spec.gifColors == spec.gifColors ? ($0.spec.quality, $0.result.bytes) : nil
            }
            var best = fallback
            let target = 0.97 * Double(cap)
            var previous: (q: Int, bytes: Int)?  // the attempt over the budget before `hi`
            var tried = false  // whether the two attempts' slope was tried
            for i in 0..<Self.searchTries {
                tighten(Self.searchTries - i + 1 + then)
                let below = lo?.q ?? floor - 1, above = hi?.q ?? top + 1
                if above - below <= 1 { break }
                if let lo, Double(lo.bytes) >= 0.95 * Double(cap) { break }  // close enough
                let guess = SizeCap.nextQuality(
                    lo: lo, hi: hi, previous: previous, tried: &tried, top: top, target: target,
                    fallback: fallback.map { ($0.spec.quality, $0.result.bytes) } ?? hint, curve: curve)
                let q = max(below + 1, min(above - 1, Int(guess.rounded(.down))))
                var attempt = spec
                attempt.quality = q
                if let fit = try render(attempt) {
                    (best, lo) = (fit, (q, fit.result.bytes))
                } else {
                    (previous, hi) = (hi, last.map { (q, $0.bytes) })
                }
            }
            if best == nil, hi.map({ $0.q > floor }) ?? true {
                var attempt = spec
                attempt.quality = floor
                best = try render(attempt)
            }
            return best
        }
    }

    /// A quality search's next guess between the highest quality known to fit (`lo`) and the
    /// lowest known to be over (`hi`), aiming at `target` bytes; `previous` is the attempt over
    /// the budget before `hi`, and `tried` says whether the two's slope was tried already.
    static func nextQuality(
        lo: (q: Int, bytes: Int)?, hi: (q: Int, bytes: Int)?, previous: (q: Int, bytes: Int)?, tried: inout Bool, top: Int,
        target: Double, fallback: (q: Int, bytes: Int)?, curve: QualityCurve
    ) -> Double {
        switch (lo, hi) {
        case let (l?, h?):
            // Interpolated along the curve, but kept a quarter of the way in from
            // either end: bytes can jump where the palette halves, and the bracket must
            // shrink all the same.
            let t = h.bytes > l.bytes ? log(target / Double(l.bytes)) / log(Double(h.bytes) / Double(l.bytes)) : 0.5
            let along = curve.quality(from: l.q, log2Ratio: t * (curve.at(h.q) - curve.at(l.q)))
            let (a, b) = (Double(l.q) + 0.25 * Double(h.q - l.q), Double(l.q) + 0.75 * Double(h.q - l.q))
            return min(b, max(a, along))
        case let (nil, h?):
            // From the curve, then from it scaled to the two attempts over the
            // budget; if that is over too (or the curve is flat here), the floor, to bracket it.
            if let p = previous, p.bytes > h.bytes, p.q > h.q, !tried {
                let scale = log2(Double(p.bytes) / Double(h.bytes)) / (curve.at(p.q) - curve.at(h.q))
                tried = true
                return curve.quality(from: h.q, log2Ratio: log2(target / Double(h.bytes)), scale: scale)
            }
            return previous == nil ? curve.quality(from: h.q, log2Ratio: log2(target / Double(h.bytes))) : Double(qualityFloor)
        case let (l?, nil): return curve.quality(from: l.q, log2Ratio: log2(target / Double(l.bytes)))
        case (nil, nil): return fallback.map { curve.quality(from: $0.q, log2Ratio: log2(target / Double($0.bytes))) } ?? Double(top)
        }
    }

    /// A sampled render's bytes over its `frames` frames, from the bytes written after each
    /// frame of its sample (``RenderSpec/sampleWindows`` runs of ``Renderer/sampleLength``
    /// frames; with the file's size after the last, when done): the header and first frame as
    /// made, every later frame at the mean of the runs' frames after their first two (a run's
    /// first frame jumps from the run before, and the next one settles: each pixel's history
    /// starts over). Part-way, `estimate` is that mean over the frames measured so far, and
    /// `least` counts the frames not yet measured as nothing: the whole sample's estimate is
    /// at least that (bytes written only grow). Nil before the first frame is in.
    static func sampleBytes(_ written: [Int], frames: Int, windows: Int) -> (estimate: Double, least: Double)? {
        let l = Renderer.sampleLength
        guard written.count >= 2 else { return nil }
        var (delta, measured) = (0, 0)
        for j in 0..<windows {
            let settled = j * l + 2, end = min(j * l + l, written.count - 1)
            guard end > settled else { break }
            delta += written[end] - written[settled]
            measured += end - settled
        }
        let head = Double(written[1]), later = Double(frames - 1)
        let least = head + Double(delta) / Double(windows * (l - 2)) * later
        return (measured > 0 ? head + Double(delta) / Double(measured) * later : least, least)
    }

    /// The size of a render stopped after `written.count` of its `frames` frames (the bytes
    /// written after each), from one rendered whole (`reference`: the same, and its size).
    ///
    /// The first frame, a whole picture on screen long, keeps more of its bytes at a lower
    /// quality than the narrow bands after it, so the two are scaled apart: the first frame
    /// as written, the rest by how far the reference's rest had grown at the same share of
    /// its frames. (Frames reach the file a frame or two after they are given: each side's
    /// share counts from the point its first frame arrived.) On photo wipes from quality 90
    /// down to 40, within about 10 % once a fifth of the frames is written, where scaling the
    /// whole by the reference's share of bytes erred by up to 45 %; just after the first
    /// frame, a quarter or more out (so a failed fit renders its last attempt whole).
    static func estimate(_ written: [Int], frames: Int, reference: (written: [Int], bytes: Int)) -> Int {
        guard let now = written.last, let start = written.first else { return 0 }
        let ref = reference.written
        guard let ref0 = ref.first else { return now + 1 }
        // Where each side's first frame reached the file (the header alone before).
        let arrived = written.firstIndex { $0 > start }, refArrived = ref.firstIndex { $0 > ref0 }
        let guessed: Double
        if let a = arrived, let r = refArrived, frames > 1, ref.count > 1, written.count - 1 > a {
            // The reference's bytes with the same share of the later frames in, interpolated.
            let share = Double(written.count - 1 - a) / Double(frames - 1)
            let x = min(Double(r) + share * Double(ref.count - 1), Double(ref.count - 1))
            let i = Int(x.rounded(.down)), j = min(i + 1, ref.count - 1)
            let then = Double(ref[i]) + (x - Double(i)) * Double(ref[j] - ref[i])
            let first = Double(written[a]), refFirst = Double(ref[r])
            guessed =
                then > refFirst
                ? first + (Double(now) - first) * (Double(reference.bytes) - refFirst) / (then - refFirst)
                : Double(now) * Double(reference.bytes) / refFirst
        } else {
            // Only the first frame in: as it compares with the reference's.
            let refFirst = Double(refArrived.map { ref[$0] } ?? reference.bytes)
            guessed = Double(now) * Double(reference.bytes) / max(refFirst, 1)
        }
        return max(now + 1, Int(guessed.rounded()))
    }

    /// The quality curve a recorded first attempt's pixels say (``QualityCurve``), or the
    /// typical one when none was counted. A recording ended part-way (a band coming back to
    /// colours it showed) speaks for the frames before it, which guessed better than the
    /// typical curve where measured (docs/decisions/size-cap.md, "A curve for the picture").
    /// With `SWEEP_CAP_TRACE` set in the environment, what it was read from goes to stderr
    /// (for `Benchmarks/qualitycurves.py`, which fits it).
    static func curve(_ recording: QuantizedFrames) -> QualityCurve {
        if ProcessInfo.processInfo.environment["SWEEP_CAP_TRACE"] != nil {
            let line = String(
                format: "sweep: trace: texture %.4f held %.4f smooth %.4f coverage %.4f complete %d\n", recording.texture,
                recording.held, recording.smooth, recording.coverage, recording.complete ? 1 : 0)
            FileHandle.standardError.write(Data(line.utf8))
        }
        guard recording.measured else { return .typical }
        return QualityCurve(
            texture: recording.texture, held: recording.held, smooth: recording.smooth, coverage: recording.coverage)
    }

    /// The largest lossy budget the cap codes the first attempt again with (`--lossy 60`,
    /// quality 40's budget in texture); past it, fewer colours cost less to see.
    static let lossyCeiling = 60

    /// Log2 of a photo dissolve's bytes at `--lossy` 10, 15, 20, 25, 40 and 60 against its
    /// bytes at 10 (quality 90's budget), the colours and dithering of quality 90 kept. The
    /// shape is the median of four pairs' (two photos, a sky, a UI page) with the fall from 10
    /// to 60 scaled to 1 (0.27, 0.49, 0.66, 0.90 of it at 15, 20, 25, 40), the depth a
    /// photo's (−1.5: 2.83× fewer bytes); a search scales it to the picture's own depth
    /// (a sky −1.37, a smooth photo −0.47, a UI page −0.06). It ends at ``lossyCeiling``.
    static let typicalLossyCurve = LogBytesCurve(x: [10, 15, 20, 25, 40, 60], y: [0, -0.405, -0.735, -0.99, -1.35, -1.5])
    /// Log2 of the bytes a larger lossy budget, up to the ceiling, can take off a first
    /// attempt of `over` bytes, from its mean texture (``QuantizedFrames/texture``): about
    /// −(0.25 + 1.5 × texture). Four dissolves: a photo (texture 0.83) −1.70, a sky (0.80)
    /// −1.37, a smooth photo (0.14) −0.47, a UI page (0.006) −0.06. Nil when even a
    /// little more than that (−(0.3 + 1.6 × texture)) would leave the first attempt over the
    /// cap: no lossy budget is tried, and the quality search starts at once.
    static func lossyDepth(texture: Double, over: Int, cap: Int) -> Double? {
        guard log2(0.97 * Double(cap) / Double(over)) >= -(0.3 + 1.6 * texture) else { return nil }
        return -(0.25 + 1.5 * texture)
    }

    /// Log2 of the bytes either side of the target that an unbracketed round's two budgets
    /// aim at (see ``Attempts/searchLossy``): the curve read off the texture put the budget
    /// that fits 3–5 steps (8–13 % of the bytes) off on three of four dissolves, either way.
    static let spread = 0.1

    /// Bytes at the ceiling, read off the curve scaled to the attempts over the budget (see
    /// ``Attempts/searchLossy``), over this share of the target say that no lossy budget fits.
    static let ceilingMargin = 1.05

    /// The budget at which the typical curve puts `log2Ratio` (log2 of the bytes wanted over
    /// those made at `l`) away from `l`'s bytes, the curve scaled by `scale`; the ceiling
    /// past its end.
    static func lossy(from l: Double, log2Ratio: Double, scale: Double = 1) -> Double {
        max(l, typicalLossyCurve.knob(reaching: typicalLossyCurve.at(l) + log2Ratio / max(scale, 0.05)))
    }

    /// A lossy search's next guess between the highest budget known to be over (`hi`) and
    /// the lowest known to fit (`lo`), aiming at `target` bytes: read off the typical curve
    /// from `hi` alone; between the two, interpolated along the curve, `kept` a quarter of the
    /// way in from either end so that the bracket shrinks.
    static func nextLossy(
        hi: (l: Int, bytes: Int), lo: (l: Int, bytes: Int)?, target: Double, scale: Double = 1, kept: Bool = true
    ) -> Double {
        guard let lo else { return lossy(from: Double(hi.l), log2Ratio: log2(target / Double(hi.bytes)), scale: scale) }
        let (a, b) = (typicalLossyCurve.at(Double(hi.l)), typicalLossyCurve.at(Double(lo.l)))
        let scale = a > b ? log2(Double(hi.bytes) / Double(lo.bytes)) / (a - b) : 1
        let along = lossy(from: Double(hi.l), log2Ratio: log2(target / Double(hi.bytes)), scale: scale)
        guard kept else { return along }
        let (q1, q3) = (Double(hi.l) + 0.25 * Double(lo.l - hi.l), Double(hi.l) + 0.75 * Double(lo.l - hi.l))
        return min(q3, max(q1, along))
    }

    private func video(_ spec: RenderSpec, kind: OutputKind, to path: String, stage: String, progress: Renderer.Progress?) throws
        -> RenderResult
    {
        guard case let .video(codec, _) = kind else { preconditionFailure("not a video") }
        var search = VideoCapSearch(codec: codec, cap: bytes)
        // What would keep the look, said once it is shown that the cap needs a setting past
        // it: by an attempt there over the cap (before the rest of the search), or by the fit.
        var points: [(value: Int, bytes: Int)] = []
        var advice: CapAdvice?
        func adviseOnce(needing value: Int, fit: (value: Int, bytes: Int)? = nil) {
            guard advice == nil, let search, let keeping = search.bytesKeepingLook(points, fit: fit) else { return }
            // Advice is extra: whatever stops it (a source that cannot be read again) leaves the fit as it is.
            advice = try? videoAdvice(spec, search: search, keeping: keeping, needed: value)
            if let advice { spec.advise?(advice) }
        }
        var tried: Int?
        // A fit well under the budget, after one over it, is tried once more between the two.
        let refine: (RenderSpec, Int) -> (RenderSpec, String)? = { fitted, made in
            guard let search, let value = tried, let better = search.refined(fit: value, bytes: made) else { return nil }
            var attempt = fitted
            attempt.videoOptions.removeAll { $0.0 == search.knob }
            attempt.videoOptions.append((search.knob, String(better)))
            let name = search.knob == "crf" ? "CRF" : search.knob
            let from = search.over.last?.value ?? search.start
            return (attempt, "\(name) \(from) → \(better) (\(value) fitted with room to spare)")
        }
        var (fitted, result) = try fit(
            spec, kind: kind, to: stage, attempts: VideoCapSearch.maxAttempts, progress: progress, refine: refine
        ) { attempt, last, _ in
            let knob = search?.knob ?? ""
            let current = attempt.videoOptions.last(where: { $0.0 == knob }).flatMap { Int($0.1) } ?? search?.start ?? 0
            points.append((current, last))
            guard let next = search?.next(after: current, bytes: last) else {
                throw SweepError(
                    .dataError, "the video is \(ByteCount.text(last)), over the limit of \(ByteCount.text(bytes))", subject: path,
                    fix: search == nil
                        ? "shorten it, or lower the size or frame rate"
                        : current == search?.bound
                            ? "shorten it, or lower the size or frame rate (\(knob) \(current) is the most it gives)"
                            : "shorten it, or lower the size or frame rate (\(knob) \(current) after \(VideoCapSearch.maxAttempts) attempts)"
                )
            }
            attempt.videoOptions.removeAll { $0.0 == knob }
            attempt.videoOptions.append((knob, String(next)))
            tried = next
            adviseOnce(needing: next)
            return "\(knob == "crf" ? "CRF" : knob) \(current) → \(next)"
        }
        if tried != nil, let search, let value = fitted.videoOptions.last(where: { $0.0 == search.knob }).flatMap({ Int($0.1) }) {
            adviseOnce(needing: value, fit: (value, result.bytes))
        }
        result.capAdvice = advice
        return result
    }

    /// What would keep a video's look under the budget, when the search's last try
    /// (`needed`) is past ``VideoCapSearch/keepsLook`` and the bytes there (`keeping`, from
    /// the attempts' slope) are over it: a clip's end and a size at which the file at that
    /// setting would fit, aiming at 95 % of the budget. Bytes go about as a clip's length, and as the side to the power 1.3 or
    /// more (halving the side of 4 s sweeps at 1280×800 and 640×400 kept 29–41 % of the
    /// bytes, H.264 and VP9), so the size named is on the safe side.
    private func videoAdvice(_ first: RenderSpec, search: VideoCapSearch, keeping: Double, needed: Int) throws -> CapAdvice? {
        guard search.pastLook(needed) > 0, Double(bytes) < keeping else { return nil }
        let source = try FrameSource(spec: first)
        guard
            let ways = Self.ways(
                first, width: first.width ?? source.width, height: first.height ?? source.height, clipDuration: source.clipDuration,
                share: 0.95 * Double(bytes) / keeping, sideExponent: 1.3)
        else { return nil }
        let name = search.knob == "crf" ? "CRF" : search.knob
        let message =
            "fitting under \(ByteCount.text(bytes)) takes \(name) \(needed) or so, past \(name) "
            + "\(search.keepsLook) where the picture shows blocks (about \(ByteCount.text(Int(keeping))) at \(name) \(search.keepsLook)); "
            + ways.words + " would keep it"
        return CapAdvice(message: message, end: ways.end, width: ways.width, height: ways.height)
    }

    /// Renders attempts until one fits. `degrade` changes the attempt (given the last
    /// attempt's bytes and the smallest attempt's) and says what it gave up, or
    /// throws when nothing is left to give.
    private func fit(
        _ spec: RenderSpec, kind: OutputKind, to stage: String, attempts: Int, progress: Renderer.Progress?,
        refine: ((RenderSpec, Int) -> (RenderSpec, String)?)? = nil, degrade: (inout RenderSpec, Int, Int) throws -> String
    ) throws -> Attempts.Fit {
        let start = Date()
        var tries = Attempts(cap: bytes, kind: kind, target: stage, progress: progress)
        tries.tighten(attempts)
        var attempt = spec
        attempt.maxBytes = nil
        var gaveUp: [String] = []
        while true {
            if var (fitted, result) = try tries.render(attempt) {
                // One more attempt that may use more of the budget; the stage keeps the first
                // fit unless this one fits too.
                if let (better, said) = refine?(fitted, result.bytes) {
                    tries.tighten(1)
                    do {
                        if let closer = try tries.render(better) {
                            (fitted, result) = closer
                            // Said as the last step's value, rather than a step back.
                            if gaveUp.isEmpty { gaveUp.append(said) } else { gaveUp[gaveUp.count - 1] = said }
                        }
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        // The extra attempt is optional: a failure (a full disk for the larger
                        // file) keeps the fit already committed.
                    }
                }
                if !gaveUp.isEmpty { result.notes.append("to fit under \(ByteCount.text(bytes)): " + gaveUp.joined(separator: ", ")) }
                result.seconds = Date().timeIntervalSince(start)
                return (fitted, result)
            }
            guard let over = tries.last else { preconditionFailure("an attempt over the budget is the last") }
            gaveUp.append(try degrade(&attempt, over.bytes, tries.smallest))
        }
    }
}
