import Foundation
import SweepImaging
import SweepMedia
import SweepTimeline
import Testing

@testable import SweepPipeline

@Suite("Everyday use in the pipeline (issue 15)")
struct EverydayPipelineTests {
    @Test("The plan's split position is where the frames draw the handle: a dissolve's handle moves half way through the fade")
    func planDrawsTheShownHandle() throws {
        let anim = RenderSpec.sweep(from: 1, to: 0, duration: 3, hold: 0.5)
        let overlay = try SliderOverlay(width: 300, height: 200, style: SliderStyle())
        for t in stride(from: 0.0, through: 3, by: 0.1) {
            let s = anim.state(at: t, reduceMotion: .dissolve)
            let drawn =
                s.crossfade.map { overlay.dissolveLayout(from: s.position, to: $0.position, fraction: $0.fraction) }
                ?? overlay.layout(position: s.position)
            let planned = overlay.layout(position: s.handlePosition)
            #expect(drawn.knob?.x == planned.knob?.x && drawn.knob?.y == planned.knob?.y && drawn.edge == planned.edge, "t = \(t)")
        }
    }

    /// Renders `spec` as a PNG sequence and decodes every frame.
    func frames(_ spec: RenderSpec) throws -> [RGBAImage] {
        let dir = tempPath("seq")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let result = try Renderer.render(spec, to: dir + "/f-%03d.png")
        return try (0..<result.frames).map { try ImageDecoder.decode(path: String(format: "%@/f-%03d.png", dir, $0)) }
    }

    func twoSides(width: Int, height: Int) -> RenderSpec {
        RenderSpec(
            before: .image(RGBAImage(width: width, height: height, fill: red)),
            after: .image(RGBAImage(width: width, height: height, fill: blue)),
            animation: RenderSpec.sweep(from: 1, to: 0, duration: 2, hold: 0.5))
    }

    func isWhite(_ c: RGBA8) -> Bool { c.r > 245 && c.g > 245 && c.b > 245 }

    @Test("Resting at either end, the whole knob shows: as many white pixels as mid-sweep")
    func handleAtRest() throws {
        var spec = twoSides(width: 195, height: 120)
        spec.style.showLabels = false
        spec.fps = 2  // frames at t = 0 (p = 1), 0.5 (p = 1), 1.0 (p = 0.5), 1.5 (p = 0)
        let f = try frames(spec)
        #expect(f.count == 4)
        // White knob pixels, off the divider's columns.
        let overlay = try SliderOverlay(width: 195, height: 120, style: spec.style)
        let positions = [1.0, 1.0, 0.5, 0.0]
        let whites = zip(f, positions).map { frame, p in
            let edge = overlay.splitEdge(position: p).edge
            return (0..<120).reduce(0) { n, y in
                n + (0..<195).filter { x in abs(Double(x) + 0.5 - edge) > 2 && isWhite(frame[x, y]) }.count
            }
        }
        let middle = Double(whites[2])
        for end in [whites[0], whites[3]] { #expect(abs(Double(end) - middle) / middle < 0.03, "\(whites)") }
        // At rest no knob touches the frame edge.
        #expect((0..<120).allSatisfy { !isWhite(f[0][194, $0]) && !isWhite(f[3][0, $0]) })
    }

    @Test("A reduced-motion dissolve shows one whole handle, not two half-transparent ones")
    func dissolveHandle() throws {
        var spec = twoSides(width: 195, height: 120)
        spec.style.showLabels = false
        spec.reduceMotion = .dissolve
        spec.fps = 8
        let f = try frames(spec)
        let overlay = try SliderOverlay(width: 195, height: 120, style: spec.style)
        let r = spec.style.knobDiameter * overlay.scale / 2
        func probe(_ p: Double) -> (Int, Int) {
            (Int(overlay.splitEdge(position: p).edge + 0.5 * r), Int(60 - 0.6 * r))  // in the disc, off the arrow
        }
        let (sx, sy) = probe(1), (ex, ey) = probe(0)
        let mid = f.indices.filter { !isWhite(f[$0][sx, sy]) && !isWhite(f[$0][ex, ey]) }
        #expect(mid.isEmpty, "frames with no whole knob: \(mid)")
        let dissolving = f.filter { $0[10, 100] != f[0][10, 100] && $0[10, 100] != f.last![10, 100] }
        #expect(!dissolving.isEmpty)  // the pictures do cross-fade
    }

    @Test("A format's safe insets keep the tags out of the platform's own interface")
    func safeInsets() throws {
        let story = try library.format("story")
        #expect(story.safeInsets == SafeInsets(top: 0.14, bottom: 0.2))
        var spec = twoSides(width: 108, height: 192)
        spec.style.showHandle = false
        story.apply(to: &spec)
        (spec.width, spec.height) = (108, 192)
        let path = tempPath("story.png")
        _ = try Renderer.preview(spec, position: 0.5, to: path)
        let img = try ImageDecoder.decode(path: path)
        let plain = { (y: Int) in (0..<108).allSatisfy { img[$0, y] == red || img[$0, y] == blue } }
        #expect((0..<Int(0.14 * 192)).allSatisfy(plain))
        #expect((Int(0.8 * 192)..<192).allSatisfy(plain))
        #expect(!(0..<192).allSatisfy(plain))  // the tags are drawn, lower down
    }

    @Test("The compiled-in presets are exactly the files in presets/ (run scripts/embed-presets.sh after editing)")
    func builtinsMatchFolder() throws {
        for kind in PresetLibrary.Kind.allCases {
            let folder = repoPresets + "/" + kind.rawValue
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }
            #expect(Set(files.map { String($0.dropLast(5)) }) == Set(PresetLibrary.builtinNames(kind)))
            for file in files {
                let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
                #expect(PresetLibrary.builtinText(String(file.dropLast(5)), kind: kind) == text, "\(kind)/\(file)")
            }
        }
        // Without any folder the built-in ones still load.
        let bare = PresetLibrary(directory: nil)
        #expect(try bare.look("noir").saturation == 0)
        #expect(try bare.format("instagram-square").width == 1080)
        #expect(try bare.animationPreset("reveal").0.position.count > 1)
    }
}
