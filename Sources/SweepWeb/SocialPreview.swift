/// The poster a page links for link previews (`og:image`, `twitter:image`).
package struct SocialPreview: Sendable, Equatable {
    /// Where the poster is: a URL, or a path relative to the page (some scrapers want an
    /// absolute URL; give one when the page's address is known).
    package var url: String
    /// The poster's size in pixels.
    package var width: Int
    package var height: Int
    /// The image's description, e.g. "Before and after comparison".
    package var alt: String

    /// A poster at `url` of the given size and description.
    package init(url: String, width: Int, height: Int, alt: String) {
        self.url = url
        self.width = width
        self.height = height
        self.alt = alt
    }
}
