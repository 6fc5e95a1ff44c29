import Foundation
import SweepImaging
import SweepMedia
import SweepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A `sweep serve --port 0` child process, and the URL it printed.
final class ServeProcess {
    let process = Process()
    let url: String
    let store: String
    private let errors = Pipe()

    /// Starts the server on a free port with `store` (default: a new scratch folder).
    init(_ options: [String] = [], store: String? = nil) throws {
        self.store = try store ?? Scratch.folder("store")
        process.executableURL = URL(fileURLWithPath: try sweepBinary())
        process.arguments = ["serve", "--port", "0", "--store", self.store] + options
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errors
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("listening on ") else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no URL: \(text)"])
        }
        url = String(line.dropFirst("listening on ".count))
    }

    /// Sends `signal` and waits for the process to end; returns its exit status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM, timeout: Double = 60) -> Int32 {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// One HTTP answer, as curl got it.
struct Reply {
    var status: Int
    /// Header names in lower case.
    var headers: [String: String]
    var body: Data
    /// Bytes curl sent of the request body.
    var uploaded: Int
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
}

/// Runs `curl` with `args` (the URL among them), its standard input read from `input`, and
/// returns the last response (status 0 when none came).
func curl(_ args: [String], input: String? = nil) throws -> Reply {
    let headerFile = Scratch.path("headers"), bodyFile = Scratch.path("body")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    p.arguments = ["-s", "--max-time", "120", "-D", headerFile, "-o", bodyFile, "-w", "%{http_code} %{size_upload}"] + args
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    if let input { p.standardInput = FileHandle(forReadingAtPath: input) }
    try p.run()
    let code = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    var headers: [String: String] = [:]
    let raw = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
    for line in raw.components(separatedBy: "\r\n") {
        if line.hasPrefix("HTTP/") { headers = [:]; continue }
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let body = FileManager.default.contents(atPath: bodyFile) ?? Data()
    let written = String(decoding: code, as: UTF8.self).split(separator: " ")
    return Reply(
        status: written.first.flatMap { Int($0) } ?? 0, headers: headers, body: body,
        uploaded: written.count > 1 ? Int(Double(written[1]) ?? 0) : 0)
}

/// Two PNG fixtures (a red and a blue `width`×`height` picture) in a scratch folder.
func fixtures(width: Int = 160, height: Int = 120) throws -> (before: String, after: String) {
    let dir = try Scratch.folder("serve-fixtures")
    let red = RGBA8(r: 220, g: 30, b: 30, a: 255), blue = RGBA8(r: 20, g: 40, b: 230, a: 255)
    try StillEncoder.write(RGBAImage(width: width, height: height, fill: red), to: dir + "/a.png", format: .png)
    try StillEncoder.write(RGBAImage(width: width, height: height, fill: blue), to: dir + "/b.png", format: .png)
    return (dir + "/a.png", dir + "/b.png")
}

/// curl's arguments for a multipart upload of `before` (and `after`) with `spec`.
func form(_ before: String, _ after: String? = nil, spec: String) -> [String] {
    ["-F", "before=@" + before] + (after.map { ["-F", "after=@" + $0] } ?? []) + ["-F", "spec=" + spec]
}

/// Submits a render of 3 600 frames at 800×600 (at least a minute of work, a fraction of a
/// second to stop) and returns its id.
func submitEndlessRender(to server: ServeProcess) throws -> String {
    let (a, b) = try fixtures(width: 800, height: 600)
    let endless = #"{"output":"slow.gif","size":"800x600","fps":"30","duration":"120"}"#
    return try #require(try curl(form(a, b, spec: endless) + [server.url + "/v1/renders"]).json["id"] as? String)
}

/// Polls render `id` until it is done or failed (or `timeout` passes).
func waitFor(_ id: String, at url: String, auth: [String] = [], timeout: Double = 120) throws -> [String: Any] {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        let r = try curl(auth + [url + "/v1/renders/" + id])
        let state = r.json["state"] as? String
        if state == "done" || state == "failed" { return r.json }
        usleep(100_000)
    }
    return [:]
}

/// Sends a multipart POST to `path` whose body trickles (200 bytes every half second), and
/// returns the seconds until the server closed the connection, or nil if it kept it `limit` seconds.
func trickle(to url: String, path: String, limit: Double) throws -> Double? {
    let fd = try RawConnection.open(url)
    defer { close(fd) }
    func put(_ bytes: [UInt8]) -> Bool { RawConnection.send(fd, bytes) }
    let head =
        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=bbbb\r\nContent-Length: 900000\r\n\r\n"
        + "--bbbb\r\nContent-Disposition: form-data; name=\"before\"; filename=\"a.png\"\r\n\r\n"
    let start = Date()
    guard put(Array(head.utf8)) else { return 0 }
    while Date().timeIntervalSince(start) < limit {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, 500) > 0 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            if recv(fd, &buffer, buffer.count, 0) <= 0 { return Date().timeIntervalSince(start) }
        }
        guard put([UInt8](repeating: 120, count: 200)) else { return Date().timeIntervalSince(start) }
    }
    return nil
}

/// A TCP connection to the server by hand, for what curl cannot do (many at once, a body cut
/// off mid-way).
enum RawConnection {
    /// A connected socket to `url`'s port on 127.0.0.1.
    static func open(_ url: String) throws -> Int32 {
        let port = try #require(url.split(separator: ":").last.flatMap { UInt16($0) })
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected != 0 { close(fd) }
        try #require(connected == 0)
        return fd
    }

    /// Sends all of `bytes`; false when the connection is closed.
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// What arrives within `seconds` (up to 64 KiB).
    static func read(_ fd: Int32, seconds: Double) -> String {
        var text = [UInt8]()
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, text.count < 65536 {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { if !text.isEmpty { break } else { continue } }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            text += buffer[0..<n]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The server's threads now (`Threads:` in /proc/PID/status).
    static func threads(of pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("Threads:") }.flatMap {
            Int($0.dropFirst(8).trimmingCharacters(in: .whitespaces))
        } ?? 0
    }
}
