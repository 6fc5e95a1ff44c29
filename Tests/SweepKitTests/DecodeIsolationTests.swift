import Foundation
import SweepKit
import SweepTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Before anything else in this test binary runs, files named `*-sweepkit-crash.jpg` are made
/// to crash the decode worker (the worker's test fault, scoped to that suffix). The helper
/// service copies the environment when it starts, so this must precede the first decode.
@used @section(".init_array")
private let crashFaultHook: @convention(c) () -> Void = {
    setenv("SWEEP_TEST_DECODE_FAULT", "segv@-sweepkit-crash.jpg", 0)
}

/// SweepKit decodes in a sandboxed helper process by default, in a program that never called
/// `DecodeWorker.startAtLaunch()` and runs many threads (this test process).
@Suite("SweepKit isolates decoding without set-up")
struct DecodeIsolationTests {
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images")

    /// The pids of this process's children whose command line is `name`.
    static func children(named name: String) -> [Int32] {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, Int32(fields[1]) == me else { return false }
            let cmdline = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            return cmdline.split(separator: 0).first.map { String(decoding: $0, as: UTF8.self) } == name
        }
    }

    @Test("The default decodes in a helper process, with the same pixels as decoding in process")
    func helperDecodes() async throws {
        let before = Self.images.appendingPathComponent("jpeg-baseline.jpg")
        let after = Self.images.appendingPathComponent("png-rgb8.png")
        var isolated = Comparison(before: before, after: after)
        isolated.size = .exact(width: 64, height: 48)
        #expect(isolated.decoding == .worker)
        var trusted = isolated
        trusted.decoding = .inProcess
        let a = try await isolated.stillData(at: 0.4, as: "png")
        let b = try await trusted.stillData(at: 0.4, as: "png")
        #expect(a == b)
        #expect(DecodeWorker.isRunning)
        #expect(Self.children(named: "sweep-decode-service").count == 1)
    }

    @Test("A decoder crash fails that render with a data error naming the file; the app and the next render go on")
    func crashContained() async throws {
        let dir = try Scratch.folder("isolation")
        let crashing = URL(fileURLWithPath: dir + "/before-sweepkit-crash.jpg")
        try FileManager.default.copyItem(at: Self.images.appendingPathComponent("jpeg-baseline.jpg"), to: crashing)
        let after = Self.images.appendingPathComponent("png-rgb8.png")
        var comparison = Comparison(before: crashing, after: after)
        comparison.size = .exact(width: 64, height: 48)
        let output = URL(fileURLWithPath: dir + "/out.gif")
        do {
            _ = try await comparison.render(to: output)
            Issue.record("a render whose decoder crashed succeeded")
        } catch let error as SweepError {
            #expect(error.code == .dataError)
            #expect(error.message.contains("decoder crashed"))
            #expect(error.subject?.hasSuffix("before-sweepkit-crash.jpg") == true)
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
        var fine = Comparison(before: Self.images.appendingPathComponent("jpeg-baseline.jpg"), after: after)
        fine.size = .exact(width: 64, height: 48)
        let result = try await fine.render(to: output)
        #expect(result.frames > 1 && FileManager.default.fileExists(atPath: output.path))
    }
}
