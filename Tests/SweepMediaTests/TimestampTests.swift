import CFFmpeg
import Testing

@testable import SweepMedia

/// Timestamps from files (#46, #48): a crafted time cannot overflow sweep's arithmetic, and
/// the rate and time 0 a clip is played at follow what its timestamps mean.
@Suite struct TimestampTests {
    @Test("A time that is missing or beyond 2^60 ticks counts as missing; sums of sane times cannot overflow")
    func sane() {
        #expect(Ticks.sane(sweep_av_nopts_value()) == nil)
        #expect(Ticks.sane(Int64.max) == nil && Ticks.sane(Int64.min + 1) == nil)
        #expect(Ticks.sane(Ticks.bound) == nil && Ticks.sane(-Ticks.bound) == nil)
        #expect(Ticks.sane(Ticks.bound - 1) == Ticks.bound - 1 && Ticks.sane(0) == 0 && Ticks.sane(-90_000) == -90_000)
        // Eight sane times add up inside Int64.
        let big = Ticks.bound - 1
        #expect(big.multipliedReportingOverflow(by: 8).overflow == false && (-big).multipliedReportingOverflow(by: 8).overflow == false)
    }

    @Test("Rescaling answers nil instead of INT64_MIN when the result does not fit")
    func rescale() {
        let second = AVRational(num: 1, den: 1), nano = AVRational(num: 1, den: 1_000_000_000)
        let ms = AVRational(num: 1, den: 1000), khz48 = AVRational(num: 1, den: 48_000)
        #expect(Ticks.rescale(1500, ms, khz48) == 72_000)
        #expect(Ticks.rescale(Ticks.bound / 2, second, nano) == nil)
        #expect(Ticks.rescale(Int64.max, ms, khz48) == nil)
        #expect(Ticks.rescale(10, AVRational(num: 0, den: 1), ms) == nil)
    }

    @Test("Seconds become ticks, clamped, and NaN becomes 0")
    func seconds() {
        #expect(Ticks.of(seconds: 1.5, in: AVRational(num: 1, den: 90_000)) == 135_000)
        #expect(Ticks.of(seconds: 0.067, in: AVRational(num: 1, den: 1000)) == 67)
        #expect(Ticks.of(seconds: 1e300, in: AVRational(num: 1, den: 1000)) == Ticks.bound - 1)
        #expect(Ticks.of(seconds: -.infinity, in: AVRational(num: 1, den: 1000)) == -(Ticks.bound - 1))
        #expect(Ticks.of(seconds: .nan, in: AVRational(num: 1, den: 1000)) == 0)
    }

    @Test(
        "The nominal rate is played when it is within 5 % of the average or a recorder's clock with frames held, else the average",
        arguments: [
            // (nominal, average, expected)
            ((15, 1), (1499, 100), 15.0),  // a phone clip with one late frame
            ((15, 1), (1452, 100), 15.0),  // a 2 s one
            ((50, 1), (25, 1), 25.0),  // interlaced broadcast: the field rate is not the frame rate
            ((120, 1), (2347, 100), 23.47),  // a screen recording with variable timing
            ((30, 1), (5, 1), 30.0),  // a screen recorder that writes only changed frames
            ((60, 1), (2, 1), 60.0),
            ((30000, 1001), (0, 0), 30000 / 1001.0),  // no average (a stream that does not say)
            ((0, 0), (25, 1), 25.0),
            ((0, 0), (0, 0), 25.0),
            ((1000, 1), (0, 0), 25.0),  // beyond 240: damage
            ((60000, 1001), (3_000_000, 50_050), 60000 / 1001.0),  // Matroska's milliseconds: snapped to 59.94
        ] as [((Int32, Int32), (Int32, Int32), Double)])
    func nominalRate(nominal: (Int32, Int32), average: (Int32, Int32), expected: Double) {
        let rate = VideoDecoder.nominalRate(
            real: AVRational(num: nominal.0, den: nominal.1), average: AVRational(num: average.0, den: average.1))
        #expect(abs(rate - expected) < 1e-9, "\(nominal) \(average) → \(rate)")
    }

    @Test("Clip times print as m:ss.sss or h:mm:ss.sss; damaged ones in words, never negative numbers")
    func clipTimes() {
        #expect(VideoDecoder.clipTime(0) == "0:00.000")
        #expect(VideoDecoder.clipTime(75.25) == "1:15.250")
        #expect(VideoDecoder.clipTime(3723.5) == "1:02:03.500")
        for bad in [-56.0, -1e18, .nan, .infinity, 1e30] { #expect(VideoDecoder.clipTime(bad) == "an unreadable time") }
    }

    @Test("A clip's time 0 is its stream's start, unless the stream gives none or one over 10 s from the first frame")
    func origin() {
        let tb = 1 / 90_000.0
        // A transport stream cut mid-GOP: the first frame that decodes comes 0.8 s after the start.
        #expect(VideoDecoder.origin(streamStart: 127_920, firstFrame: 199_920, timeBase: tb) == 127_920)
        // B-frames shown before the stream's stated start.
        #expect(VideoDecoder.origin(streamStart: 3_000, firstFrame: 0, timeBase: tb) == 0)
        #expect(VideoDecoder.origin(streamStart: sweep_av_nopts_value(), firstFrame: 42, timeBase: tb) == 42)
        #expect(VideoDecoder.origin(streamStart: Int64.min + 5, firstFrame: 42, timeBase: tb) == 42)
        #expect(VideoDecoder.origin(streamStart: 0, firstFrame: 11 * 90_000, timeBase: tb) == 11 * 90_000)
    }
}
