import CFFmpeg
import CHeif
import SweepImaging
import SweepSupport

/// Decodes HEIC/HEIF (iPhone photos) and AVIF stills through libheif, to sRGB like every
/// other input.
///
/// The primary image is decoded with libheif's geometric transformations applied (`irot`,
/// `imir`, `clap`), so a photo stands as it was shot. Colour: an ICC profile (an iPhone's
/// Display P3) is converted by lcms2; without one, coded primaries (`nclx`: Display P3,
/// BT.2020, …) are. HDR photos (PQ or HLG transfer) are tone-mapped to SDR BT.709 by the
/// clips' chain (``ToneMapper``), from libheif's R′G′B′ at full depth, or refused if asked.
///
/// An EXIF orientation inside the file is not applied: HEIF makes `irot`/`imir` the
/// authority, and iPhones write both, so applying the EXIF tag too would turn the photo twice.
///
/// Before libheif decodes anything, the file's own boxes are read (``HEIFBoxes``) and files
/// libheif 1.15 mishandles are refused: derived primaries other than a grid (an overlay
/// overruns its heap), predictively coded ones (decoded as flat grey), image sequences, and
/// grids whose declared size is over the pixel limit behind a small `ispe`. Valid files it
/// cannot open at all (an `iden` item without item data) are refused as unsupported, exit 69.
enum HEIFDecoder {
    /// Decodes `bytes` (already recognised as HEIF or AVIF) to opaque RGBA over `background`.
    ///
    /// - Throws: ``SweepError/Code/dataError`` for a corrupt or unsupported file, an HDR
    ///   photo when `hdr` is `.refuse`, or one over `maxPixels` (checked from the header,
    ///   before decoding); ``SweepError/Code/unavailable`` for a valid file this libheif
    ///   cannot open.
    static func decode(
        bytes: [UInt8], name: String, background: RGBA8, maxPixels: Int, hdr: HDRHandling = .tonemap
    ) throws -> RGBAImage {
        if let failed = HEIFCall.initialisation { throw failed }
        let plan = try vet(bytes, name: name, maxPixels: maxPixels)
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
            if let transfer = colour.hdr {
                guard hdr == .tonemap else { throw ImageDecoder.hdrRefused(name, transfer: transfer.name) }
                let planes = try HEIFImage(decoding: handle, subject: name, fullDepth: true)
                return try planes.toneMapped(
                    colour, subject: name, maxPixels: maxPixels, chroma: HEIFImage.repeatsChroma ? plan.chroma : nil)
            }
            // libheif 1.15 copies 4:0:0 samples to RGB as they are, ignoring the range: limited-
            // range black comes out at 16. The range is the nclx box's, else the bitstream's
            // (libheif's rule for colour, and the browsers'), read by decoding the coded
            // picture as it is: only for monochrome pictures without nclx, which are rare.
            var expand = false
            if plan.monochrome {
                if let full = colour.fullRange {
                    expand = !full
                } else if plan.coded == plan.primary {
                    expand = try !HEIFImage(decoding: handle, subject: name, native: true).fullRange
                } else {
                    expand = true  // a grid's tiles and an iden's source are out of libheif 1.15's reach; HEVC's default
                }
            }
            let decoded = try HEIFImage(decoding: handle, subject: name)
            var image = try decoded.rgba(subject: name, maxPixels: maxPixels, expandLimitedRange: expand)
            // Before compositing, while alpha is still straight (as for the other formats).
            switch colour.meaning {
            case .icc(let icc): ColorProfile.convertToSRGB(&image, icc: icc)
            case .primaries(let p): ColorProfile.convertToSRGB(&image, primaries: p)
            case .sRGB: break
            }
            return image
        }
        return ImageDecoder.flatten(image, over: background)
    }

    /// What vetting found out about the primary image, for decoding it.
    private struct Plan {
        let primary: UInt32
        /// The item whose bitstream is decoded first: the primary itself, a grid's first tile,
        /// or what an `iden` refers to.
        let coded: UInt32
        /// Whether that bitstream is 4:0:0 (its range then needs care, see `decode`).
        let monochrome: Bool
        /// Where the coded pictures' 4:2:0 chroma samples sit once turned, when no mirror or crop
        /// moves the 2×2 blocks libheif repeats them over; `nil` otherwise.
        let chroma: HEIFBoxes.ChromaSiting?
    }

    /// The item types libheif 1.15 decodes safely: HEVC and AV1 coded images.
    private static let codedTypes: Set = ["hvc1", "av01"]

    /// Reads the file's boxes and refuses, before libheif decodes anything, what libheif 1.15
    /// cannot decode safely or rightly: see the type's summary.
    private static func vet(_ bytes: [UInt8], name: String, maxPixels: Int) throws -> Plan {
        func unsupported(_ what: String, fix: String = "export the photo again as a plain HEIC or JPEG") -> SweepError {
            SweepError(.dataError, what, subject: name, fix: fix)
        }
        let boxes: HEIFBoxes
        do { boxes = try HEIFBoxes(bytes) } catch { throw HEIFCall.corrupt(name, Substring(error.reason)) }
        guard boxes.hasMeta, let primary = boxes.primary else {
            // A sequence (msf1/avis) keeps its pictures in a track, without a primary still.
            let sequenceBrands: Set = ["msf1", "heis", "hevs", "avis"]
            if boxes.hasMovie || boxes.brands.contains(where: sequenceBrands.contains) {
                let kind = boxes.brands.contains("avis") ? "an AVIF" : "an HEIF"
                throw unsupported("the file is \(kind) image sequence, which sweep does not read", fix: "export a still or an MP4")
            }
            throw HEIFCall.corrupt(name, boxes.hasMeta ? "no primary image" : "no meta box")
        }
        guard let item = boxes.items[primary] else { throw HEIFCall.corrupt(name, "the primary image is not described") }

        /// Refuses `id` if it depends on other pictures to be decoded (`pred` references, or an
        /// `rref` property, as in conformance file C044): libheif 1.15 decodes it alone, grey.
        func requireIndependent(_ id: UInt32) throws {
            guard boxes.references("pred", from: id).isEmpty, boxes.property("rref", of: id) == nil else {
                throw unsupported(
                    "the primary image is predictively coded (it needs other images to decode), which this libheif (1.15) "
                        + "decodes as flat grey")
            }
        }
        /// Refuses a declared size over the limit: a derived image's `ispe` may say anything.
        func requireWithinLimit(_ id: UInt32) throws {
            if let (w, h) = boxes.spatialExtent(of: id), ImageDecoder.exceeds(w, h, maxPixels) {
                throw ImageDecoder.overLimit(w, h, maxPixels, name: name)
            }
        }
        /// Checks a grid: its tiles coded, its declared output within the limit, its tiles
        /// of one size that fits it (as the specification says); returns its first tile.
        func vetGrid(_ id: UInt32) throws -> UInt32 {
            // The grid's own description (ImageGrid): version, flags (bit 0: 32-bit sizes),
            // rows - 1, columns - 1, output width, output height.
            guard let head = boxes.data(of: id, prefix: 8) else { throw HEIFCall.corrupt(name, "the grid is not described") }
            let wide = head[1] & 1 != 0
            guard let data = boxes.data(of: id, prefix: wide ? 12 : 8) else { throw HEIFCall.corrupt(name, "the grid is not described") }
            func field(_ i: Int) -> Int {
                wide ? data[4 + 4 * i..<8 + 4 * i].reduce(0) { $0 << 8 | Int($1) } : Int(data[4 + 2 * i]) << 8 | Int(data[5 + 2 * i])
            }
            let rows = Int(data[2]) + 1, columns = Int(data[3]) + 1
            let (w, h) = (field(0), field(1))
            if ImageDecoder.exceeds(w, h, maxPixels) { throw ImageDecoder.overLimit(w, h, maxPixels, name: name) }
            try requireWithinLimit(id)
            let tiles = boxes.references("dimg", from: id)
            guard tiles.count == rows * columns, w > 0, h > 0 else { throw HEIFCall.corrupt(name, "the grid's tiles are missing") }
            guard let size = boxes.spatialExtent(of: tiles[0]) else { throw HEIFCall.corrupt(name, "a grid tile has no size") }
            for tile in tiles {
                let type = boxes.items[tile]?.type ?? "?"
                guard codedTypes.contains(type) else {
                    throw unsupported("the primary image is a grid of '\(type)' images, which this libheif (1.15) cannot decode safely")
                }
                try requireIndependent(tile)
                guard let s = boxes.spatialExtent(of: tile), s == size else {
                    throw HEIFCall.corrupt(name, "the grid's tiles differ in size")
                }
            }
            // Tiles up to a megapixel are ordinary (512² on iPhones); larger ones are held to the limit.
            if ImageDecoder.exceeds(size.width, size.height, max(maxPixels, 1 << 20)) {
                throw ImageDecoder.overLimit(size.width, size.height, maxPixels, name: name)
            }
            // The tiles cover the output, with less than one tile to spare each way.
            guard (columns - 1) * size.width < w, w <= columns * size.width, (rows - 1) * size.height < h, h <= rows * size.height
            else { throw HEIFCall.corrupt(name, "the grid's tiles do not fit its size") }
            return tiles[0]
        }
        /// Checks what libheif decodes for `id` (coded or a grid) and returns its first coded item.
        func vetPicture(_ id: UInt32, type: String) throws -> UInt32 {
            try requireIndependent(id)
            try requireWithinLimit(id)
            switch type {
            case _ where codedTypes.contains(type): return id
            case "grid": return try vetGrid(id)
            case "iovl":
                throw unsupported("the primary image is an overlay (iovl), which this libheif (1.15) cannot decode safely")
            case "iden":
                throw unsupported(
                    "the primary image is derived from a derived image (iden), which this libheif (1.15) cannot decode safely")
            default:
                throw unsupported("the primary image is of type '\(type)', which this libheif (1.15) cannot decode")
            }
        }

        var coded: UInt32
        if item.type == "iden" {
            // An identity derivation (a crop or turn of another image): one level, of a coded image or grid.
            let sources = boxes.references("dimg", from: primary)
            guard sources.count == 1, let source = boxes.items[sources[0]] else {
                throw HEIFCall.corrupt(name, "the derived image's source is missing")
            }
            try requireIndependent(primary)
            try requireWithinLimit(primary)
            coded = try vetPicture(sources[0], type: source.type)
        } else {
            coded = try vetPicture(primary, type: item.type)
        }
        // Its alpha plane, if any (an auxiliary image referring to it), is decoded too.
        for alpha in boxes.referrers("auxl", to: primary) {
            _ = try vetPicture(alpha, type: boxes.items[alpha]?.type ?? "?")
        }
        try requireLocatedIdentities(boxes, name: name)
        // Grid tiles of even sides keep the 2×2 blocks aligned across the picture.
        let evenTiles = boxes.spatialExtent(of: coded).map { $0.width % 2 == 0 && $0.height % 2 == 0 } ?? false
        return Plan(
            primary: primary, coded: coded, monochrome: boxes.isMonochrome(coded),
            chroma: evenTiles ? boxes.chromaSiting420(coded, shownAs: primary) : nil)
    }

    /// The first libheif version that opens a file with an `iden` item lacking an `iloc`
    /// entry (1.18.0, as `heif_get_version_number` encodes it).
    private static let bodilessIdentityVersion: UInt32 = 0x0112_0000

    /// Refuses, as a missing feature (exit 69), a valid file libheif before 1.18 cannot open:
    /// an identity derivation (`iden`, a crop or turn of another image) has no item body, so
    /// HEIF lets it go without an `iloc` entry (conformance files C008, C014, C023), but
    /// libheif 1.15 reads every item's data while opening the file and fails on the first
    /// one that has none. Every item is checked, the primary or not: an unused one fails too.
    private static func requireLocatedIdentities(_ boxes: HEIFBoxes, name: String) throws {
        guard heif_get_version_number() < bodilessIdentityVersion else { return }
        let bare = boxes.items.filter { $0.value.type == "iden" && !boxes.isLocated($0.key) }.keys
        guard let first = bare.min() else { return }
        let version = String(cString: heif_get_version())
        throw SweepError(
            .unavailable,
            "the file uses an identity-derived image without item data (iden, item \(first)), valid HEIF that "
                + "libheif \(version) cannot open (1.18 and later can)",
            subject: name, fix: "convert it to PNG or JPEG with libheif 1.18 or later (heif-convert), or run sweep with that libheif")
    }

    /// What the pixels' colours mean, and their range, from the handle's `colr` boxes.
    fileprivate struct Colour {
        enum Meaning {
            case icc([UInt8])
            case primaries(ColorProfile.Primaries)
            case sRGB
        }
        var meaning = Meaning.sRGB
        /// The nclx box's full_range_flag; `nil` without an nclx box.
        var fullRange: Bool?
        /// An HDR transfer (PQ or HLG) with the nclx box's primaries and matrix (H.273 codes,
        /// which FFmpeg's enumerations share); `nil` for SDR.
        var hdr: (name: String, transfer: Int32, primaries: Int32, matrix: Int32)?

        init(of handle: borrowing HEIFImageHandle, subject: String) throws {
            // Both boxes may be present; the nclx one is read for its transfer curve either way.
            var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
            let hasNclx = try HEIFCall.present(
                heif_image_handle_get_nclx_color_profile(handle.ptr, &nclx),
                "the colour description is unreadable", subject: subject)
            defer { heif_nclx_color_profile_free(nclx) }
            if hasNclx, let n = nclx?.pointee {
                fullRange = n.full_range_flag != 0
                let tc = n.transfer_characteristics
                if tc == heif_transfer_characteristic_ITU_R_BT_2100_0_PQ || tc == heif_transfer_characteristic_ITU_R_BT_2100_0_HLG {
                    let curve = tc == heif_transfer_characteristic_ITU_R_BT_2100_0_PQ ? "PQ" : "HLG"
                    hdr = (curve, Int32(tc.rawValue), Int32(n.color_primaries.rawValue), Int32(n.matrix_coefficients.rawValue))
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
                meaning = .icc(icc)
                return
            }
            // BT.709 primaries are sRGB's, and "unspecified" is taken as sRGB, as browsers do.
            guard hasNclx, let n = nclx?.pointee, n.color_primaries != heif_color_primaries_ITU_R_BT_709_5,
                n.color_primaries != heif_color_primaries_unspecified, n.color_primary_white_y > 0
            else { return }
            meaning = .primaries(
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

    /// Decodes `handle` to interleaved 8-bit RGBA, transformations (`irot`, `imir`, `clap`)
    /// applied; or, if `native`, to the coded planes as they are (to learn their range).
    /// With `fullDepth`, to planar R′G′B′ at the coded bit depth instead (for tone-mapping).
    init(decoding handle: borrowing HEIFImageHandle, subject: String, native: Bool = false, fullDepth: Bool = false) throws {
        guard let options = heif_decoding_options_alloc() else {
            throw SweepError(.internalError, "out of memory", subject: subject)
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = 0  // the default, stated: upright is the point
        options.pointee.convert_hdr_to_8bit = fullDepth ? 0 : 1  // 10-bit SDR photos come out as 8-bit RGBA
        var p: OpaquePointer?
        try HEIFCall.check(
            heif_decode_image(
                handle.ptr, &p, fullDepth || !native ? heif_colorspace_RGB : heif_colorspace_undefined,
                fullDepth ? heif_chroma_444 : native ? heif_chroma_undefined : heif_chroma_interleaved_RGBA, options),
            "the image cannot be decoded", subject: subject)
        guard let p else { throw HEIFCall.corrupt(subject) }
        ptr = p
    }
    deinit { heif_image_release(ptr) }

    /// The planar R′G′B′ (``init(decoding:subject:native:fullDepth:)`` with `fullDepth`) of an
    /// HDR photo, tone-mapped to SDR BT.709 by ``ToneMapper`` and converted to RGBA. Alpha is
    /// dropped: HDR photos with transparency are rare, and the chain has no alpha.
    ///
    /// R′G′B′, not Y′CbCr: libheif (1.15) turns every decoded picture into R′G′B′ by the file's
    /// matrix and range first, and asked for Y′CbCr it converts that back with BT.601's matrix,
    /// whatever the file's, which the chain, told the file's matrix, would misread (colours
    /// off by a mean ΔE2000 of 2.4 on FFmpeg's test pattern).
    ///
    /// With `chroma` (4:2:0 pictures whose chroma libheif repeated over 2×2 blocks), the chain
    /// is given the coded Y′CbCr back instead, so that zimg interpolates the chroma at its siting
    /// as FFmpeg and libavif do: see ``codedPlanes(_:into:bits:fullRange:matrix:siting:subject:)``.
    func toneMapped(_ colour: HEIFDecoder.Colour, subject: String, maxPixels: Int, chroma: HEIFBoxes.ChromaSiting?) throws
        -> RGBAImage
    {
        guard let hdr = colour.hdr else { throw SweepError(.internalError, "not an HDR photo", subject: subject) }
        let w = Int(heif_image_get_width(ptr, heif_channel_R)), h = Int(heif_image_get_height(ptr, heif_channel_R))
        guard w > 0, h > 0 else { throw HEIFCall.corrupt(subject, "no red plane") }
        if ImageDecoder.exceeds(w, h, maxPixels) { throw ImageDecoder.overLimit(w, h, maxPixels, name: subject) }
        let bits = Int(heif_image_get_bits_per_pixel_range(ptr, heif_channel_R))
        let format = av_get_pix_fmt(bits <= 8 ? "gbrp" : "gbrp\(bits)le")
        guard format != AV_PIX_FMT_NONE, bits <= 16 else {
            throw SweepError(.dataError, "HDR photos of \(bits) bits are not supported", subject: subject, fix: "export it as SDR")
        }
        let frame = try FrameHandle()
        let f = frame.ptr
        (f.pointee.width, f.pointee.height, f.pointee.format) = (Int32(w), Int32(h), format.rawValue)
        try FFmpegCall.check(av_frame_get_buffer(f, 0), "cannot allocate the photo", subject: subject, kind: .internalError)
        // libheif keeps samples over 8 bits in 16-bit words, as FFmpeg's little-endian formats do.
        let rowBytes = w * (bits <= 8 ? 1 : 2)
        let (planes, strides) = (Self.planes(of: f), Self.strides(of: f))
        // FFmpeg's planar R′G′B′ keeps green first, then blue, then red.
        for (p, channel) in [heif_channel_G, heif_channel_B, heif_channel_R].enumerated() {
            var stride: Int32 = 0
            guard let src = heif_image_get_plane_readonly(ptr, channel, &stride),
                heif_image_get_width(ptr, channel) == Int32(w), heif_image_get_height(ptr, channel) == Int32(h)
            else { throw HEIFCall.corrupt(subject, "no plane \(p)") }
            guard Int(stride) >= rowBytes else { throw HEIFCall.corrupt(subject, "plane \(p) is short") }
            for y in 0..<h { (planes[p] + y * strides[p]).update(from: src + y * Int(stride), count: rowBytes) }
        }
        f.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(hdr.transfer))
        f.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(hdr.primaries))
        // The coded matrix decides what zimg could convert (libheif would take constant
        // luminance for the usual matrix); the planes themselves are R′G′B′, full range
        // whatever the file's Y′CbCr range was.
        f.pointee.colorspace = AVColorSpace(rawValue: UInt32(hdr.matrix))
        try ToneMapper.checkConvertible(f, subject: subject)
        f.pointee.colorspace = AVCOL_SPC_RGB
        f.pointee.color_range = AVCOL_RANGE_JPEG
        let coded = try FrameHandle()
        let recovered = try chroma.map {
            try Self.codedPlanes(
                f, into: coded.ptr, bits: bits, fullRange: colour.fullRange ?? false, matrix: hdr.matrix, siting: $0, subject: subject)
        }
        let sdr = try FrameHandle()
        try ToneMapper(subject: subject, still: true).map(recovered == true ? coded.ptr : f, into: sdr.ptr, size: nil)
        return try ToneMapper.rgba(of: sdr.ptr, subject: subject)
    }

    /// Whether this libheif repeats each 4:2:0 chroma sample over its 2×2 block when it makes
    /// R′G′B′ (1.15 and before; 1.16 made the upsampling a decoding option).
    static let repeatsChroma = heif_get_version_number_major() == 1 && heif_get_version_number_minor() < 16

    /// Writes into `f` the coded 4:2:0 Y′CbCr behind `rgb` (planar R′G′B′ of `bits` bits, from
    /// 4:2:0 chroma repeated over 2×2 blocks), tagged with its matrix, range and `siting`;
    /// `false` (nothing written) for a matrix other than BT.2020's, BT.709's or BT.601's, or odd sides.
    ///
    /// Each pixel's R′G′B′ is turned back into Y′CbCr by the file's matrix; the four Cb (and
    /// Cr) of a block, equal but for libheif's rounding, are averaged. On FFmpeg's test pattern
    /// this gives back exactly the planes FFmpeg's and libavif's decoders give. Where libheif
    /// clipped R′G′B′ (chroma past the gamut at a coloured edge), the sample is off by the clipping.
    static func codedPlanes(
        _ rgb: UnsafeMutablePointer<AVFrame>, into f: UnsafeMutablePointer<AVFrame>, bits: Int, fullRange: Bool, matrix: Int32,
        siting: HEIFBoxes.ChromaSiting, subject: String
    ) throws -> Bool {
        let (w, h) = (Int(rgb.pointee.width), Int(rgb.pointee.height))
        // H.273's matrices 9 (BT.2020 non-constant), 1 (BT.709), 5 and 6 (BT.601).
        let weights: YUVMatrix? =
            switch matrix {
            case 9: .bt2020
            case 1: .bt709
            case 5, 6: .bt601
            default: nil
            }
        let format = av_get_pix_fmt(bits <= 8 ? "yuv420p" : "yuv420p\(bits)le")
        guard let (kr, kb) = weights.map({ ($0.kr, $0.kb) }), w % 2 == 0, h % 2 == 0, bits <= 12, format != AV_PIX_FMT_NONE else {
            return false
        }
        (f.pointee.width, f.pointee.height, f.pointee.format) = (Int32(w), Int32(h), format.rawValue)
        try FFmpegCall.check(av_frame_get_buffer(f, 0), "cannot allocate the photo", subject: subject, kind: .internalError)
        let maximum = Double((1 << bits) - 1)
        // H.273's quantisation: limited range puts Y′ on 16...235 and Cb, Cr on 16...240 (at 8 bits).
        let scale = Double(1 << (bits - 8))
        func luma(_ y: Double) -> Double { fullRange ? y * maximum : (16 + 219 * y) * scale }
        func colour(_ c: Double) -> Double { fullRange ? Double(1 << (bits - 1)) + c * maximum : (128 + 224 * c) * scale }
        func sample(_ plane: UnsafeMutablePointer<UInt8>, _ stride: Int, _ x: Int, _ y: Int) -> Double {
            bits <= 8
                ? Double(plane[y * stride + x]) : Double((plane + y * stride).withMemoryRebound(to: UInt16.self, capacity: x + 1) { $0[x] })
        }
        func store(_ v: Double, _ plane: UnsafeMutablePointer<UInt8>, _ stride: Int, _ x: Int, _ y: Int) {
            let q = min(max(v.rounded(), 0), maximum)
            if bits <= 8 {
                plane[y * stride + x] = UInt8(q)
            } else {
                (plane + y * stride).withMemoryRebound(to: UInt16.self, capacity: x + 1) { $0[x] = UInt16(q) }
            }
        }
        let (src, srcStride) = (planes(of: rgb), strides(of: rgb))
        let (dst, dstStride) = (planes(of: f), strides(of: f))
        let kg = 1 - kr - kb
        for by in stride(from: 0, to: h, by: 2) {
            for bx in stride(from: 0, to: w, by: 2) {
                var (cb, cr) = (0.0, 0.0)
                for y in by...(by + 1) {
                    for x in bx...(bx + 1) {
                        // FFmpeg's planar R′G′B′ keeps green, blue, red.
                        let g = sample(src[0], srcStride[0], x, y) / maximum
                        let b = sample(src[1], srcStride[1], x, y) / maximum
                        let r = sample(src[2], srcStride[2], x, y) / maximum
                        let yy = kr * r + kg * g + kb * b
                        store(luma(yy), dst[0], dstStride[0], x, y)
                        cb += (b - yy) / (2 * (1 - kb))
                        cr += (r - yy) / (2 * (1 - kr))
                    }
                }
                store(colour(cb / 4), dst[1], dstStride[1], bx / 2, by / 2)
                store(colour(cr / 4), dst[2], dstStride[2], bx / 2, by / 2)
            }
        }
        f.pointee.color_trc = rgb.pointee.color_trc
        f.pointee.color_primaries = rgb.pointee.color_primaries
        f.pointee.colorspace = AVColorSpace(rawValue: UInt32(matrix))
        f.pointee.color_range = fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        f.pointee.chroma_location =
            switch siting {
            case .left: AVCHROMA_LOC_LEFT
            case .center: AVCHROMA_LOC_CENTER
            case .topLeft: AVCHROMA_LOC_TOPLEFT
            case .top: AVCHROMA_LOC_TOP
            case .bottom: AVCHROMA_LOC_BOTTOM
            case .bottomLeft: AVCHROMA_LOC_BOTTOMLEFT
            }
        return true
    }

    /// The first three plane pointers of `frame`.
    private static func planes(of frame: UnsafeMutablePointer<AVFrame>) -> [UnsafeMutablePointer<UInt8>] {
        withUnsafeBytes(of: frame.pointee.data) { d in (0..<3).map { d.load(fromByteOffset: $0 * 8, as: UnsafeMutablePointer<UInt8>.self) }
        }
    }

    /// The first three row strides of `frame`, in bytes.
    private static func strides(of frame: UnsafeMutablePointer<AVFrame>) -> [Int] {
        withUnsafeBytes(of: frame.pointee.linesize) { l in (0..<3).map { Int(l.load(fromByteOffset: $0 * 4, as: Int32.self)) } }
    }

    /// Whether the decoded planes are full range: the item's nclx box if it has one, else the
    /// bitstream's (which libheif's decoders always report; full if neither does).
    var fullRange: Bool {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        defer { heif_nclx_color_profile_free(nclx) }
        guard heif_image_get_nclx_color_profile(ptr, &nclx).code == heif_error_Ok, let n = nclx?.pointee else { return true }
        return n.full_range_flag != 0
    }

    /// The pixels, copied row by row out of libheif's padded plane; with
    /// `expandLimitedRange`, grey levels 16...235 are stretched to 0...255 (BT.601's scale).
    func rgba(subject: String, maxPixels: Int, expandLimitedRange: Bool = false) throws -> RGBAImage {
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
            if expandLimitedRange {
                // Premultiplied values are expanded as they are: libheif does the same for colour.
                let table = (0..<256).map { UInt8(clamping: (($0 - 16) * 255 + 219 / 2) / 219) }
                for i in 0..<dst.count where i & 3 != 3 { dst[i] = table[Int(dst[i])] }
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
