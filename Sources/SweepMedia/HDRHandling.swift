/// What to do with an HDR input (PQ or HLG transfer), whose pictures shown as SDR as they
/// are would be flat and washed out.
public enum HDRHandling: String, Sendable, CaseIterable {
    /// Tone-map it to SDR BT.709 (`ToneMapper`), with a note: the default.
    case tonemap
    /// Refuse it (exit 65): for a pipeline where a clip's tones must not be changed unasked.
    case refuse
}
