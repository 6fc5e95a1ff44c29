import Foundation
import SweepGIF
import SweepImaging
import SweepMedia
import SweepSupport
import SweepTestSupport
import SweepTimeline
import Testing

@testable import SweepPipeline

let repoPresets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("presets").path
let library = PresetLibrary(directory: repoPresets)

func presetFile(_ json: String) -> String {
    let p = tempPath("preset.json")
    _ = FileManager.default.createFile(atPath: p, contents: Data(json.utf8))
    return p
}

func presetError(_ json: String) -> SweepError? {
    do { _ = try library.animationPreset(presetFile(json)); return nil } catch let e as SweepError { return e } catch { return nil }
}

@Suite("Animation presets")
struct PresetTests {
    static let names = ["reveal", "compare", "look-tour", "spring-peek"]

    @Test("Every file in presets/ decodes")
    func allDecode() throws {
        #expect(Set(library.names(.animations)).isSuperset(of: Self.names))
        for n in library.names(.animations) {
            let (p, file) = try library.animationPreset(n)
            _ = try p.animation(library: library, file: file)
        }
        for n in library.names(.looks) { _ = try library.look(n) }
    }

    @Test("The seed's looks in presets/looks match docs/REFERENCE.md §colour")
    func seedLooks() throws {
        #expect(try library.look("vivid") == Adjustments(brightness: 0.05, contrast: 1.2, saturation: 1.7))
        #expect(try library.look("noir") == Adjustments(brightness: -0.05, contrast: 1.35, saturation: 0))
        #expect(try library.look("dream") == Adjustments(brightness: 0.1, contrast: 0.85, saturation: 1.2, hue: 60))
        #expect(try library.look("vivid") == .vivid && library.look("noir") == .noir && library.look("dream") == .dream)
    }

    @Test("reveal holds on before, sweeps to after, holds")
    func reveal() throws {
        let (p, f) = try library.animationPreset("reveal")
        let a = try p.animation(library: library, file: f)
        #expect(a.state(at: 0.3).position == 1)
        #expect(a.state(at: 1.6).position > 0 && a.state(at: 1.6).position < 1)
        #expect(a.state(at: a.passDuration - 0.1).position == 0)
    }

    @Test("compare loops seamlessly: the last frame leads smoothly into the first")
    func compareSeamless() throws {
        let (p, f) = try library.animationPreset("compare")
        let a = try p.animation(library: library, file: f)
        let n = a.frameCount(fps: 30)
        let first = a.state(ofFrame: 0, fps: 30).position, last = a.state(ofFrame: n - 1, fps: 30).position
        #expect(abs(first - last) < 0.01)
    }

    @Test("look-tour keeps the split still and eases Vivid → Noir → Dream → original over 0.6 s each")
    func lookTour() throws {
        let (p, f) = try library.animationPreset("look-tour")
        let a = try p.animation(library: library, file: f)
        #expect(a.position.isConstant && a.state(at: 2).position == 0.5)
        #expect(a.state(at: 2.0).after == .vivid)
        #expect(a.state(at: 3.5).after == .noir)
        #expect(a.state(at: 5.0).after == .dream)
        #expect(a.state(at: 6.2).after == .identity)
        let changes = a.after.keyframes.dropFirst().filter { $0.curve == .easeInOut }
        let durations = zip(a.after.keyframes, a.after.keyframes.dropFirst()).filter { $1.curve == .easeInOut }.map { $1.time - $0.time }
        #expect(changes.count == 4)
        #expect(durations.prefix(3).allSatisfy { abs($0 - 0.6) < 1e-9 } && abs(durations[3] - 0.3) < 1e-9)
    }

    @Test("spring-peek overshoots the middle, then settles there")
    func springPeek() throws {
        let (p, f) = try library.animationPreset("spring-peek")
        let a = try p.animation(library: library, file: f)
        let values = stride(from: 0.4, to: 1.6, by: 0.01).map { a.state(at: $0).position }
        #expect(values.min()! < 0.5 - 0.01)
        #expect(abs(a.state(at: 2.0).position - 0.5) < 0.001)
    }

    @Test("Shortcuts retarget a preset: --from/--to map 1 and 0, --duration rescales, --ease replaces sweeps")
    func shortcuts() throws {
        let (p, f) = try library.animationPreset("reveal")
        let a = try p.animation(library: library, from: 0.9, to: 0.1, duration: 6.8, curve: .linear, file: f)
        #expect(a.state(at: 0).position == 0.9)
        #expect(abs(a.passDuration - 6.8) < 1e-9)
        #expect(abs(a.state(at: a.passDuration - 0.01).position - 0.1) < 1e-9)
        #expect(a.position.keyframes.filter { $0.curve != .hold && $0.time > 0 }.allSatisfy { $0.curve == .linear })
    }

    @Test("Reduce motion gives a sensible version of every preset", arguments: names)
    func reduced(name: String) throws {
        let (p, f) = try library.animationPreset(name)
        let a = try p.animation(library: library, file: f)
        let keyValues = Set(a.position.keyframes.map(\.value))
        let n = a.frameCount(fps: 30)
        for i in 0..<n {
            // cut: the handle only ever sits at keyframe positions; looks jump too.
            let c = a.state(ofFrame: i, fps: 30, reduceMotion: .cut)
            #expect(keyValues.contains(c.position))
            #expect(c.crossfade == nil)
            // dissolve: the handle never travels; moves become cross-fades between rest states.
            let d = a.state(ofFrame: i, fps: 30, reduceMotion: .dissolve)
            #expect(keyValues.contains(d.position))
            if let fade = d.crossfade { #expect(keyValues.contains(fade.position) && (0...1).contains(fade.fraction)) }
        }
        // Holds are kept: the length does not change.
        #expect(a.passDuration == p.duration ?? a.passDuration)
    }

    @Test("Presets render to GIF and MP4, with and without reduced motion", arguments: names)
    func renders(name: String) throws {
        let (p, f) = try library.animationPreset(name)
        for mode in ReduceMotion.allCases {
            var spec = RenderSpec(
                before: .image(try DemoScenes.flatLandscape()), after: .image(try DemoScenes.gradedLandscape()),
                animation: try p.animation(library: library, file: f))
            spec.width = 60
            spec.height = 80
            spec.fps = 8
            spec.reduceMotion = mode
            let gif = try Renderer.render(spec, to: tempPath("\(name).gif"))
            let g = try GIFReader(path: gif.output)
            // Centiseconds rounded down cumulatively, so the total never runs ahead of the real time.
            #expect(g.delays.reduce(0, +) == gif.frames * 100 / 8)
            let mp4 = try Renderer.render(spec, to: tempPath("\(name).mp4"))
            #expect(try VideoReader(path: mp4.output, keepFrames: false).frameCount == mp4.frames)
        }
    }

    @Test(
        "Errors name the file, the field and the reason",
        arguments: [
            ("{\"version\": 1,\n \"position\": [{\"time\": 0 \"value\": 1}]}", "line 2, column 26"),
            (#"{"version": 1, "positon": []}"#, "positon"),
            (#"{"version": 1, "position": [{"time": "soon", "value": 1}]}"#, "position[0].time"),
            (#"{"version": 1, "position": [{"time": 0, "value": 1.5}]}"#, "value"),
            (#"{"version": 1, "position": [{"time": 0, "value": 1e999}]}"#, "JSON"),
            (#"{"version": 1, "position": [{"time": 0, "value": 1, "curve": "bouncey"}]}"#, "bouncy"),
            (#"{"version": 1, "position": [{"time": 1, "value": 1}, {"time": 0, "value": 0}]}"#, "backwards"),
            (#"{"version": 2, "position": []}"#, "version"),
            (#"{"version": 1, "position": [{"time": 0, "value": 1}], "after": [{"time": 0, "look": {"hue": "red"}}]}"#, "hue"),
            (#"{"version": 1, "position": [{"time": 0, "value": 1, "curve": {"spring": {"bounce": 0.2, "duraton": 1}}}]}"#, "duraton"),
        ])
    func errors(json: String, mentions: String) {
        let e = presetError(json)
        #expect(e?.code == .dataError)
        #expect(e?.subject?.hasSuffix("preset.json") == true)
        #expect((e?.message ?? "").contains(mentions) || (e?.fix ?? "").contains(mentions), "\(String(describing: e))")
    }
}

@Suite("Flash check (WCAG 2.3.1)")
struct FlashTests {
    @Test("Five black/white swaps a second fail; a reveal passes")
    func detector() {
        var bad = FlashDetector(fps: 30)
        for i in 0..<60 { bad.add(Array(repeating: (i / 3) % 2 == 0 ? 0.02 : 0.9, count: 9)) }
        #expect(bad.fails && bad.maxFlashesPerSecond >= 4)
        var slow = FlashDetector(fps: 30)
        for i in 0..<120 { slow.add(Array(repeating: (i / 15) % 2 == 0 ? 0.02 : 0.9, count: 9)) }
        #expect(!slow.fails)
        var small = FlashDetector(fps: 30)  // changes under 0.1 are not flashes
        for i in 0..<60 { small.add(Array(repeating: i % 2 == 0 ? 0.3 : 0.35, count: 9)) }
        #expect(small.maxFlashesPerSecond == 0)
    }

    @Test("A flashing animation warns, and --strict refuses it leaving no file")
    func renderer() throws {
        var keys = [Keyframe<Adjustments>(time: 0, value: .identity, curve: .hold)]
        for k in 1...20 {
            keys.append(Keyframe(time: Double(k) * 0.1, value: k % 2 == 0 ? .identity : Adjustments(brightness: -1), curve: .hold))
        }
        var spec = RenderSpec(
            before: .image(RGBAImage(width: 40, height: 40, fill: .white)), after: nil,
            animation: Animation(position: Track(constant: 0), before: Track(constant: .identity), after: Track(keys)))
        spec.fps = 20
        spec.style.showHandle = false
        spec.style.showLabels = false
        let warned = try Renderer.render(spec, to: tempPath("flash.gif"))
        #expect(warned.notes.contains { $0.contains("WCAG") })
        spec.refuseFlashes = true
        let out = tempPath("flash-strict.gif")
        #expect(throws: SweepError.self) { try Renderer.render(spec, to: out) }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
