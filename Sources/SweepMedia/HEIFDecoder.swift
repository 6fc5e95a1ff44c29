import CHeif
import SweepImaging
import SweepSupport

/// Decodes HEIC/HEIF (iPhone photos) and AVIF stills through libheif, to sRGB like every
/// other input.
///
/// The primary image is decoded with libheif's geometric transformations applied (`irot`,
/// `imir`, `clap`), so a photo stands as it was shot. Colour: an ICC profile (an iPhone's
/// Display P3) is converted by lcms2; without one, coded primaries (`nclx`: Display P3,
/// BT.2020, …) are. HDR transfer curves (PQ, HLG) are refused rather than shown wrong.
///
/// An EXIF orientation inside the file is not applied: HEIF makes `irot`/`imir` the
/// authority, and iPhones write both, so applying the EXIF tag too would turn the photo twice.
enum HEIFDecoder {
    /// Decodes `bytes` (already recognised as HEIF or AVIF) to opaque RGBA over `background`.
    ///
    /// - Throws: ``SweepError/Code/dataError`` for a corrupt or unsupported file, an HDR
    ///   photo, or one over `maxPixels` (checked from the header, before decoding).
    static func decode(bytes: [UInt8], name: String, background: RGBA8, maxPixels: Int) throws -> RGBAImage {
        if let failed = HEIFCall.initialisation { throw failed }
        // Everything libheif holds lives inside this closure: the context reads `bytes` in
        // place (no copy of a large photo), so it must not outlive the pointer.
        let image = try bytes.withUnsafeBytes { raw throws -> RGBAImage in
            let context = try HEIFContext(subject: name)
            // libheif's own guard, per side (1.15 has no total-pixel limit): no side may exceed
            // the whole limit, which stops a grid or bitstream from allocating far past it.
            heif_context_set_maximum_image_size_limit(context.ptr, Int32(clamping: maxPixels))
            try HEIFCall.check(
                heif_context_read_from_memory_without_copy(context.ptr, raw.baseAddress, raw.count, nil),
                "not an image sweep can read", subject: name, fix: ImageDecoder.formatsFix)
            let handle = try HEIFImageHandle(primaryOf: context, subject: name)
            // The size after rotation and cropping, from the header: refuse a bomb before decoding.
            let w = Int(heif_image_handle_get_width(handle.ptr)), h = Int(heif_image_handle_get_height(handle.ptr))
            guard w > 0, h > 0 else { throw HEIFCall.corrupt(name) }
            if ImageDecoder.exceeds(w, h, maxPixels) { throw ImageDecoder.overLimit(w, h, maxPixels, name: name) }
            let colour = try Colour(of: handle, subject: name)
            let decoded = try HEIFImage(decoding: handle, subject: name)
            var image = try decoded.rgba(subject: name, maxPixels: maxPixels)
            // Before compositing, while alpha is still straight (as for the other formats).
            switch colour {
            case .icc(let icc): ColorProfile.convertToSRGB(&image, icc: icc)
            case .primaries(let p): ColorProfile.convertToSRGB(&image, primaries: p)
            case .sRGB: break
            }
            return image
        }
        return ImageDecoder.flatten(image, over: background)
    }

    /// What the pixels' colours mean, from the handle's `colr` boxes.
    private enum Colour {
        case icc([UInt8])
        case primaries(ColorProfile.Primaries)
        case sRGB

        init(of handle: borrowing HEIFImageHandle, subject: String) throws {
            // Both boxes may be present; the nclx one is read for its transfer curve either way.
            var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
            let hasNclx = try HEIFCall.present(
                heif_image_handle_get_nclx_color_profile(handle.ptr, &nclx),
                "the colour description is unreadable", subject: subject)
            defer { heif_nclx_color_profile_free(nclx) }
            if hasNclx, let n = nclx?.pointee {
                let tc = n.transfer_characteristics
                if tc == heif_transfer_characteristic_ITU_R_BT_2100_0_PQ || tc == heif_transfer_characteristic_ITU_R_BT_2100_0_HLG {
                    let curve = tc == heif_transfer_characteristic_ITU_R_BT_2100_0_PQ ? "PQ" : "HLG"
                    throw SweepError(
                        .dataError, "HDR photos (\(curve) transfer) are not supported yet", subject: subject,
                        fix: "export the photo as SDR (JPEG, or HEIC/AVIF without HDR)")
                }
            }
            let type = heif_image_handle_get_color_profile_type(handle.ptr)
            if type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC {
                let size = heif_image_handle_get_raw_color_profile_size(handle.ptr)
                // The same cap as a PNG's profile: real ones are a few KB to 1 MB.
                let cap = PNGChunks.maxProfileBytes
                guard size <= cap else {
                    throw SweepError(
                        .dataError, "the colour profile is \(size) bytes, over the limit of \(cap >> 20) MB",
                        subject: subject, fix: "re-export the image with a standard colour profile")
                }
                var icc = [UInt8](repeating: 0, count: size)
                try icc.withUnsafeMutableBytes { p in
                    try HEIFCall.check(
                        heif_image_handle_get_raw_color_profile(handle.ptr, p.baseAddress),
                        "the colour profile is unreadable", subject: subject)
                }
                self = .icc(icc)
                return
            }
            // BT.709 primaries are sRGB's, and "unspecified" is taken as sRGB, as browsers do.
            guard hasNclx, let n = nclx?.pointee, n.color_primaries != heif_color_primaries_ITU_R_BT_709_5,
                n.color_primaries != heif_color_primaries_unspecified, n.color_primary_white_y > 0
            else {
                self = .sRGB
                return
            }
            self = .primaries(
                ColorProfile.Primaries(
                    red: (Double(n.color_primary_red_x), Double(n.color_primary_red_y)),
                    green: (Double(n.color_primary_green_x), Double(n.color_primary_green_y)),
                    blue: (Double(n.color_primary_blue_x), Double(n.color_primary_blue_y)),
                    white: (Double(n.color_primary_white_x), Double(n.color_primary_white_y))))
        }
    }
}

/// The one call-through point to libheif: turns a failed `heif_error` into a ``SweepError``
/// naming the file, what failed and what to do.
private enum HEIFCall {
    /// `heif_init` once per process (it loads the codec plugins); its failure, if any.
    static let initialisation: SweepError? = {
        let e = heif_init(nil)
        guard e.code != heif_error_Ok else { return nil }
        return SweepError(
            .unavailable, "libheif cannot start: \(String(cString: e.message))",
            fix: "check the libheif installation and its plugins")
    }()

    static func corrupt(_ subject: String, _ detail: Substring? = nil) -> SweepError {
        SweepError(
            .dataError, "the image is corrupt or truncated" + (detail.map { " (\($0))" } ?? ""), subject: subject,
            fix: "re-export it from the original")
    }

    /// Returns when `e` is success; otherwise throws: a data error for what the file did
    /// (invalid, truncated, unsupported, over a size limit), an internal error for misuse.
    static func check(_ e: heif_error, _ what: String, subject: String, fix: String? = nil) throws {
        if e.code == heif_error_Ok { return }
        // libheif ends some messages with a newline; errors print as one line.
        var detail = Substring(String(cString: e.message))
        while detail.last?.isWhitespace == true { detail.removeLast() }
        switch e.code {
        case heif_error_Memory_allocation_error where e.subcode == heif_suberror_Security_limit_exceeded:
            throw SweepError(
                .dataError, "the image is over the size limit (\(detail))", subject: subject,
                fix: "raise the pixel limit if the image is genuine", field: .maxPixels)
        case heif_error_Usage_error:
            throw SweepError(.internalError, "\(what): \(detail)", subject: subject)
        case heif_error_Invalid_input, heif_error_Decoder_plugin_error:
            throw corrupt(subject, detail)
        case heif_error_Unsupported_feature, heif_error_Unsupported_filetype:
            throw SweepError(
                .dataError, "\(what): unsupported (\(detail))", subject: subject,
                fix: "convert it to JPEG or PNG")
        default:
            throw SweepError(.dataError, "\(what): \(detail)", subject: subject, fix: fix ?? "re-export it from the original")
        }
    }

    /// For optional parts: `true` when present, `false` when libheif says there is none;
    /// any other failure throws as ``check(_:_:subject:fix:)`` does.
    static func present(_ e: heif_error, _ what: String, subject: String) throws -> Bool {
        if e.code == heif_error_Color_profile_does_not_exist { return false }
        try check(e, what, subject: subject)
        return true
    }
}

// Owners of libheif objects, as in AVOwners.swift: one owner each, released in `deinit` on
// every path. libheif reference-counts the context behind handles, so their order of release
// does not matter.

/// Owns a `heif_context` (`heif_context_alloc` / `heif_context_free`).
private struct HEIFContext: ~Copyable {
    let ptr: OpaquePointer
    init(subject: String) throws {
        guard let p = heif_context_alloc() else { throw SweepError(.internalError, "out of memory", subject: subject) }
        ptr = p
    }
    deinit { heif_context_free(ptr) }
}

/// Owns a `heif_image_handle` (released by `heif_image_handle_release`).
private struct HEIFImageHandle: ~Copyable {
    let ptr: OpaquePointer
    /// The file's primary image: the one a viewer shows.
    init(primaryOf context: borrowing HEIFContext, subject: String) throws {
        var p: OpaquePointer?
        try HEIFCall.check(
            heif_context_get_primary_image_handle(context.ptr, &p), "the file has no readable image",
            subject: subject)
        guard let p else { throw HEIFCall.corrupt(subject) }
        ptr = p
    }
    deinit { heif_image_handle_release(ptr) }
}

/// Owns a decoded `heif_image` (released by `heif_image_release`).
private struct HEIFImage: ~Copyable {
    let ptr: OpaquePointer

    /// Decodes `handle` to interleaved 8-bit RGBA, transformations (`irot`, `imir`, `clap`) applied.
    init(decoding handle: borrowing HEIFImageHandle, subject: String) throws {
        guard let options = heif_decoding_options_alloc() else {
            throw SweepError(.internalError, "out of memory", subject: subject)
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = 0  // the default, stated: upright is the point
        options.pointee.convert_hdr_to_8bit = 1  // 10-bit SDR photos come out as 8-bit RGBA
        var p: OpaquePointer?
        try HEIFCall.check(
            heif_decode_image(handle.ptr, &p, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options),
            "the image cannot be decoded", subject: subject)
        guard let p else { throw HEIFCall.corrupt(subject) }
        ptr = p
    }
    deinit { heif_image_release(ptr) }

    /// The pixels, copied row by row out of libheif's padded plane.
    func rgba(subject: String, maxPixels: Int) throws -> RGBAImage {
        let w = Int(heif_image_get_width(ptr, heif_channel_interleaved))
        let h = Int(heif_image_get_height(ptr, heif_channel_interleaved))
        guard w > 0, h > 0 else { throw HEIFCall.corrupt(subject) }
        // The bitstream, not the header, decides what came out: check it again.
        if ImageDecoder.exceeds(w, h, maxPixels) { throw ImageDecoder.overLimit(w, h, maxPixels, name: subject) }
        var rowBytes: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(ptr, heif_channel_interleaved, &rowBytes),
            Int(rowBytes) >= w * 4
        else { throw HEIFCall.corrupt(subject) }
        var image = RGBAImage(width: w, height: h)
        // libheif 1.15 hands premultiplied pixels (a `prem` reference) over as they are; the
        // colour conversion and the compositing after it expect straight alpha.
        let premultiplied = heif_image_is_premultiplied_alpha(ptr) != 0
        image.pixels.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h {
                (dst.baseAddress! + y * w * 4).update(from: plane + y * Int(rowBytes), count: w * 4)
            }
            guard premultiplied else { return }
            for i in stride(from: 0, to: dst.count, by: 4) {
                let a = Int(dst[i + 3])
                if a == 255 { continue }
                for c in i..<(i + 3) { dst[c] = a == 0 ? 0 : UInt8(min(255, (Int(dst[c]) * 255 + a / 2) / a)) }
            }
        }
        return image
    }
}
