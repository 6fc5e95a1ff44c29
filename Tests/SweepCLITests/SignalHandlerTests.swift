import SweepSupport
import Testing

@Suite("Signal handlers")
struct SignalHandlerTests {
    @Test("Installing the SIGINT/SIGTERM handlers twice installs them once")
    func installOnce() {
        let registry = TempFileRegistry.shared
        registry.installSignalHandlers()
        registry.installSignalHandlers()
        #expect(registry.signalHandlerInstallations == 1)
    }
}
