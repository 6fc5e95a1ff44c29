import Foundation

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

    init(knob: String, start: Int, bound: Int, cap: Int) {
        (self.knob, self.start, self.bound, self.cap) = (knob, start, bound, cap)
    }

    /// Steps of the knob that halve the bytes, before anything is measured.
    var halving: Double {
        switch knob {
        case "quality": 12  // WebP: quality falls toward 0
        default: bound > 51 ? 8 : 6
        }
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
