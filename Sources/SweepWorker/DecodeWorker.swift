import CWorker
import Foundation
import SweepImaging
import SweepMedia
import SweepSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Decodes untrusted files in child processes, so that a decoder bug a crafted file hits
/// (libheif 1.15 overruns its heap on some overlays) ends a child, not the program.
///
/// A worker is forked per file from a small single-threaded service process. It runs in an
/// empty, deleted folder with nothing open but its input and a shared-memory answer, under
/// limits on time (in proportion to the file's size), address space, and file size 0, and a
/// system-call filter that refuses opening files for writing, running programs, sockets,
/// tracing, and signals to other processes. The picture comes back through the shared memory, copied once.
///
/// The service starts one of two ways (docs/decisions/decode-worker.md):
/// - ``startAtLaunch()``, first thing in `main`, forks it while the process has one thread:
///   about a millisecond, what the `sweep` tool does.
/// - Otherwise the first decode starts it as a helper process: this program's own binary
///   run again (`/proc/self/exe`), which serves from a load-time hook before its `main`
///   runs. It costs one program start (50–120 ms) once, and is safe from any thread, so an
///   app needs no set-up for isolated decoding.
///
/// Decoding in the app's own process happens only when asked for by name,
/// ``DecodeIsolation/inProcess``.
public enum DecodeWorker {
    /// The service's end of the socket, or -1 before it starts.
    private static let control = Mutex<Int32>(-1)

    /// The environment variable that turns a run of this binary into the decode service:
    /// `FD:PID`, the service's socket and the process that started it.
    static let helperVariable = "SWEEP_DECODE_SERVICE"

    /// Starts the worker service by forking. Call it first thing in `main`, while the process
    /// has one thread; later, or with other threads running, it does nothing (a fork then
    /// could copy a lock another thread holds) and the first decode starts a helper instead.
    public static func startAtLaunch() {
        guard !isRunning, entries(in: "/proc/self/task") == 1, let pair = socketPair() else { return }
        let parent = getpid()
        let pid = fork()
        if pid == 0 {
            close(pair[0])
            WorkerService.run(control: pair[1], parent: parent)
        }
        close(pair[1])
        if pid < 0 { close(pair[0]) } else { control.withLock { $0 = pair[0] } }
    }

    /// Whether the service is running (started by ``startAtLaunch()`` or by a decode).
    public static var isRunning: Bool { control.withLock { $0 } >= 0 }

    /// The service's socket, starting the helper process when none runs.
    ///
    /// - Throws: `.internalError` when the helper cannot be started.
    static func service(for name: String) throws -> Int32 {
        try control.withLock { fd throws(SweepError) -> Int32 in
            if fd >= 0 { return fd }
            fd = try spawnHelper(for: name)
            return fd
        }
    }

    /// Runs this binary again as the decode service (see ``helperVariable``) and returns the
    /// socket to it. The helper's end is its descriptor 3; nothing else of ours is inherited
    /// (every descriptor sweep opens is close-on-exec, and the service's workers close all but
    /// their own).
    private static func spawnHelper(for name: String) throws(SweepError) -> Int32 {
        let failed = { (what: String, code: Int32) in
            SweepError(
                .internalError, "cannot start the decode worker (\(what): \(String(cString: strerror(code))))", subject: name,
                fix: "call DecodeWorker.startAtLaunch() first thing in main, or decode in process (.inProcess) only files you trust")
        }
        guard let pair = socketPair() else { throw failed("socketpair", errno) }
        defer { close(pair[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 onto 3 clears close-on-exec; when the end already is 3, that dup2 would do nothing.
        let end = pair[1] == 3 ? fcntl(pair[1], F_DUPFD_CLOEXEC, 4) : pair[1]
        defer { if end != pair[1] { close(end) } }
        posix_spawn_file_actions_adddup2(&actions, end, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var environment = ProcessInfo.processInfo.environment
        environment[helperVariable] = "3:\(getpid())"
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("sweep-decode-service"), nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(pair[0])
            throw failed("posix_spawn /proc/self/exe", result)
        }
        return pair[0]
    }

    /// When this binary was run as the decode service, serves and never returns: a load-time
    /// hook, before `main` (and before an app's own start-up) runs.
    static func serveIfHelper() {
        guard let value = getenv(helperVariable) else { return }
        let parts = String(cString: value).split(separator: ":")
        unsetenv(helperVariable)
        guard parts.count == 2, let fd = Int32(parts[0]), let parent = pid_t(parts[1]) else { _exit(64) }
        closeInherited(keeping: fd)
        WorkerService.run(control: fd, parent: parent, killedWithParent: false)
    }

    /// Closes what the app left open into the service (descriptors without close-on-exec), but
    /// the control socket and the standard three: an inherited pipe's write end would keep the
    /// app's reader of that pipe from ever seeing its end, and an inherited file would stay
    /// open for the service's whole life.
    private static func closeInherited(keeping control: Int32) {
        guard let dir = opendir("/proc/self/fd") else { return }
        let listing = dirfd(dir)
        var inherited: [Int32] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let fd = Int32(name), fd > 2, fd != control, fd != listing { inherited.append(fd) }
        }
        closedir(dir)
        for fd in inherited { close(fd) }
    }

    /// The file at `path` decoded by a worker: a still over `background` (resized to `target`
    /// when given), or the kind of clip it is (a video, or an animation unless `firstFrame`),
    /// for the caller to open.
    ///
    /// - Throws: what the decoder would throw in process; `.dataError` when the worker
    ///   crashed or ran out of time; `.internalError` when the service is gone.
    package static func load(
        _ path: String, maxPixels: Int, background: RGBA8, hdr: HDRHandling, firstFrame: Bool, target: StillTarget? = nil
    ) throws -> DecodedInput {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var request = WorkerRequest(
            path: absolute, name: path, fileBytes: FileBytes.size(absolute),
            maxPixels: maxPixels, background: background, hdr: hdr, firstFrame: firstFrame)
        request.target = target
        // A file-size limit (ulimit -f) bounds shared memory too: the answer must fit under it.
        var fileLimit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &fileLimit) == 0, fileLimit.rlim_cur != rlim_t.max {
            request.replyBytes = min(request.replyBytes, Int(clamping: fileLimit.rlim_cur))
            if request.replyBytes < WorkerReply.headerBytes + 4 {
                throw SweepError.writeFailed("cannot make the decode worker's shared memory", errno: EFBIG, subject: path)
            }
        }
        let memory = sweep_memfd("sweep-decode")
        guard memory >= 0 else {
            throw SweepError.writeFailed("cannot make the decode worker's shared memory", errno: errno, subject: path)
        }
        defer { close(memory) }
        // Sparse: only the pages the picture fills are ever allocated.
        guard ftruncate(memory, off_t(request.replyBytes)) == 0 else {
            throw SweepError.writeFailed("cannot size the decode worker's shared memory", errno: errno, subject: path)
        }
        // While the worker decodes, the shared pages the picture will fill (as its header
        // promises) are allocated here: allocating and zeroing them is most of a copy's cost,
        // and here it overlaps the decode.
        // A file a batch opened beneath its folder goes to the worker as that descriptor, never
        // as a path that may have changed since (OpenedFiles).
        let held = OpenedFiles.shared.descriptor(of: absolute)
        let (outcome, status) = try run(request, memory: memory, input: held) {
            if let target {
                _ = posix_fallocate(memory, 0, off_t(WorkerReply.headerBytes + target.width * target.height * 4))
                return
            }
            guard let head = try? FileBytes.prefix(absolute, count: 1 << 16), let (w, h) = ImageHeader.dimensions(head),
                w > 0, h > 0, w <= 1 << 20, h <= 1 << 20, w * h <= maxPixels
            else { return }
            _ = posix_fallocate(memory, 0, off_t(WorkerReply.headerBytes + w * h * 4))
        }
        let exited = status & 0x7f == 0, signal = status & 0x7f
        if exited && (status >> 8) & 0xff == 0 {
            return try WorkerReply.read(memory, size: request.replyBytes, name: path)
        }
        if outcome == .overtime || signal == SIGALRM || signal == SIGXCPU {
            throw SweepError(
                .dataError, "the decoder took more than \(request.seconds) s on this file and was stopped; nothing was written",
                subject: path, fix: "re-export it from the original, or give another file")
        }
        throw SweepError(
            .dataError, "the decoder crashed on this file (it is malformed or hits a decoder bug); nothing was written",
            subject: path, fix: "re-export it from the original, or give another file")
    }

    /// Sends `request` (with the input's descriptor, when one is held) to the service and waits
    /// for how the worker ended. `meanwhile` runs after the request is sent, while the worker
    /// decodes.
    private static func run(
        _ request: WorkerRequest, memory: Int32, input: Int32?, meanwhile: () -> Void
    ) throws -> (WorkerService.Outcome, Int32) {
        let gone = SweepError(
            .internalError, "the decode worker service has stopped", subject: request.name,
            fix: "run sweep again; if it persists, report it")
        guard let pair = socketPair() else { throw gone }
        defer { close(pair[0]) }
        let body = try JSONEncoder().encode(request)
        let sent = try deliver(body, fds: [pair[1], memory] + (input.map { [$0] } ?? []), name: request.name)
        close(pair[1])
        guard sent else { throw gone }
        meanwhile()
        var answer: (outcome: Int32, status: Int32) = (0, 0)
        var n = 0
        repeat { n = withUnsafeMutableBytes(of: &answer) { recv(pair[0], $0.baseAddress, $0.count, 0) } } while n < 0 && errno == EINTR
        // The monitor ended without a word: it was killed, and its worker with it.
        if n == 0 { return (.ended, SIGKILL) }
        guard n == MemoryLayout.size(ofValue: answer), let outcome = WorkerService.Outcome(rawValue: answer.outcome) else { throw gone }
        if outcome == .notStarted { throw Self.cannotStart(status: answer.status, name: request.name) }
        return (outcome, answer.status)
    }

    /// Asks the service for a clip worker (``WorkerClipDecoder``): it plays `request.clip`
    /// with `memory` for frames and `channel` for calls, and reads `input` when a batch holds
    /// the file open.
    ///
    /// - Throws: `.internalError` when the service is gone.
    /// - Returns: the socket on which the service or the monitor says that the worker could
    ///   not start (``notStarted(_:)``); the caller closes it once the worker has begun.
    static func start(_ request: WorkerRequest, memory: Int32, channel: Int32, input: Int32?) throws -> Int32 {
        let gone = SweepError(
            .internalError, "the decode worker service has stopped", subject: request.name,
            fix: "run sweep again; if it persists, report it")
        // How the worker ended is not waited for: the channel's end says it.
        guard let pair = socketPair() else { throw gone }
        let body = try JSONEncoder().encode(request)
        let sent = try deliver(body, fds: [pair[1], memory, channel] + (input.map { [$0] } ?? []), name: request.name)
        close(pair[1])
        guard sent else {
            close(pair[0])
            throw gone
        }
        return pair[0]
    }

    /// The error for a clip worker that never began, when `reply` (from ``start``) says so: no
    /// process could be made (a pids limit), which is not the file's fault; nil otherwise.
    static func notStarted(_ reply: Int32, name: String) -> SweepError? {
        var answer: (outcome: Int32, status: Int32) = (0, 0)
        let n = withUnsafeMutableBytes(of: &answer) { recv(reply, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard n == MemoryLayout.size(ofValue: answer), answer.outcome == WorkerService.Outcome.notStarted.rawValue else { return nil }
        return cannotStart(status: answer.status, name: name)
    }

    /// A worker that could not be made (`status`: the fork's errno, or 0): exit 70, not the file's fault.
    private static func cannotStart(status: Int32, name: String) -> SweepError {
        SweepError(
            .internalError, "cannot start the decode worker" + (status != 0 ? " (\(String(cString: strerror(status))))" : ""),
            subject: name, fix: "run sweep again with fewer jobs, or raise the process limit")
    }

    /// Sends a request and its descriptors to the service. A service that is gone (killed, or
    /// ended by a bug) is replaced by a new helper process, once per request, so that one lost
    /// service does not fail every later decode of a long-running `sweep serve`; a decode in
    /// flight when it went is a data error (its monitor's end says so).
    ///
    /// - Returns: whether the request was sent.
    private static func deliver(_ body: Data, fds: [Int32], name: String) throws -> Bool {
        for attempt in 0..<2 {
            let service = try service(for: name)
            let sent = body.withUnsafeBytes { sweep_send_with_fds(service, $0.baseAddress, $0.count, fds, Int32(fds.count)) }
            if sent == body.count { return true }
            let lost = errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN
            guard lost, attempt == 0 else { return false }
            // Forget it (unless another thread already has), so that the next asks for a new one.
            // Its descriptor stays open: another thread may still hold its number, which must
            // not come to name some other file or connection (one descriptor per lost service).
            control.withLock { fd in if fd == service { fd = -1 } }
        }
        return false
    }

    /// A connected pair of close-on-exec packet sockets (messages keep their bounds, and carry
    /// descriptors), or nil with `errno` set.
    private static func socketPair() -> [Int32]? {
        var pair: [Int32] = [-1, -1]
        return socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 ? pair : nil
    }

    /// The number of entries in the folder at `path` (`/proc/self/task`: the threads), or nil
    /// when it cannot be read.
    static func entries(in path: String) -> Int? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            if entry.pointee.d_name.0 != CChar(UInt8(ascii: ".")) { count += 1 }
        }
        return count
    }
}

/// The load-time hook that lets this binary serve as the decode service (``DecodeWorker``):
/// the dynamic loader runs it before `main`.
@used @section(".init_array")
private let decodeServiceHook: @convention(c) () -> Void = { DecodeWorker.serveIfHelper() }
