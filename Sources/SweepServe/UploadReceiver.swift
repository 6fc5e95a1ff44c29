/// Takes a multipart body piece by piece, as it arrives (never whole). Called on one
/// connection's thread only.
package protocol UploadReceiver: AnyObject {
    /// One piece of the part `part`: `offset` is where it starts within the part (0 for a
    /// new part), `filename` is set for a file part.
    ///
    /// - Throws: a ``SweepError`` that ends the upload; it becomes the answer.
    func receive(part: String, filename: String?, contentType: String?, offset: Int, bytes: UnsafeRawBufferPointer) throws
    /// The answer once the whole body has arrived.
    func finish() -> HTTPResponse
}
