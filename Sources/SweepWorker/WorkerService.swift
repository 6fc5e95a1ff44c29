import CWorker
import Foundation
import SweepImaging
import SweepMedia
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The process ``DecodeWorker`` forks at launch, and the two it forks for each decode.
///
/// The service itself is single-threaded, so forking from it is safe at any time (a fork
/// from the multithreaded renderer could copy a lock another thread holds). Each request
/// gets a monitor, which forks the worker, waits for it and reports how it ended: a worker
/// that crashes or is killed cannot report anything itself.
enum WorkerService {
    /// Serves requests on `control` until the parent closes its end (or ends: its end closes
    /// with it). `killedWithParent` also asks the kernel for SIGKILL when the parent goes, which
    /// is right only for a fork from the main thread: the signal follows the *thread* that
    /// made the child, and a helper spawned from a render's thread would die with that thread.
    static func run(control: Int32, parent: pid_t, killedWithParent: Bool = true) -> Never {
        if killedWithParent { _ = sweep_die_with_parent() }
        if getppid() != parent { _exit(0) }
        quietStandardStreams()
        // Monitors are reaped by the kernel. A terminal's signals reach the whole process
        // group: sweep cleans up and exits, and its end takes the service down (above).
        signal(SIGCHLD, SIG_IGN)
        sweep_unblock_signals()
        for s in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { signal(s, SIG_IGN) }
        let folder = emptyFolder()
        var buffer = [UInt8](repeating: 0, count: 1 << 17)
        while true {
            var fds: [Int32] = [-1, -1, -1, -1]
            var count: Int32 = 0
            let n = buffer.withUnsafeMutableBytes { sweep_recv_with_fds(control, $0.baseAddress, $0.count, &fds, &count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { _exit(0) }
            let received = Array(fds[0..<Int(count)])
            // The answer's socket and shared memory, a clip's channel, and the input when held.
            if let request = try? JSONDecoder().decode(WorkerRequest.self, from: Data(buffer[0..<n])) {
                let fixed = request.clip == nil ? 2 : 3
                if received.count == fixed || received.count == fixed + 1 {
                    // The test faults `no-fork` and `no-fork-clip` (a clip's frames only) stand for a
                    // pids limit reached.
                    let faulted = fault(for: request.path)
                    let noFork = faulted == "no-fork" || (faulted == "no-fork-clip" && request.clip != nil)
                    let pid =
                        noFork
                        ? {
                            errno = EAGAIN; return -1
                        }() : fork()
                    if pid == 0 {
                        monitor(
                            request, reply: received[0], memory: received[1], channel: request.clip == nil ? -1 : received[2],
                            input: received.count > fixed ? received[fixed] : -1, folder: folder, control: control)
                    }
                    if pid < 0 {
                        // No process to spare (a pids limit): said as not started, so that the file
                        // is not blamed for it.
                        var answer: (outcome: Int32, status: Int32) = (Outcome.notStarted.rawValue, errno)
                        _ = withUnsafeBytes(of: &answer) { send(received[0], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    }
                }
            }
            received.forEach { close($0) }
        }
    }

    /// How a worker ended, as the monitor reports it.
    enum Outcome: Int32 {
        case notStarted = 0, ended, overtime
    }

    /// Forks the worker, waits for it at most its deadline (then kills it), and sends how it
    /// ended and its wait status on `reply`. A clip worker has no deadline here: its proxy
    /// gives each frame one, and kills it past that.
    private static func monitor(
        _ request: WorkerRequest, reply: Int32, memory: Int32, channel: Int32, input: Int32, folder: Int32, control: Int32
    ) -> Never {
        _ = sweep_die_with_parent()
        close(control)
        signal(SIGCHLD, SIG_DFL)
        let worker = fork()
        if worker == 0 { work(request, memory: memory, channel: channel, input: input, folder: folder) }
        if fault(for: request.path) == "kill-monitor" { raise(SIGKILL) }
        // The proxy sees the channel end when the worker does: only the worker holds it.
        for fd in [memory, channel, input] where fd >= 0 { close(fd) }
        var answer: (outcome: Int32, status: Int32) = (Outcome.notStarted.rawValue, 0)
        if worker > 0 {
            answer.outcome = Outcome.ended.rawValue
            let ended = request.clip == nil ? sweep_pidfd_open(worker) : -1
            if ended >= 0 {
                var ready = pollfd(fd: ended, events: Int16(POLLIN), revents: 0)
                var left = request.seconds * 1000
                var result: Int32 = 0
                repeat {
                    let before = monotonicMilliseconds()
                    result = poll(&ready, 1, Int32(min(left, Int(Int32.max))))
                    left -= monotonicMilliseconds() - before
                } while result < 0 && errno == EINTR && left > 0
                if result == 0 || (result < 0 && left <= 0) {
                    kill(worker, SIGKILL)
                    answer.outcome = Outcome.overtime.rawValue
                }
            }
            while waitpid(worker, &answer.status, 0) < 0 && errno == EINTR {}
        }
        _ = withUnsafeBytes(of: &answer) { send(reply, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        _exit(0)
    }

    /// Decodes under limits and the system-call filter, and writes the answer into `memory`.
    /// `input`, when not -1, is the file already opened for `request.path` (a batch opened it
    /// beneath its folder): it is what the decoders read.
    private static func work(_ request: WorkerRequest, memory: Int32, channel: Int32, input: Int32, folder: Int32) -> Never {
        _ = sweep_die_with_parent()
        // Nothing open but the answer's shared memory as fd 3, a clip's channel next, the
        // input next when it came open, and the input the decoder opens.
        if folder < 0 || fchdir(folder) != 0 { _ = chdir("/") }
        let highInput = input >= 0 ? fcntl(input, F_DUPFD, 16) : -1
        let highChannel = channel >= 0 ? fcntl(channel, F_DUPFD, 16) : -1
        if (input >= 0 && highInput < 0) || (channel >= 0 && highChannel < 0) { _exit(71) }
        if memory != 3 && dup2(memory, 3) != 3 { _exit(71) }
        var keep: Int32 = 4
        if highChannel >= 0 {
            if dup2(highChannel, keep) != keep { _exit(71) }
            keep += 1
        }
        if highInput >= 0 {
            if dup2(highInput, keep) != keep { _exit(71) }
            OpenedFiles.shared.hold(keep, for: request.path, isFolder: false)
            keep += 1
        }
        if sweep_close_from(UInt32(keep)) != 0 { for fd in keep..<1024 { close(fd) } }
        // A crash ends the worker at once: the runtime's backtracer would try to run a
        // program, which the filter refuses, and the monitor reports the signal anyway.
        for s in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS] { signal(s, SIG_DFL) }
        // The monitor's deadline is the clock; alarm() is the same bound where it cannot wait on
        // a pidfd (Linux before 5.3), and the CPU limit bounds a busy loop either way. A clip
        // plays for as long as the render takes: its proxy holds each frame to a deadline.
        if request.clip == nil {
            alarm(UInt32(request.seconds + 1))
            limit(RLIMIT_CPU, soft: request.seconds, hard: request.seconds + 1)
        }
        // On top of what is mapped already: the binary's libraries, or a sanitizer's shadow.
        let space = mappedBytes() + request.addressSpace
        limit(RLIMIT_AS, soft: space, hard: space)
        limit(RLIMIT_FSIZE, soft: 0, hard: 0)
        limit(RLIMIT_CORE, soft: 0, hard: 0)
        _ = sweep_seccomp_lockdown()
        if let clip = request.clip { ClipWorker.serve(request, clip: clip, memory: 3, channel: 4) }
        injectFault(for: request.path, held: highInput >= 0)
        if !WorkerReply.write(decode(request), to: 3, size: request.replyBytes) { _exit(71) }
        _exit(0)
    }

    /// The file as a still, or the kind of clip it is, as ``MediaProbe`` and ``ImageDecoder`` say.
    static func decode(_ r: WorkerRequest) -> Result<DecodedInput, SweepError> {
        do {
            let kind = try MediaProbe.kind(of: r.path)
            if kind.playsAsClip(firstFrame: r.firstFrame) { return .success(.clip(kind)) }
            let bg = RGBA8(r: r.background[0], g: r.background[1], b: r.background[2], a: r.background[3])
            let image = try ImageDecoder.decode(
                path: r.path, background: bg, maxPixels: r.maxPixels, hdr: HDRHandling(rawValue: r.hdr) ?? .tonemap)
            let source = (width: image.width, height: image.height)
            guard let t = r.target else { return .success(.image(image, source: source)) }
            return .success(.image(Resampler.resize(image, width: t.width, height: t.height, mode: t.fit, background: bg), source: source))
        } catch let e as SweepError {
            // The worker saw the absolute path; the user gave their own spelling.
            return .failure(e.subject == r.path ? SweepError(e.code, e.message, subject: r.name, fix: e.fix, field: e.field) : e)
        } catch {
            return .failure(SweepError(.internalError, "\(error)", subject: r.name))
        }
    }

    /// The process's mapped address space, from /proc/self/statm (its first field, in pages).
    private static func mappedBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = text.split(separator: " ").first.flatMap({ Int($0) })
        else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    private static func monotonicMilliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }

    private static func limit(_ resource: __rlimit_resource, soft: Int, hard: Int) {
        var value = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard))
        _ = setrlimit(__rlimit_resource_t(resource.rawValue), &value)
    }

    /// Standard streams on /dev/null: the service must not hold sweep's pipes open after
    /// sweep exits, and a decoder's chatter is not the user's.
    private static func quietStandardStreams() {
        let null = open("/dev/null", O_RDWR)
        guard null >= 0 else { return }
        for fd: Int32 in 0...2 { dup2(null, fd) }
        if null > 2 { close(null) }
    }

    /// An open folder that no longer exists: workers run in it, so a relative path reaches
    /// nothing and nothing can be created there, and nothing is left behind.
    private static func emptyFolder() -> Int32 {
        var template = Array(((getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/sweep-worker-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { return -1 }
        let fd = template.withUnsafeBufferPointer { open($0.baseAddress!, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        _ = template.withUnsafeBufferPointer { rmdir($0.baseAddress!) }
        return fd
    }

    /// The test-only fault asked for a worker on `path` (`SWEEP_TEST_DECODE_FAULT=KIND`, or
    /// `KIND@SUFFIX` for inputs whose path ends so), if any.
    static func fault(for path: String) -> String? {
        guard let kind = getenv("SWEEP_TEST_DECODE_FAULT").map({ String(cString: $0) }) else { return nil }
        guard let at = kind.lastIndex(of: "@") else { return kind }
        return path.hasSuffix(kind[kind.index(after: at)...]) ? String(kind[..<at]) : nil
    }

    /// Test-only faults (``fault(for:)``), so that tests can prove what a misbehaving worker
    /// can and cannot do: `segv`, `abort`, `kill` and `hang` misbehave (`kill-monitor` kills
    /// the worker's monitor instead, `no-fork` and `no-fork-clip` make the service fail to fork one); `write:PATH`, `socket`, `signal`, `fds` and `hog` abort if
    /// the worker could create a file, open a socket, signal another process, holds a descriptor beyond 0–3, or could map
    /// 8 GiB.
    private static func injectFault(for path: String, held: Bool) {
        guard let kind = fault(for: path) else { return }
        switch kind {
        case "segv": UnsafeMutablePointer<Int32>(bitPattern: Int(getpid() & 0) | 16)!.pointee = 1
        case "abort": abort()
        case "kill": raise(SIGKILL)
        case "hang": while true { pause() }
        case "hog":
            // mmap, not malloc: the optimiser may assume an unused malloc succeeds.
            if mmap(nil, 8 << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED { abort() }
        case "socket": if socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) >= 0 { abort() }
        case "signal": if kill(getppid(), 0) == 0 || kill(-1, 0) == 0 || kill(0, 0) == 0 { abort() }
        case "fds":
            // 0–3, the held input (4), the input the decoder opens, and opendir's own
            // descriptor while it counts.
            if (DecodeWorker.entries(in: "/proc/self/fd") ?? .max) > (held ? 6 : 5) { abort() }
        default:
            if kind.hasPrefix("write:") {
                let fd = open(String(kind.dropFirst(6)), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                if fd >= 0 {
                    _ = write(fd, "escaped", 7)
                    abort()
                }
            }
        }
    }
}
