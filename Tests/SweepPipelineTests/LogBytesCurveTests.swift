import Testing

@testable import SweepPipeline

@Suite("Size cap: log2 bytes along a knob, read both ways")
struct LogBytesCurveTests {
    @Test("A rising curve: its knots' own values, straight lines between, flat past the ends; read back to the knob")
    func rising() {
        let c = LogBytesCurve(x: [40, 50, 90], y: [-2, -1, 0])
        #expect(c.at(40) == -2 && c.at(50) == -1 && c.at(90) == 0)
        #expect(c.at(45) == -1.5 && c.at(70) == -0.5)
        #expect(c.at(10) == -2 && c.at(100) == 0)
        #expect(c.knob(reaching: -1.5) == 45 && c.knob(reaching: -0.5) == 70 && c.knob(reaching: -1) == 50)
        #expect(c.knob(reaching: -3) == 40 && c.knob(reaching: 0.5) == 90)
    }

    @Test("A falling curve (bytes against a lossy budget) reads the same way; a flat stretch gives its first knob")
    func falling() {
        let c = LogBytesCurve(x: [10, 20, 30, 60], y: [0, -1, -1, -1.5])
        #expect(c.at(15) == -0.5 && c.at(45) == -1.25 && c.at(80) == -1.5)
        #expect(c.knob(reaching: -0.5) == 15 && c.knob(reaching: -1.25) == 45)
        #expect(c.knob(reaching: -1) == 20)
        #expect(c.knob(reaching: 0.3) == 10 && c.knob(reaching: -2) == 60)
    }

    @Test("The lossy search's curve: a budget past the ceiling's bytes is the ceiling, and one never goes below where it starts")
    func lossyEnds() {
        // Wanting 4× fewer bytes from --lossy 10 is past the photo's whole depth (−1.5).
        #expect(SizeCap.lossy(from: 10, log2Ratio: -2) == Double(SizeCap.lossyCeiling))
        // More bytes than were made: no larger budget, the one it started from.
        #expect(SizeCap.lossy(from: 20, log2Ratio: 0.2) == 20)
        // Half the fall from 15 (−0.405) to 20 (−0.735): 17.5.
        #expect(abs(SizeCap.lossy(from: 15, log2Ratio: -0.165) - 17.5) < 1e-9)
    }
}
