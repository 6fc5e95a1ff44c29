/// The poster a page links for link previews (`og:image`, `twitter:image`).
public struct SocialPreview: Sendable, Equatable {
    /// Where the poster is: a URL, or a path relative to the page (some scrapers want an
    /// absolute URL; give one when the page's address is known).
    public var url: String
    /// The poster's size in pixels.
    public var width: Int
    public var height: Int
    /// The image's description, e.g. "Before and after comparison".
    public var alt: String

    /// A poster at `url` of the given size and description.
    public init(url: String, width: Int, height: Int, alt: String) {
        self.url = url
        self.width = width
        self.height = height
        self.alt = alt
    }
}
