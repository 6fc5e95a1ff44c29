/// One knob for a GIF's size against its fidelity, 1…100 as in gifski: it sets the lossy LZW
/// error budget, the strength of dithering, the palette effort and, for photos, the palette's
/// size together.
///
/// 100 is lossless coding of the palette image; each step down allows more colour error,
/// most in texture (where the eye does not see it), a little in gradients and on edges, none
/// on flat colour the palette holds or on the overlay; told how long pixels stay on screen
/// (``ScreenTime``), more in texture where a pixel is seen briefly, less where it stays.
/// Smooth areas are dithered only where the palette's nearest colour is visibly off, less
/// so as quality falls, and lose a third of their dithering by 40, where the bytes it costs
/// are worth more than the banding it hides; texture is dithered weakly around 80, from 90
/// to 99 only where the palette is far off (``textureGapDitherScale``), not at all at 100 or
/// from 70 down (but fully from 80 to 99 where a frame's changes are noise all over,
/// ``noiseDitherScale``). From 70 up, a smooth narrow band and each stretch of
/// frames may get a table of their own (``StretchPalettes``; a stretch's table gets the
/// colours the global palette effectively spends there, up to all it touches from 80 to
/// 100); below 70 their bytes are worth more than the error they save. A textured narrow
/// band gets a table of its own at every setting.
/// Below 80 a photo's palette also shrinks (``paletteHalvings``): its grain hides the coarser
/// steps, and fewer colours buy more quality per byte than a larger lossy budget.
package struct GIFQuality: Sendable, Equatable {
    /// The setting, 1…100.
    package let value: Int

    /// The default setting: near-lossless in texture, full dithering in smooth areas.
    package static let `default` = GIFQuality(90)

    /// The setting `value`, clamped to 1…100.
    package init(_ value: Int) { self.value = max(1, min(100, value)) }

    /// The lossy LZW error budget in textured areas, as an OkLab distance (0 = lossless):
    /// 0.00065 · (100 − quality)^1.5, so it grows slowly near the top and fast below: 0.021
    /// at 90 (about one just-noticeable difference in OkLab), 0.10 at 70, 0.30 at 40.
    package var lzwBudget: Float { Self.budget(lossy: 100 - value) }

    /// The largest budget any pixel gets, `--lossy 100`'s (0.65), however briefly it is on
    /// screen (``ScreenTime``): beyond it nearly any colour would do.
    package static let largestBudget = budget(lossy: 100)

    /// The budget of an expert `--lossy N` (0…100): what quality 100 − N would allow.
    package static func budget(lossy: Int) -> Float {
        let n = Float(max(0, min(100, lossy)))
        return 0.000_65 * n * n.squareRoot()
    }

    /// The share of the full diffusion strength used in smooth areas (1 from 70 up).
    package var ditherScale: Float { value >= 70 ? 1 : max(0.5, 1 - Float(70 - value) / 90) }

    /// The share of the (weak) diffusion strength used in texture: 1 at 80, falling to 0 at 70
    /// and at 90, none below 70 or from 90 up (where only the palette's far-off colours get
    /// some, ``textureGapDitherScale``). Texture hides banding; at the lower settings
    /// the noise that dithering adds there costs more bytes and structure (SSIM) than the mean
    /// colour it keeps is worth (four photo pairs at 60 to 90). From 90 up the palette is
    /// close enough that the noise costs structure and buys little colour: at 90, three clean
    /// photo pairs get SSIM 0.9145 instead of 0.9131 (A), 0.9473 instead of 0.9459 (H) and
    /// 0.9507 instead of 0.9485 (E) without it, for 1.4–2.0 % fewer bytes and S-CIELAB ΔE 3–5 %
    /// worse: their SSIM ratios against the peer's frontier fall by up to 0.04, no ΔE ratio
    /// rises by more than 0.01 (docs/decisions/gif-encoder.md).
    package var textureDitherScale: Float { min(textureRise, max(0, Float(90 - value) / 10)) }

    /// The diffusion strength used in texture where the palette's nearest colour is visibly
    /// off the source (by ``textureDitherThresholds``): 0.5 from 90 to 99, rising from none
    /// at 80, none at 100. A clean photo's texture is otherwise not dithered from 90 up, and
    /// where the palette is sparse (saturated or rare hues) each area's mean colour drifts,
    /// which S-CIELAB sees; where the palette is close the texture stays free of noise, which
    /// SSIM would see. At 90 on four photo pairs this cuts ΔE by 1.5–3.4 % for 0.2–1.3 % more
    /// bytes and SSIM 0.0001–0.0017 lower; the smooth areas' thresholds, or twice this
    /// strength, cut ΔE twice as much but take E's SSIM down by 0.005
    /// (docs/decisions/gif-encoder.md).
    package var textureGapDitherScale: Float { value >= 100 ? 0 : 0.5 * max(0, min(1, Float(value - 80) / 10)) }

    /// In texture, the distances (RGB levels) from a pixel's colour to its nearest entry
    /// below which it gets no diffusion from ``textureGapDitherScale`` and from which it gets
    /// all of it: twice and five times the smooth areas' first threshold (6 and 15 at 90).
    /// Texture masks a small step, and its noise would cost structure.
    package var textureDitherThresholds: (Float, Float) {
        let quiet = ditherThresholds.0
        return (2 * quiet, 5 * quiet)
    }

    /// How far texture dithering has risen: 0 up to 70, 1 from 80 (before it falls again for a
    /// clean picture; a noisy one keeps it to 99).
    private var textureRise: Float { max(0, min(1, Float(value - 70) / 10)) }

    /// The share of full diffusion used in the texture of a noisy picture (see
    /// ``FrameQuantizer``): rising from 70 to full at 80 and full up to 99, where keeping each
    /// area's mean colour is worth the noise; none at 100, which stays the closest to the
    /// source pixel by pixel (PSNR, SSIM), as on any other picture.
    package var noiseDitherScale: Float { value >= 100 ? 0 : textureRise }

    /// The lossy LZW budget where no texture masks the error (gradients, edges, text): small,
    /// since the carried error keeps each area's mean colour as dithering would. It grows
    /// from 0 at 100 by 0.0015 a step to 0.045 at 70 (0.015 at 90), then by 0.001 a step
    /// (0.075 at 40); the texture budget (``lzwBudget``) caps it from 95 up. Near the top it
    /// is the smaller of the two slopes: with 0.021 at 90 (0.025, capped), a smooth sky
    /// rewritten strip by strip (the demo, when the split moves back) shows the substitutions
    /// as faint vertical streaks, and every benchmark pair gets less SSIM for its bytes than a
    /// smaller budget gives, for about the same ΔE (docs/decisions/gif-encoder.md).
    package var smoothBudget: Float {
        let n = Float(100 - value)
        return min(0.0015 * n, 0.015 + 0.001 * n)
    }

    /// In smooth areas, the distances (RGB levels) from a pixel's colour to its nearest
    /// palette entry below which it is not dithered and from which it is fully: 2 and 6.5 at
    /// 100, 3 and 9.5 at 90, 5 and 15.5 at 70. Two levels are about half a just-noticeable
    /// difference in OkLab: where the palette follows a gradient that closely, the step
    /// between its entries barely shows (S-CIELAB, which sees banding, agrees), and noise
    /// would cost bytes and structure (SSIM) and hide nothing.
    package var ditherThresholds: (Float, Float) {
        let quiet = 2 + 0.1 * Float(100 - value)
        return (quiet, 3 * quiet + 0.5)
    }

    /// Whether stretches of frames and frames' smooth narrow bands may get colour tables of
    /// their own (from 70 up): below, a table in every frame costs more bytes than the error
    /// it saves is worth (a band's table at 40 and 60 costs the gradient and UI pairs
    /// 1.05–1.17× the bytes for the same SSIM). Textured bands always may. So may a photo's
    /// global table be fitted to the frames after the first alone (the first taking a table
    /// of its own): below 70 the finer colours cost the gradient pair 22–27 % more bytes, and
    /// the UI pair 5–12 %, for less quality per byte (docs/decisions/gif-encoder.md).
    package var allowsOwnTables: Bool { value >= 70 }

    /// How many times a photo's palette is halved at this setting (see
    /// ``GIFPalette/entries(for:quality:cap:)``): none from 80 up, one every 10 steps down to
    /// 60 (128 entries at 70, 64 at 60), then one every 20 (45 at 50, 32 at 40). Below 80,
    /// fewer colours buy a photo more quality for its bytes than a larger lossy budget does:
    /// texture hides the coarser steps, narrower codes and longer LZW matches make the file
    /// smaller, and the budget's substitutions are what costs structure (SSIM) and colour
    /// (S-CIELAB). At 70, 128 entries take 0.83–1.01 of the bytes for the same ΔE and
    /// 0.87–0.90 for the same SSIM on four photo pairs; 64 entries there gain more on three
    /// of them but cost a sunset sky its gradients (docs/decisions/gif-encoder.md).
    package var paletteHalvings: Double { Self.halvings(value, from: 80) }

    /// How many times any other picture's palette (screenshots, gradients, artwork) is
    /// halved: the photo's steps 20 lower, none from 60 up, 128 entries at 50, 64 at 40.
    /// Without texture to hide them, fewer colours show as banding and rougher text, so they
    /// come late; but below 60 the lossy budget alone barely shrinks such a file (a gradient
    /// pair: 86.6 KB at 60, 85.0 KB at 40), where the peer's small files are 15 % smaller
    /// (docs/decisions/gif-encoder.md).
    package var flatPaletteHalvings: Double { Self.halvings(value, from: 60) }

    /// None from `top` up, one every 10 steps for 20 steps, then one every 20.
    private static func halvings(_ value: Int, from top: Int) -> Double {
        if value >= top { return 0 }
        if value >= top - 20 { return Double(top - value) / 10 }
        return 2 + Double(top - 20 - value) / 20
    }

    /// k-means refinement passes over the palette (more at the top, where they show).
    package var paletteIterations: Int { value >= 90 ? 10 : 6 }
}
