// Per-frame cost of the imaging core at 1080×1080, against a plain copy of the frame's bytes.
// Run: swift run -c release sweep-framebench [BEFORE AFTER]
import Foundation
import SweepImaging
import SweepPipeline
import SweepTimeline

func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }

func time(_ n: Int, _ body: (Int) -> Void) -> Double {
    var samples: [Double] = []
    for i in 0..<n {
        let t = DispatchTime.now().uptimeNanoseconds
        body(i)
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6)
    }
    return median(samples)
}

let args = CommandLine.arguments
let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/fixtures/photos")
    .standardized.path
let beforePath = args.count > 2 ? args[1] : photos + "/bythewater.jpg"
let afterPath = args.count > 2 ? args[2] : photos + "/bythewater-graded.jpg"
var spec = RenderSpec(before: .file(beforePath), after: .file(afterPath), animation: RenderSpec.sweep())
spec.width = 1080
spec.height = 1080
let source = try FrameSource(spec: spec)
let n = 200
var frame = RGBAImage(width: 1080, height: 1080)
let src = RGBAImage(width: 1080, height: 1080, fill: .white)

let copy = time(n) { _ in
    frame.pixels.withUnsafeMutableBufferPointer { d in
        src.pixels.withUnsafeBufferPointer { s in d.baseAddress!.update(from: s.baseAddress!, count: s.count) }
    }
}
let sweep = time(n) { i in
    source.render(FrameState(position: Double(i % 100) / 100, before: .identity, after: .vivid), into: &frame)
}
let changing = time(n) { i in
    let f = Double(i) / Double(n)
    source.render(FrameState(position: 0.5, before: .identity, after: Adjustments.identity.interpolated(to: .dream, f)), into: &frame)
}
print("frame 1080x1080, median of \(n) (ms)")
print(String(format: "plain copy of the frame's bytes   %7.3f ms", copy))
print(String(format: "pure sweep frame (look held)      %7.3f ms   %.2fx copy", sweep, sweep / copy))
print(String(format: "frame whose adjustments change    %7.3f ms   %.2fx copy", changing, changing / copy))

// Where the time goes (diagnostics).
let b = try FrameSource(spec: spec)
var noOverlay = spec
noOverlay.style.showHandle = false
noOverlay.style.showLabels = false
let bare = try FrameSource(spec: noOverlay)
let splitOnly = time(n) { i in bare.render(FrameState(position: Double(i % 100) / 100, before: .identity, after: .identity), into: &frame) }
let withOverlay = time(n) { i in b.render(FrameState(position: Double(i % 100) / 100, before: .identity, after: .identity), into: &frame) }
print(String(format: "  split only %.3f ms, split + overlay %.3f ms", splitOnly, withOverlay))
var handleOnly = spec
handleOnly.style.showLabels = false
let h1 = try FrameSource(spec: handleOnly)
let th = time(n) { i in h1.render(FrameState(position: Double(i % 100) / 100, before: .identity, after: .identity), into: &frame) }
var labelsOnly = spec
labelsOnly.style.showHandle = false
let l1 = try FrameSource(spec: labelsOnly)
let tl = time(n) { i in l1.render(FrameState(position: Double(i % 100) / 100, before: .identity, after: .identity), into: &frame) }
print(String(format: "  split + handle %.3f ms, split + labels %.3f ms", th, tl))
