/// Options explained together (`--start T, --end T`): one entry in `--help` and one in the
/// man page, under one section.
package struct OptionGroup: Sendable {
    /// Where a group stands in help and the man page, in this order.
    package enum Section: CaseIterable, Sendable {
        case animation, videoInputs, output, encoders, page, look, messages

        /// The heading in `--help`.
        package var helpTitle: String {
            switch self {
            case .animation: "animation"
            case .videoInputs: "video inputs"
            case .output: "output"
            case .encoders: "encoders and limits"
            case .page: "interactive page (.html)"
            case .look: "look"
            case .messages: "messages"
            }
        }

        /// The heading in the man page.
        package var manualTitle: String {
            switch self {
            case .animation: "Animation"
            case .videoInputs: "Video inputs"
            case .output: "Output"
            case .encoders: "Encoders and limits"
            case .page: "Interactive pages (.html)"
            case .look: "Look and styling"
            case .messages: "Messages"
            }
        }

        /// The man page's paragraph under the heading, if any.
        package var manualIntro: String? {
            switch self {
            case .videoInputs:
                """
                BEFORE and AFTER may be videos (MP4, MOV, MKV, WebM, AVI, MPEG-TS, an animated GIF, APNG or WebP), \
                in any mix with photos; a photo is held for the whole clip. Frames are matched by presentation time, \
                each clip counted from its own time 0. The output lasts as long as the shorter clip, runs at the before \
                clip's frame rate unless --fps says otherwise, and the animation is stretched over it (--loop repeats \
                it at its own length instead).
                """
            default: nil
            }
        }
    }

    package let section: Section
    package let options: [OptionDeclaration]
    /// The explanation in `--help`, one paragraph wrapped there to the terminal's width.
    package let help: String
    /// The man page's paragraph; `--name` words are set in bold. Nil: the help line.
    package let manual: String?

    package init(_ section: Section, help: String, manual: String? = nil, _ options: [OptionDeclaration]) {
        self.section = section
        self.help = help
        self.manual = manual
        self.options = options
    }
}
