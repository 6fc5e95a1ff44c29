import CMicroHTTPD
import Dispatch
import Foundation
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP server: libmicrohttpd's daemon, owned here and nowhere else (the one module that
/// imports `CMicroHTTPD`, and this the one file).
///
/// Mode: an internal polling thread that accepts, and a thread per connection
/// (`MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL`), so a
/// synchronous preview or an event stream blocks only its own connection. sweep accepts the
/// connections itself (``ConnectionGate``: a total and a per-address limit, and a deadline for
/// each request head that bytes do not reset) and hands them to MHD, whose idle timeout
/// closes connections that send nothing.
///
/// A request body is never buffered whole: a multipart body goes through MHD's post
/// processor, which hands each part over in pieces to the ``UploadReceiver`` the handler
/// gives, and the total is capped while it streams. MHD cannot queue a response while the
/// body is still arriving, so a body announced over the cap (`Content-Length`) is answered
/// 413 before it is read, and a chunked body that passes the cap has its connection closed.
package final class HTTPServer: @unchecked Sendable {
    // @unchecked: the daemon pointer is set once in init and only read after; MHD itself is
    // thread-safe for the calls made here (quiesce, stop).

    /// The port the server listens on (the one picked when 0 was asked).
    package let port: Int
    private var daemon: OpaquePointer?
    private let listenSocket: Int32
    fileprivate let handler: any HTTPHandler
    fileprivate let maxBody: Int
    /// Accepts the connections, holding them to the limits and the head deadline.
    fileprivate let gate: ConnectionGate

    /// Seconds an upload may take before its rate is checked.
    static let slowBodyGrace = 15.0
    /// The slowest upload kept after ``slowBodyGrace``, in bytes per second (8 KiB/s: a 200 MB
    /// upload at this rate takes 7 h, so no real client comes near it).
    static let minimumRate = 8192.0

    /// True for a body that trickles (slowloris sending a byte now and then, which the idle
    /// timeout never catches): past the grace, it must have kept the minimum rate over the
    /// time since. The grace is an allowance, not part of the rate, so a small body read late
    /// (its connection's thread waited for a core under load) is not cut for it.
    static func tooSlow(received: Int, since started: UInt64) -> Bool {
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return elapsed > slowBodyGrace && Double(received) < minimumRate * (elapsed - slowBodyGrace)
    }
    /// The most of a body read and discarded under an early answer (a 429 while the queue is
    /// full): a client that sends its body without waiting (no `Expect: 100-continue`, as Go's
    /// and curl's under 1 MB) then reads the answer instead of a reset. Nothing of it reaches the
    /// disk. A body announced longer is answered at once and its connection closed.
    static let drainLimit = 16 * 1024 * 1024

    /// The most connections open at once (each has a thread).
    package static let connectionLimit = 256
    /// The most connections open at once from one client address: a quarter of the limit, so
    /// that one address cannot hold every thread.
    package static let perAddressLimit = 64
    /// Seconds a request head may take, from the accept (or the end of the previous request on
    /// the connection), however its bytes trickle in.
    package static let headDeadline = 10.0

    /// Starts listening on `host`:`port` (an IPv4 or IPv6 address; port 0 picks a free one).
    ///
    /// - Throws: `.unavailable` when the address cannot be bound or the daemon not started.
    package init(
        host: String, port: Int, handler: any HTTPHandler, maxBody: Int, connectionLimit: Int = HTTPServer.connectionLimit,
        perAddress: Int = HTTPServer.perAddressLimit, headDeadline: Double = HTTPServer.headDeadline, timeout: Int = 30
    ) throws {
        self.handler = handler
        self.maxBody = maxBody
        // Each connection takes a descriptor, a refused one too while it is answered, and
        // renders open files: the soft limit (often 1024) is raised to the hard one.
        var files = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur < files.rlim_max {
            files.rlim_cur = min(files.rlim_max, 65536)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
        }
        let (fd, bound) = try Self.listen(host: host, port: port)
        listenSocket = fd
        self.port = bound
        gate = ConnectionGate(listenSocket: fd, perAddress: perAddress, total: connectionLimit, headSeconds: headDeadline)
        // The gate accepts and counts; MHD's own limit is only a backstop above it (its refusal
        // is a bare close, the gate's a JSON answer).
        var items: [MHD_OptionItem] = [
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: connectionLimit + 16, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: timeout, ptr_value: nil),
            MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
        ]
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_POLL.rawValue
            | MHD_USE_ITC.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue
        // Unretained: the daemon is stopped in deinit, before this object goes.
        let me = Unmanaged.passUnretained(self).toOpaque()
        let started: OpaquePointer? = items.withUnsafeMutableBufferPointer { buffer in
            // The daemon's options are C varargs; MHD_OPTION_ARRAY passes them as one array.
            withVaList([
                MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(completed, to: Int.self), Int(bitPattern: me),
                MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(connectionEvent, to: Int.self), Int(bitPattern: me),
                MHD_OPTION.ARRAY.rawValue, Int(bitPattern: buffer.baseAddress!), MHD_OPTION.END.rawValue,
            ]) { list in
                MHD_start_daemon_va(flags, 0, nil, nil, access, me, list)
            }
        }
        guard let started else {
            close(fd)
            throw SweepError(.unavailable, "the HTTP server could not start", subject: "serve", fix: "check the address and port")
        }
        daemon = started
        let handle = DaemonHandle(started)
        gate.start { socket, address, length in
            MHD_add_connection(handle.daemon, socket, address, length) == .YES
        }
    }

    deinit {
        gate.stop()
        if let daemon { MHD_stop_daemon(daemon) }
        close(listenSocket)
    }

    /// Stops accepting connections (those open carry on); for a graceful shutdown.
    package func stopAccepting() {
        gate.stop()
    }

    /// A listening TCP socket on `host`:`port` and the port it got.
    private static func listen(host: String, port: Int) throws -> (Int32, Int) {
        let fail = { (what: String) in
            SweepError(
                .unavailable, "cannot listen on \(host):\(port): \(what) (\(String(cString: strerror(errno))))", subject: "--host",
                fix: "choose another address or port")
        }
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let isV6 = inet_pton(AF_INET6, host, &v6.sin6_addr) == 1
        guard isV6 || inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &v4.sin_addr) == 1 else {
            throw SweepError(.usage, "'\(host)' is not an IP address", subject: "--host", fix: "give one such as 127.0.0.1 or ::1")
        }
        let fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw fail("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if isV6 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            bound = withUnsafePointer(to: &v6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            bound = withUnsafePointer(to: &v4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard bound == 0 else {
            let error = fail("bind")
            close(fd)
            throw error
        }
        guard Glibc.listen(fd, 128) == 0 else {
            let error = fail("listen")
            close(fd)
            throw error
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let actual = withUnsafePointer(to: &storage) { p -> UInt16 in
            isV6
                ? p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
                : p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return (fd, Int(actual))
    }
}

/// The daemon, for the gate's thread (MHD_add_connection is thread-safe).
private struct DaemonHandle: @unchecked Sendable {
    let daemon: OpaquePointer
    init(_ daemon: OpaquePointer) { self.daemon = daemon }
}

/// One request in flight: what the access handler keeps between its calls (MHD's `con_cls`).
private final class Exchange {
    let request: HTTPRequest
    var receiver: (any UploadReceiver)?
    var processor: OpaquePointer?
    var received = 0
    /// The answer decided while the body was arriving, sent once it has.
    var failure: HTTPResponse?
    /// The answer to a request without a body, sent on the handler's next call.
    var pending: HTTPResponse?
    /// When the request's headers arrived (monotonic nanoseconds).
    let started = DispatchTime.now().uptimeNanoseconds

    init(request: HTTPRequest) { self.request = request }

    deinit {
        if let processor { _ = MHD_destroy_post_processor(processor) }
    }
}

/// A request's headers as collected, and the names sent twice with different values.
private struct HeaderSet {
    var values: [String: String] = [:]
    var conflicting: Set<String> = []
}

/// Collects the request's headers (lower-cased names). MHD keeps every copy of a header and
/// reads the first itself; two different values of a header that frames or routes the request
/// are noted, and the request refused.
private let collectHeader: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let box = cls.assumingMemoryBound(to: HeaderSet.self)
    let name = String(cString: key).lowercased(), text = value.map { String(cString: $0) } ?? ""
    if let earlier = box.pointee.values[name] {
        if earlier.trimmingCharacters(in: .whitespaces) != text.trimmingCharacters(in: .whitespaces) {
            box.pointee.conflicting.insert(name)
        }
        return .YES
    }
    box.pointee.values[name] = text
    return .YES
}

/// Headers that may be sent once only (or repeated with the same value).
private let singleHeaders: Set<String> = ["content-length", "host", "transfer-encoding", "authorization", "origin", "content-type"]

/// Collects the query string's arguments (names as sent; MHD has decoded them).
private let collectArgument: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let box = cls.assumingMemoryBound(to: [String: String].self)
    box.pointee[String(cString: key)] = value.map { String(cString: $0) } ?? ""
    return .YES
}

/// MHD_OPTION_NOTIFY_COMPLETED: releases the request's ``Exchange``; the connection's next
/// request head has the deadline, from now.
private let completed: MHD_RequestCompletedCallback = { cls, connection, context, _ in
    if let cls, let connection {
        Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().gate.requestEnded(
            descriptor: sweep_mhd_connection_fd(connection))
    }
    guard let context, let pointer = context.pointee else { return }
    Unmanaged<Exchange>.fromOpaque(pointer).release()
    context.pointee = nil
}

/// MHD_OPTION_NOTIFY_CONNECTION: the gate learns which connection is which (its serial kept
/// as the socket's context) and when each closes (MHD reports it before closing the socket).
private let connectionEvent: MHD_NotifyConnectionCallback = { cls, connection, socketContext, event in
    guard let cls, let socketContext else { return }
    let gate = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().gate
    if event.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
        guard let connection, let serial = gate.started(descriptor: sweep_mhd_connection_fd(connection)) else { return }
        socketContext.pointee = UnsafeMutableRawPointer(bitPattern: UInt(serial))
    } else if let pointer = socketContext.pointee {  // MHD_CONNECTION_NOTIFY_CLOSED
        gate.closed(serial: UInt64(UInt(bitPattern: pointer)))
        socketContext.pointee = nil
    }
}

/// The post processor's iterator: one piece of one multipart part.
private let postPiece: MHD_PostDataIterator = { cls, _, key, filename, contentType, _, data, offset, size in
    guard let cls else { return .NO }
    let exchange = Unmanaged<Exchange>.fromOpaque(cls).takeUnretainedValue()
    guard let receiver = exchange.receiver, exchange.failure == nil else { return .NO }
    let bytes = UnsafeRawBufferPointer(start: data.map { UnsafeRawPointer($0) }, count: data == nil ? 0 : size)
    do {
        try receiver.receive(
            part: key.map { String(cString: $0) } ?? "", filename: filename.map { String(cString: $0) },
            contentType: contentType.map { String(cString: $0) }, offset: Int(offset), bytes: bytes)
        return .YES
    } catch let failure as HTTPFailure {
        exchange.failure = failure.response
        return .NO
    } catch {
        exchange.failure = HTTPResponse.error(error)
        return .NO
    }
}

/// The access handler (see the type's comment for the order of its calls).
private let access: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, context in
    guard let cls, let connection, let context, let uploadSize else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if context.pointee == nil {
        // The head is complete: its deadline no longer applies.
        server.gate.headArrived(descriptor: sweep_mhd_connection_fd(connection))
        var headers = HeaderSet()
        _ = withUnsafeMutablePointer(to: &headers) { MHD_get_connection_values(connection, .HEADER_KIND, collectHeader, $0) }
        var query: [String: String] = [:]
        _ = withUnsafeMutablePointer(to: &query) { MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, collectArgument, $0) }
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/", headers: headers.values,
            query: query)
        let exchange = Exchange(request: request)
        context.pointee = Unmanaged.passRetained(exchange).toOpaque()
        // Two different values of a header that frames the body or names the server: which one
        // a proxy in front read is unknowable (request smuggling), so neither is trusted. The
        // answer goes at once and the connection closes.
        if let name = headers.conflicting.intersection(singleHeaders).sorted().first {
            return send(.problem(400, "the header \(name) is sent twice with different values"), on: connection)
        }
        // An answer decided before the body: a client that waits for `100 Continue` gets it
        // before it sends a body. One that sends it anyway has it read and discarded (up to
        // ``drainLimit``), and the answer follows it, so that the client reads the answer, not
        // a broken pipe.
        func answerEarly(_ response: HTTPResponse) -> MHD_Result {
            let body = (request.contentLength ?? 0) > 0 || request.headers["transfer-encoding"] != nil
            if body && (request.headers["expect"]?.lowercased() == "100-continue" || (request.contentLength ?? 0) > HTTPServer.drainLimit) {
                return send(response, on: connection)
            }
            exchange.pending = response
            return .YES
        }
        switch server.handler.begin(request) {
        case let .respond(response):
            return answerEarly(response)
        case let .receive(receiver):
            if let length = request.contentLength, length > server.maxBody {
                return send(HTTPResponse.tooLarge(server.maxBody), on: connection)
            }
            // MHD's post processor also reads url-encoded forms; the API takes files as parts only.
            let multipart = request.headers["content-type"]?.lowercased().hasPrefix("multipart/form-data") ?? false
            guard multipart, let processor = MHD_create_post_processor(connection, 64 * 1024, postPiece, context.pointee) else {
                return answerEarly(
                    HTTPResponse.error(
                        SweepError(
                            .unavailable, "the body is not multipart/form-data", subject: "Content-Type",
                            fix: "send the files as multipart/form-data (curl -F)")))
            }
            exchange.receiver = receiver
            exchange.processor = processor
            return .YES
        }
    }
    let exchange = Unmanaged<Exchange>.fromOpaque(context.pointee!).takeUnretainedValue()
    if let pending = exchange.pending {
        let size = uploadSize.pointee
        if size > 0 {
            exchange.received += size
            if exchange.received > HTTPServer.drainLimit || HTTPServer.tooSlow(received: exchange.received, since: exchange.started) {
                return .NO
            }
            uploadSize.pointee = 0
            return .YES
        }
        return send(pending, on: connection)
    }
    guard let receiver = exchange.receiver else { return .NO }
    let size = uploadSize.pointee
    if size > 0 {
        exchange.received += size
        // Past the cap while it streams: MHD cannot answer before the body ends, so the
        // connection is closed (a body announced over the cap was answered 413 at once).
        if exchange.received > server.maxBody { return .NO }
        if HTTPServer.tooSlow(received: exchange.received, since: exchange.started) { return .NO }
        if exchange.failure == nil, let processor = exchange.processor, MHD_post_process(processor, uploadData, size) != .YES,
            exchange.failure == nil
        {
            exchange.failure = HTTPResponse.error(
                SweepError(.usage, "the multipart body is malformed", subject: "body", fix: "send the files as multipart/form-data"))
        }
        uploadSize.pointee = 0
        return .YES
    }
    let response = exchange.failure ?? receiver.finish()
    return send(response, on: connection)
}

/// Hands `response` to MHD for `connection`.
private func send(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let made: OpaquePointer?
    switch response.body {
    case let .bytes(bytes):
        made = bytes.withUnsafeBytes {
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
        }
    case let .file(descriptor, size):
        // MHD closes the descriptor with the response.
        made = MHD_create_response_from_fd(size, descriptor)
        if made == nil { close(descriptor) }
    case let .stream(next):
        let source = Unmanaged.passRetained(StreamSource(next)).toOpaque()
        made = MHD_create_response_from_callback(UInt64.max, 16 * 1024, readStream, source, freeStream)
        if made == nil { Unmanaged<StreamSource>.fromOpaque(source).release() }
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
    return MHD_queue_response(connection, UInt32(response.status), made)
}

/// The pieces of a streamed body still to send (an event stream).
private final class StreamSource {
    let next: @Sendable () -> [UInt8]?
    var pending: [UInt8] = []
    init(_ next: @escaping @Sendable () -> [UInt8]?) { self.next = next }
}

private let readStream: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return sweep_mhd_end_with_error }
    let source = Unmanaged<StreamSource>.fromOpaque(cls).takeUnretainedValue()
    while source.pending.isEmpty {
        guard let piece = source.next() else { return sweep_mhd_end_of_stream }
        source.pending = piece
    }
    let n = min(max, source.pending.count)
    source.pending.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: n) }
    source.pending.removeFirst(n)
    return n
}

private let freeStream: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<StreamSource>.fromOpaque(cls).release()
}
