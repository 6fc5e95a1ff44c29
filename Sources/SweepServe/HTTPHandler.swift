/// What answers the ``HTTPServer``'s requests.
package protocol HTTPHandler: Sendable {
    /// Called once a request's headers have arrived: the answer, or the receiver of the
    /// multipart body that comes next.
    func begin(_ request: HTTPRequest) -> HTTPStart
}

/// A handler's first decision about a request.
package enum HTTPStart {
    /// Answer now (the body, if any, is discarded).
    case respond(HTTPResponse)
    /// Read the multipart body into this receiver, then send what its `finish()` returns.
    case receive(any UploadReceiver)
}
