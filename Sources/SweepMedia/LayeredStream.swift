/// What sweep draws of a clip whose stream holds more than one picture: the base layer of a
/// Dolby Vision clip (its enhancement and reshaping metadata are not applied), or the base view
/// of a spatial (MV-HEVC) clip (its second eye is not decoded by FFmpeg 5.1).
///
/// Crosses from a decode worker to sweep as numbers and words from fixed lists (``checked``),
/// and becomes notes there (``notes(side:)``).
package struct LayeredStream: Codable, Sendable, Equatable {
    /// The Dolby Vision profile (5, 7, 8, 9, 10), when the stream carries its configuration.
    package var dolbyVisionProfile: Int?
    /// The base layer's signal (`bl_signal_compatibility_id`): 1 HDR10, 2 SDR, 4 HLG, 6 HDR10
    /// (Blu-ray); 0 is none a player without Dolby Vision can show.
    package var dolbyVisionCompatibility: Int?
    /// The eye of a spatial clip's base view, "left" or "right"; nil for one view.
    package var baseEye: String?

    package init(dolbyVisionProfile: Int? = nil, dolbyVisionCompatibility: Int? = nil, baseEye: String? = nil) {
        (self.dolbyVisionProfile, self.dolbyVisionCompatibility, self.baseEye) =
            (dolbyVisionProfile, dolbyVisionCompatibility, baseEye)
    }

    /// The base layer signals a Dolby Vision clip's compatibility id names, in words.
    static let baseLayers = [1: "HDR10", 2: "SDR", 4: "HLG", 6: "HDR10"]

    /// The Dolby Vision profile as it is written: 8.4 for profile 8 over HLG, 7 or 9 alone.
    static func profileName(_ profile: Int, _ compatibility: Int) -> String {
        profile == 8 || profile == 10 ? "\(profile).\(compatibility)" : "\(profile)"
    }

    /// The same, with anything outside the lists dropped (a worker's answer is not trusted).
    package var checked: LayeredStream {
        var c = LayeredStream()
        if let p = dolbyVisionProfile, (0...31).contains(p), let id = dolbyVisionCompatibility, Self.baseLayers[id] != nil {
            (c.dolbyVisionProfile, c.dolbyVisionCompatibility) = (p, id)
        }
        if baseEye == "left" || baseEye == "right" { c.baseEye = baseEye }
        return c
    }

    /// One note per layer left out, for the clip on `side` ("before", "after").
    package func notes(side: String) -> [String] {
        var notes: [String] = []
        if let p = dolbyVisionProfile, let id = dolbyVisionCompatibility, let base = Self.baseLayers[id] {
            notes.append(
                "the \(side) clip is Dolby Vision (profile \(Self.profileName(p, id))): drawn from its \(base) base layer, "
                    + "without the Dolby Vision metadata")
        }
        if let eye = baseEye {
            notes.append("the \(side) clip is spatial video (MV-HEVC): only its base view, the \(eye) eye, is drawn")
        }
        return notes
    }
}
