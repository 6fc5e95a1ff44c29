import Foundation
import SweepSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Signal handlers")
struct SignalHandlerTests {
    @Test("Installing the SIGINT/SIGTERM handlers twice installs them once")
    func installOnce() {
        let registry = TempFileRegistry.shared
        registry.installSignalHandlers()
        registry.installSignalHandlers()
        #expect(registry.signalHandlerInstallations == 1)
    }

    @Test("A temporary file or folder is created and registered at once, and nothing is created once a signal is caught")
    func nothingCreatedAfterSignal() throws {
        let dir = try scratchDir()
        let registry = TempFileRegistry()
        let file = dir + "/.a.tmp", folder = dir + "/.b.tmp"
        guard case .created(let fd) = registry.createFile(file) else {
            Issue.record("the file was not created")
            return
        }
        close(fd)
        #expect(registry.createFolder(folder) == .created(-1))
        #expect(registry.isRegistered(file) && registry.isRegistered(folder))
        // Never over an existing file: a second writer cannot share the name.
        #expect(registry.createFile(file) == .failed(EEXIST))

        registry.recordSignal(SIGTERM)
        #expect(registry.caughtSignal == SIGTERM)
        #expect(registry.createFile(dir + "/.c.tmp") == .refused)
        #expect(registry.createFolder(dir + "/.d.tmp") == .refused)
        registry.removeAll()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [])
    }

    @Test("A writer opening the output after a signal removed its temporary file cannot create the file again")
    func writerAfterRemoval() throws {
        let dir = try scratchDir()
        do {
            let output = try AtomicOutput(destination: dir + "/out.gif")
            #expect(output.writePath != output.temporaryPath)  // through the open descriptor
            #expect(FileManager.default.fileExists(atPath: output.temporaryPath))
            try FileBytes.write(Array("first".utf8), to: output.writePath, reportAs: "out.gif")
            // What the signal's handler does to a registered file.
            unlink(output.temporaryPath)
            // A writer that opens its file only now writes to the unlinked file.
            try FileBytes.write(Array("late".utf8), to: output.writePath, reportAs: "out.gif")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [])
    }
}
