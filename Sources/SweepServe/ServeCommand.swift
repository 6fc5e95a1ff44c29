import Dispatch
import Foundation
import SweepRequest
import SweepSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `sweep serve`: parses its options, starts the service, prints where it listens, and on
/// SIGTERM or SIGINT drains (stops accepting, lets running renders finish within the grace,
/// keeps the rest queued on disk for the next start) and exits 0.
package enum ServeCommand {
    /// Runs `sweep serve args` and returns the exit code (only on a failure to start: a
    /// running server ends by a signal).
    package static func run(_ args: [String]) -> Int32 {
        if args.contains("--help") || args.contains("-h") {
            print(ServeOptions.help.render(width: TerminalText.columns()))
            return 0
        }
        signal(SIGPIPE, SIG_IGN)
        // The allocator as the CLI has it (see Allocator).
        Allocator.useOneArena()
        do {
            let options = try ServeOptions.parse(args)
            let service = try RenderService(options: options)
            let server = try HTTPServer(host: options.host, port: options.port, handler: service, maxBody: options.maxUpload)
            let shown = options.host.contains(":") ? "[\(options.host)]" : options.host
            print("listening on http://\(shown):\(server.port)")
            fflush(nil)
            let sources = handleSignals(server: server, service: service, grace: options.grace)
            // Outputs expire: a sweep every tenth of --keep (at most a minute apart).
            let period = max(1, min(60, options.keep / 10))
            withExtendedLifetime((server, sources)) {
                while true {
                    Thread.sleep(forTimeInterval: period)
                    service.queue.expire(keep: options.keep)
                    service.studioUploads.expire()
                }
            }
            return 0
        } catch let e as SweepError {
            FileHandle.standardError.write(Data(("sweep: " + OptionNames.describe(e) + "\n").utf8))
            return e.code.exitCode
        } catch {
            FileHandle.standardError.write(Data("sweep: internal error: \(error)\n".utf8))
            return 70
        }
    }

    /// SIGTERM and SIGINT drain and exit 0; the caller keeps the sources alive.
    static func handleSignals(server: HTTPServer, service: RenderService, grace: Double) -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "sweep.serve.signals")
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler {
                server.stopAccepting()
                service.stopping = true
                // Renders past the grace stop at their next frame; every accepted render stays on
                // disk, queued, and runs when the server starts again.
                _ = service.queue.drain(grace: grace)
                service.queue.keepUnfinished()
                service.endStreams(within: 2)
                // No render may create a file from now on; their temporary files go.
                TempFileRegistry.shared.recordSignal(sig)
                TempFileRegistry.shared.removeAll()
                // Uploads still arriving (and previews) have folders no render owns yet.
                for id in service.store.ids() where !service.queue.knows(id) { service.store.remove(id) }
                // `_exit`, not `exit`: renders past the grace may still be on other threads, and
                // exit handlers (static destructors, a sanitizer's leak check) must not run
                // under them. Everything the service owes the disk is done above.
                fflush(nil)  // every output stream
                _exit(0)
            }
            source.resume()
            sources.append(source)
        }
        return sources
    }
}
