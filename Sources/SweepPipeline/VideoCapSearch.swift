import Foundation
import SweepMedia

/// A video size cap's search along the encoder's quality knob (the rate factor of x264, x265
/// and VP9; an animated WebP's quality): each guess is aimed at the budget from the bytes the
/// attempts made, so that a cap far below the first render's size costs two or three
/// renders, not a fixed ladder of them, and the file uses the budget rather than stepping
/// past it.
///
/// The model: bytes halve for every `halving` steps of the knob (about 6 for x264 and x265,
/// the rule their rate control is built on; VP9's scale is wider). A guess from one attempt
/// uses that slope; from two, the slope they measured.
struct VideoCapSearch {
    /// The knob's option name (`crf` or `quality`).
    let knob: String
    /// Its value in the first attempt.
    let start: Int
    /// Its far end: the highest rate factor, or the lowest quality.
    let bound: Int
    /// The budget in bytes.
    let cap: Int
    /// The attempts so far: the knob's value and the bytes it made (all over the budget).
    private(set) var over: [(value: Int, bytes: Int)] = []

    /// The most attempts a video cap renders.
    static let maxAttempts = 6

    /// Steps of the knob that halve the bytes, before anything is measured.
    let halving: Double

    /// The furthest setting that keeps the look: past it, blocks and smearing show on a
    /// screen (x264's "sane range" ends at CRF 28, FFmpeg's H.264 guide; x265 codes CRF 28
    /// as x264 codes 23, so 33; VP9's quality guide calls CRF 40 and up "lower quality";
    /// WebP below quality 50).
    let keepsLook: Int

    init(knob: String, start: Int, bound: Int, halving: Double, keepsLook: Int, cap: Int) {
        (self.knob, self.start, self.bound, self.halving, self.keepsLook, self.cap) = (knob, start, bound, halving, keepsLook, cap)
    }

    /// The search for `codec`'s knob from its default, or nil for a codec without one
    /// (ProRes, APNG: they must fit as they are).
    init?(codec: VideoCodec, cap: Int) {
        guard let (knob, value) = codec.defaults.first(where: { $0.0 == "crf" || $0.0 == "quality" }), let start = Int(value)
        else { return nil }
        switch (knob, codec.name) {
        case ("quality", _):  // WebP: quality falls toward 0
            self.init(knob: knob, start: start, bound: 0, halving: 12, keepsLook: 50, cap: cap)
        case (_, "vp9"):  // VP9's wider scale
            self.init(knob: knob, start: start, bound: 63, halving: 8, keepsLook: 40, cap: cap)
        case (_, "hevc"): self.init(knob: knob, start: start, bound: 51, halving: 6, keepsLook: 33, cap: cap)
        default: self.init(knob: knob, start: start, bound: 51, halving: 6, keepsLook: 28, cap: cap)  // x264
        }
    }

    /// How far `value` is past ``keepsLook``, in steps toward the knob's far end (negative
    /// before it).
    func pastLook(_ value: Int) -> Int { bound > start ? value - keepsLook : keepsLook - value }

    /// The bytes at ``keepsLook`` when the cap is shown to need more than it, else nil.
    ///
    /// `points` are every attempt measured (the knob's value and its bytes; the last may be
    /// the fit). Shown: an attempt at or past ``keepsLook`` was over the cap, or the bytes at
    /// it are over the cap even read from the fit with the slowest fall the search allows
    /// (4 × ``halving`` a halving). The bytes returned are read off the line through the two
    /// attempts either side of it: bytes fall fastest at the first steps, so that line reads
    /// high, and what is sized from it errs small. Nil when the first attempt was already
    /// past it (the knob was set there) or no attempt lies either side.
    func bytesKeepingLook(_ points: [(value: Int, bytes: Int)], fit: (value: Int, bytes: Int)?) -> Double? {
        guard let first = points.first, pastLook(first.value) <= 0 else { return nil }
        let shown =
            points.contains { pastLook($0.value) >= 0 && $0.bytes > cap }
            || fit.map { f in
                pastLook(f.value) > 0 && Double(f.bytes) * exp2(Double(pastLook(f.value)) / (4 * halving)) > Double(cap)
            } ?? false
        let all = (points + (fit.map { [$0] } ?? [])).sorted { pastLook($0.value) < pastLook($1.value) }
        guard shown, let i = all.firstIndex(where: { pastLook($0.value) > 0 }), i > 0 else { return nil }
        let (a, b) = (all[i - 1], all[i])
        if pastLook(a.value) == 0 { return Double(a.bytes) }
        // Log-linear between a (before) and b (past).
        let t = Double(-pastLook(a.value)) / Double(pastLook(b.value) - pastLook(a.value))
        return exp2(log2(Double(a.bytes)) * (1 - t) + log2(Double(b.bytes)) * t)
    }

    /// A fit that uses less than this share of the budget is tried once more, nearer it.
    static let roomy = 0.75

    /// After a fit at `value` that made `bytes`, well under the budget (``roomy``), the value
    /// between it and the last attempt over the budget at which the line through the two
    /// aims at 95 % of it; nil when there is none between them, or no attempt is left. The
    /// bytes fall fastest at the first steps (a grainy clip fell 8.7 times from CRF 20 to
    /// 28, then 2 times to 36), so one guess from a single attempt can land far under.
    func refined(fit value: Int, bytes: Int) -> Int? {
        guard Double(bytes) < Self.roomy * Double(cap), over.count + 1 < Self.maxAttempts, let o = over.last,
            o.bytes > bytes
        else { return nil }
        let share = log2(Double(o.bytes) / (0.95 * Double(cap))) / log2(Double(o.bytes) / Double(bytes))
        let step = Double(value - o.value) * share
        // Rounded toward the fit, the side that fits.
        let guess = o.value + Int(value > o.value ? step.rounded(.up) : step.rounded(.down))
        return value > o.value ? (guess > o.value && guess < value ? guess : nil) : (guess < o.value && guess > value ? guess : nil)
    }

    /// The knob's next value after an attempt at `value` made `bytes` (over the budget), or
    /// nil when it is at its far end or the attempts are spent.
    mutating func next(after value: Int, bytes: Int) -> Int? {
        over.append((value, bytes))
        guard over.count < Self.maxAttempts, value != bound else { return nil }
        // Aim a little under the budget: the model is rough near the target.
        let want = log2(Double(bytes) / (0.95 * Double(cap)))
        var slope = halving
        if over.count >= 2 {
            let (a, b) = (over[over.count - 2], over[over.count - 1])
            let fell = log2(Double(a.bytes) / Double(b.bytes))
            if fell > 0.05 { slope = min(4 * halving, max(halving / 4, Double(abs(b.value - a.value)) / fell)) }
        }
        let step = max(1, Int((slope * want).rounded(.up)))
        let direction = bound > value ? 1 : -1
        let guess = value + direction * step
        return direction > 0 ? min(bound, guess) : max(bound, guess)
    }
}
