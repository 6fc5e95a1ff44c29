/// An HTTP request as a handler sees it: the method, the path and the headers (names in
/// lower case); its body, if any, reaches an ``UploadReceiver``.
package struct HTTPRequest: Sendable, Equatable {
    package var method: String
    package var path: String
    package var headers: [String: String]
    /// The query string's arguments, decoded (MHD leaves them out of `path`).
    package var query: [String: String]

    package init(method: String, path: String, headers: [String: String] = [:], query: [String: String] = [:]) {
        (self.method, self.path, self.headers, self.query) = (method, path, headers, query)
    }

    /// The announced body length, when there is one and it is a number.
    package var contentLength: Int? { headers["content-length"].flatMap { Int($0) } }

    /// The path without its query string, split into its segments (`/v1/renders/x` →
    /// `["v1", "renders", "x"]`).
    package var segments: [String] {
        let path = self.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return path.split(separator: "/").map(String.init)
    }
}
