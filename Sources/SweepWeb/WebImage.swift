/// One encoded side image for the page: its bytes and their MIME type.
package struct WebImage: Sendable, Equatable {
    /// The encoded file (JPEG, WebP or PNG).
    package var bytes: [UInt8]
    /// Its MIME type, e.g. `image/jpeg`.
    package var mimeType: String

    /// An image from encoded bytes and their MIME type.
    package init(bytes: [UInt8], mimeType: String) {
        self.bytes = bytes
        self.mimeType = mimeType
    }

    /// A `data:` URI holding the image, which the page's CSP (`img-src data:`) allows.
    package var dataURI: String { "data:\(mimeType);base64," + Base64.encode(bytes) }
}
