import SweepSupport
import SweepTimeline

/// The largest render sweep agrees to start: numbers from a command line, a job line or a
/// preset file are multiplied together (size × size, duration × fps × loops), and a product
/// nobody meant would otherwise allocate gigabytes of frame states or trap on overflow.
package enum RenderLimits {
    /// Frames in one output (a GIF's single pass, or a video's every loop): an hour at
    /// about 28 fps.
    package static let maxFrames = 100_000
    /// Seconds in one pass of the animation.
    package static let maxDuration = 3600.0
    /// Pixels per side of the output (Cairo, giflib and the encoders all stay below 32767).
    package static let maxSide = 16384

    /// Throws unless a page's sides at twice the size (`html.retina`) are within the limit
    /// too: checked before any decoding when the size is given, and again once it is known.
    ///
    /// - Throws: `.usage` with the size field.
    package static func checkDoubled(width: Int?, height: Int?) throws {
        for side in [width, height].compactMap({ $0 }) where side * 2 > maxSide {
            throw SweepError(
                .usage,
                "the page's sides at twice the size (retina) would be \(2 * (width ?? 0))x\(2 * (height ?? 0)), over the limit of \(maxSide) pixels per side",
                fix: "use at most \(maxSide / 2) pixels per side, or leave out the 2x sides", field: .size)
        }
    }

    /// Throws unless a page's sides at twice the size hold at most twice a server's frame
    /// limit (`maxFramePixels`): they are two stills, not frames, but decoding and encoding
    /// them takes about 18 bytes a pixel (a 3840x2160 page's 7680x4320 sides took 600 MB).
    /// Twice the limit keeps a 1920x1440 page's sides (11 MP) under the default 3840x2160.
    ///
    /// - Throws: `.usage` with the frame-pixels field.
    package static func checkDoubled(width: Int, height: Int, maxFramePixels limit: Int?) throws {
        guard let limit, 4 * width * height > 2 * limit else { return }
        throw SweepError(
            .usage,
            "the page's sides at twice the size (retina) would be \(2 * width)x\(2 * height), over this server's limit of \(2 * limit) pixels for them",
            subject: "size", fix: "ask for a smaller size, or leave out retina", field: .maxFramePixels)
    }

    /// Throws unless `spec`'s size, frame rate and frame count are within the limits;
    /// `expandLoops` counts a video's repeated passes.
    ///
    /// - Returns: the number of frames the render will take.
    /// - Throws: `.usage` with the field concerned.
    @discardableResult
    package static func check(_ spec: RenderSpec, expandLoops: Bool, frames countFrames: Bool = true) throws -> Int {
        for side in [spec.width, spec.height].compactMap({ $0 }) where !(2...maxSide).contains(side) {
            throw SweepError(
                .usage, "output size \(spec.width ?? 0)x\(spec.height ?? 0) is out of range",
                fix: "use 2…\(maxSide) pixels per side", field: .size)
        }
        guard FrameRateRange.contains(spec.fps) else {
            throw SweepError(.usage, "frame rate \(spec.fps) is out of range", fix: "use \(FrameRateRange.text)", field: .fps)
        }
        if !countFrames { return 1 }
        let pass = spec.animation.passDuration
        guard pass.isFinite, pass >= 0, pass <= maxDuration else {
            throw SweepError(
                .usage, "the animation lasts \(pass) s, over the limit of \(Int(maxDuration)) s",
                fix: "shorten the duration or the preset", field: .duration)
        }
        // In floating point first: the integer product could overflow before any check.
        var frames = max(1, (pass * spec.fps).rounded())
        switch spec.animation.loop {
        case .boomerang: frames = max(1, 2 * frames - 2)
        case let .count(k) where expandLoops: frames *= Double(max(1, k))
        default: break
        }
        guard frames <= Double(maxFrames) else {
            throw SweepError(
                .usage, "the render would take \(Int(frames)) frames, over the limit of \(maxFrames)",
                fix: "lower the frame rate, the duration or the loop count")
        }
        return Int(frames)
    }
}
