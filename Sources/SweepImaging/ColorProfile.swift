import CLCMS2
import SweepSupport

/// Colour management with lcms2: converts pixels described by an embedded ICC profile to
/// sRGB, so a Display P3 or Adobe RGB photo keeps its colours instead of looking washed out.
package enum ColorProfile {
    /// Converts `image` (RGBA, alpha kept) from the RGB profile `icc` to sRGB in place.
    ///
    /// Profiles that are not RGB (grey, CMYK: the decoder has already turned those
    /// pixels into RGB) and unreadable profiles leave the image unchanged and return false.
    @discardableResult
    package static func convertToSRGB(_ image: inout RGBAImage, icc: [UInt8]) -> Bool {
        guard !icc.isEmpty else { return false }
        let source: cmsHPROFILE? = icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }
        guard let source else { return false }
        defer { cmsCloseProfile(source) }
        guard cmsGetColorSpace(source) == cmsSigRgbData else { return false }
        return convert(&image, from: source)
    }

    /// CIE xy chromaticities of an RGB colour space: its three primaries and white point.
    package struct Primaries: Sendable, Equatable {
        package var red: (x: Double, y: Double), green: (x: Double, y: Double), blue: (x: Double, y: Double)
        package var white: (x: Double, y: Double)

        package init(
            red: (x: Double, y: Double), green: (x: Double, y: Double), blue: (x: Double, y: Double),
            white: (x: Double, y: Double)
        ) {
            (self.red, self.green, self.blue, self.white) = (red, green, blue, white)
        }

        package static func == (a: Primaries, b: Primaries) -> Bool {
            a.red == b.red && a.green == b.green && a.blue == b.blue && a.white == b.white
        }

        /// Display P3 (SMPTE EG 432-1, D65): iPhone photos.
        package static let displayP3 = Primaries(
            red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060),
            white: (0.3127, 0.3290))
        /// BT.2020 / BT.2100 (D65).
        package static let bt2020 = Primaries(
            red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046),
            white: (0.3127, 0.3290))
    }

    /// Converts `image` (RGBA, alpha kept) from the colour space with `primaries` and the sRGB
    /// transfer curve to sRGB in place: what a HEIF or AVIF photo tagged only with coded
    /// primaries (an `nclx` box, no ICC profile) needs.
    ///
    /// The curve stays sRGB's on both sides, so only the gamut moves; colours outside sRGB
    /// are clipped (perceptual intent has no gamut table in a matrix profile).
    ///
    /// - Returns: false (image unchanged) when lcms2 cannot build the profile, e.g. from
    ///   degenerate chromaticities.
    @discardableResult
    package static func convertToSRGB(_ image: inout RGBAImage, primaries p: Primaries) -> Bool {
        // sRGB's curve as ICC parametric type 4: Y = (aX + b)^g above d, cX below.
        let params: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        guard let curve = cmsBuildParametricToneCurve(nil, 4, params) else { return false }
        defer { cmsFreeToneCurve(curve) }
        var white = cmsCIExyY(x: p.white.x, y: p.white.y, Y: 1)
        var triple = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: p.red.x, y: p.red.y, Y: 1),
            Green: cmsCIExyY(x: p.green.x, y: p.green.y, Y: 1),
            Blue: cmsCIExyY(x: p.blue.x, y: p.blue.y, Y: 1))
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard let source = cmsCreateRGBProfile(&white, &triple, &curves) else { return false }
        defer { cmsCloseProfile(source) }
        return convert(&image, from: source)
    }

    /// Runs an lcms2 transform from `source` to sRGB over `image`'s pixels.
    private static func convert(_ image: inout RGBAImage, from source: cmsHPROFILE) -> Bool {
        guard let srgb = cmsCreate_sRGBProfile() else { return false }
        defer { cmsCloseProfile(srgb) }
        guard
            let transform = cmsCreateTransform(
                source, sweep_type_rgba_8, srgb, sweep_type_rgba_8,
                cmsUInt32Number(INTENT_PERCEPTUAL), sweep_flags_copy_alpha)
        else { return false }
        defer { cmsDeleteTransform(transform) }
        let count = image.width * image.height
        image.pixels.withUnsafeMutableBytes { p in
            cmsDoTransform(transform, p.baseAddress, p.baseAddress, cmsUInt32Number(count))
        }
        return true
    }
}
