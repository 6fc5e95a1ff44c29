import Testing

@testable import SweepPipeline

@Suite("Where a size cap's sample runs start")
struct SampleWindowTests {
    let l = Renderer.sampleLength

    @Test("Without key frames the runs are spread evenly, the first at the start and the last at the end")
    func even() {
        let starts = Renderer.sampleStarts(frames: 880, windows: 6, clipTimes: nil, keyFrames: [])
        #expect(starts == [0, 174, 348, 523, 697, 872])
        // A clip without an index gives the same.
        let times = (0..<880).map { Double($0) / 20 }
        #expect(Renderer.sampleStarts(frames: 880, windows: 6, clipTimes: times, keyFrames: []) == starts)
    }

    @Test("With a clip, each later run starts at the first frame at or after the key frame nearest its place")
    func atKeyFrames() {
        // 44 s at 20 fps from a clip with a key frame every 8.33 s (x264's default at 30 fps).
        let times = (0..<880).map { Double($0) / 20 }
        let keys = stride(from: 0.0, to: 44, by: 25.0 / 3).map { $0 }
        let starts = Renderer.sampleStarts(frames: 880, windows: 6, clipTimes: times, keyFrames: keys)
        #expect(starts.count == 6 && starts[0] == 0)
        for (s, key) in zip(starts.dropFirst(), keys.dropFirst()) {
            #expect(times[s] >= key - 0.001 && times[s] < key + 0.05, "run at \(times[s]) s for the key frame at \(key) s")
        }
        // In order, apart, and within the frames.
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $0 + l <= $1 } && starts.last! + l <= 880)
    }

    @Test("A run with no key frame within half the spacing stays where it was")
    func farKeyFrames() {
        let times = (0..<880).map { Double($0) / 20 }
        // One key frame at 20 s: only the run planned at 17.4 s can reach it.
        let starts = Renderer.sampleStarts(frames: 880, windows: 6, clipTimes: times, keyFrames: [0, 20])
        #expect(starts == [0, 174, 400, 523, 697, 872])
    }
}
