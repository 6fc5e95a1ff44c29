import CLCMS2
import SweepSupport

/// Colour management with lcms2: converts pixels described by an embedded ICC profile to
/// sRGB, so a Display P3 or Adobe RGB photo keeps its colours instead of looking washed out.
public enum ColorProfile {
    /// Converts `image` (RGBA, alpha kept) from the RGB profile `icc` to sRGB in place.
    ///
    /// Profiles that are not RGB (grey, CMYK: the decoder has already turned those
    /// pixels into RGB) and unreadable profiles leave the image unchanged and return false.
    @discardableResult
    public static func convertToSRGB(_ image: inout RGBAImage, icc: [UInt8]) -> Bool {
        guard !icc.isEmpty else { return false }
        let source: cmsHPROFILE? = icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }
        guard let source else { return false }
        defer { cmsCloseProfile(source) }
        guard cmsGetColorSpace(source) == cmsSigRgbData else { return false }
        guard let srgb = cmsCreate_sRGBProfile() else { return false }
        defer { cmsCloseProfile(srgb) }
        guard let transform = cmsCreateTransform(source, sweep_type_rgba_8, srgb, sweep_type_rgba_8,
                                                 cmsUInt32Number(INTENT_PERCEPTUAL), sweep_flags_copy_alpha) else { return false }
        defer { cmsDeleteTransform(transform) }
        let count = image.width * image.height
        image.pixels.withUnsafeMutableBytes { p in
            cmsDoTransform(transform, p.baseAddress, p.baseAddress, cmsUInt32Number(count))
        }
        return true
    }
}
