import Testing

@testable import SweepImaging

func solid(_ w: Int, _ h: Int, _ c: RGBA8) -> RGBAImage { RGBAImage(width: w, height: h, fill: c) }

@Suite("Split, overlay and resampling")
struct CompositeTests {
    let red = RGBA8(r: 200, g: 0, b: 0), blue = RGBA8(r: 0, g: 0, b: 200)

    func plainOverlay(_ w: Int, _ h: Int, _ configure: (inout SliderStyle) throws -> Void = { _ in }) throws -> SliderOverlay {
        var s = SliderStyle()
        s.showHandle = false
        s.showLabels = false
        try configure(&s)
        return try SliderOverlay(width: w, height: h, style: s)
    }

    @Test("Before fills the leading share p of the width; the edge pixel mixes by coverage")
    func splitEdge() throws {
        var frame = solid(100, 10, .black)
        SplitCompositor.compose(
            before: solid(100, 10, red), after: solid(100, 10, blue), overlay: try plainOverlay(100, 10),
            position: 0.305, into: &frame)
        #expect(frame[29, 5] == red)
        #expect(frame[31, 5] == blue)
        // x = 30.5: half of pixel 30 is before.
        #expect(abs(Int(frame[30, 5].r) - 100) <= 1 && abs(Int(frame[30, 5].b) - 100) <= 1)
    }

    @Test("Right-to-left puts before on the right; vertical puts it on top")
    func mirroredAndVertical() throws {
        var frame = solid(100, 100, .black)
        SplitCompositor.compose(
            before: solid(100, 100, red), after: solid(100, 100, blue),
            overlay: try plainOverlay(100, 100) { $0.rightToLeft = true }, position: 0.25, into: &frame)
        #expect(frame[90, 50] == red && frame[10, 50] == blue)
        SplitCompositor.compose(
            before: solid(100, 100, red), after: solid(100, 100, blue),
            overlay: try plainOverlay(100, 100) { $0.orientation = .vertical }, position: 0.25, into: &frame)
        #expect(frame[50, 10] == red && frame[50, 90] == blue)
    }

    @Test("Positions clamp: p = 1 is all before, p = 0 all after")
    func ends() throws {
        var frame = solid(50, 5, .black)
        let o = try plainOverlay(50, 5)
        SplitCompositor.compose(before: solid(50, 5, red), after: solid(50, 5, blue), overlay: o, position: 1.5, into: &frame)
        #expect(frame.pixels == solid(50, 5, red).pixels)
        SplitCompositor.compose(before: solid(50, 5, red), after: solid(50, 5, blue), overlay: o, position: -1, into: &frame)
        #expect(frame.pixels == solid(50, 5, blue).pixels)
    }

    @Test("Divider is white and 3 pt wide; the knob is a white disc centred on the split")
    func handle() throws {
        let w = 390, h = 390  // scale 1
        var s = SliderStyle()
        s.showLabels = false
        let o = try SliderOverlay(width: w, height: h, style: s)
        var frame = solid(w, h, blue)
        o.draw(on: &frame, position: 0.5)
        #expect(frame[195, 20] == .white)  // divider covers 193.5…196.5
        #expect(frame[193, 20] != .white && frame[193, 20] != blue)  // partial coverage
        #expect(frame[190, 20] == blue)
        #expect(frame[195 + 18, 195] == .white)  // inside the 22-pt-radius knob, off the glyph
        #expect(frame[195 + 30, 195] != .white)  // outside the knob
        // Shadow: darker below the knob than above it.
        #expect(frame[195 + 16, 195 + 24].b < frame[195 + 16, 195 - 24].b)
    }

    @Test("Tags fade as the handle covers their side")
    func tagFade() throws {
        var s = SliderStyle()
        s.showHandle = false
        let o = try SliderOverlay(width: 390, height: 390, style: s)
        var atOne = solid(390, 390, .white), atZero = atOne
        o.draw(on: &atOne, position: 1)
        o.draw(on: &atZero, position: 0)
        // The capsule darkens the top-leading corner only while before shows.
        let probe = (16, 16)
        #expect(atOne[probe.0, probe.1].r < 200)
        #expect(atZero[probe.0, probe.1] == .white)
    }

    @Test("Same-size input passes through bit-exact; shrinking averages")
    func resample() {
        var img = solid(64, 48, red)
        img.pixels[100] = 7
        #expect(Resampler.resize(img, width: 64, height: 48) == img)
        // A fine checkerboard shrunk 4× must become flat grey, not alias.
        var checker = solid(256, 256, .black)
        for y in 0..<256 { for x in 0..<256 where (x + y) % 2 == 0 { for c in 0..<3 { checker.pixels[(y * 256 + x) * 4 + c] = 255 } } }
        let small = Resampler.resize(checker, width: 64, height: 64)
        for y in 4..<60 { for x in 4..<60 { #expect(abs(Int(small[x, y].g) - 128) <= 2) } }
    }

    @Test("Fill crops the centre; fit letterboxes with the background")
    func fitModes() {
        var wide = solid(200, 100, red)
        for y in 0..<100 { for x in 0..<50 { wide.pixels[(y * 200 + x) * 4 + 2] = 255 } }
        let filled = Resampler.resize(wide, width: 100, height: 100, mode: .fill)
        #expect(filled[50, 50].b == 0)  // the blue-ish left quarter is cropped away
        let fitted = Resampler.resize(wide, width: 100, height: 100, mode: .fit, background: .white)
        #expect(fitted[50, 2] == .white && fitted[50, 50].r > 190)
    }
}

@Suite("Labels in any script")
struct LabelTests {
    @Test(
        "Labels shape with installed fonts, no missing glyphs",
        arguments: [
            ("Antes", "Después"), ("ビフォー", "アフター"), ("قبل", "بعد"), ("До", "После"),
        ])
    func scripts(before: String, after: String) throws {
        var s = SliderStyle()
        s.beforeLabel = before
        s.afterLabel = after
        #expect(try s.missingLabelCharacters().isEmpty)
        // And the tag really draws: the capsule is wider for a longer label.
        s.showHandle = false
        var frame = RGBAImage(width: 390, height: 390, fill: .white)
        try SliderOverlay(width: 390, height: 390, style: s).draw(on: &frame, position: 0.5)
        let dark = frame.pixels.enumerated().filter { $0.offset % 4 == 0 && $0.element < 200 }.count
        #expect(dark > 500)
    }

    @Test("Emoji in a label draw in colour, not as boxes; a character no font has is named in a note")
    func emoji() throws {
        var s = SliderStyle()
        s.showHandle = false
        s.beforeLabel = "Before 🍎"
        s.afterLabel = "After 🌈"
        #expect(try s.missingLabelCharacters().isEmpty)
        var frame = RGBAImage(width: 390, height: 390, fill: RGBA8(r: 128, g: 128, b: 128))
        let overlay = try SliderOverlay(width: 390, height: 390, style: s)
        overlay.draw(on: &frame, position: 1)  // the before tag alone
        #expect(overlay.notes.isEmpty, "\(overlay.notes)")
        // The apple is red: grey capsule and white text have no such pixels.
        let red = (0..<60).flatMap { y in (0..<195).map { frame[$0, y] } }.filter { Int($0.r) - Int($0.g) > 80 }.count
        #expect(red > 20, "\(red) red pixels")
        s.afterLabel = "After \u{10FFFD}"
        let notes = try SliderOverlay(width: 390, height: 390, style: s).notes
        #expect(notes.contains { $0.contains("U+10FFFD") && $0.contains("as a box") }, "\(notes)")
    }

    @Test("Right-to-left tags swap corners")
    func rtlTags() throws {
        var s = SliderStyle()
        s.showHandle = false
        s.rightToLeft = true
        var frame = RGBAImage(width: 390, height: 390, fill: .white)
        try SliderOverlay(width: 390, height: 390, style: s).draw(on: &frame, position: 1)  // only before's tag shows
        #expect(frame[374, 16].r < 200)  // top-right: Before
        #expect(frame[16, 16] == .white)  // top-left: After, faded out
    }

    @Test("Rounded corners cut to the background")
    func corners() throws {
        var s = SliderStyle()
        s.showHandle = false
        s.showLabels = false
        s.cornerRadius = 24
        s.background = .clear
        var frame = RGBAImage(width: 390, height: 390, fill: .white)
        try SliderOverlay(width: 390, height: 390, style: s).draw(on: &frame, position: 0.5)
        #expect(frame[0, 0].a == 0 && frame[389, 389].a == 0)
        #expect(frame[12, 12].a == 255 && frame[195, 0].a == 255)
    }
}
