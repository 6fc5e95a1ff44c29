import Foundation
import SweepPipeline
import SweepRequest
import SweepSupport
import SweepTestSupport
import Testing

@testable import SweepServe

/// Each option's values are declared once (``OptionValues``): the ranges and words the
/// service's OpenAPI document states must be exactly what its spec parser takes.
@Suite("Option values: what the OpenAPI document states is what a spec takes")
struct OptionValuesTests {
    /// The spec schema's keys as the document served says them.
    static func documentedKeys() throws -> [String: [String: Any]] {
        let server = try ServeProcess()
        let doc = try curl([server.url + "/v1/openapi.json"]).json
        let paths = try #require(doc["paths"] as? [String: Any])
        let post = try #require((paths["/v1/renders"] as? [String: Any])?["post"] as? [String: Any])
        let body = try #require((post["requestBody"] as? [String: Any])?["content"] as? [String: Any])
        let form = try #require((body["multipart/form-data"] as? [String: Any])?["schema"] as? [String: Any])
        let spec = try #require((form["properties"] as? [String: Any])?["spec"] as? [String: Any])
        return try #require(spec["properties"] as? [String: [String: Any]])
    }

    /// A spec holding `key` set to `json` (a JSON value's text), decoded as the service decodes
    /// one; nil when it is taken, else the refusal's message.
    static func refusal(_ key: String, _ json: String) -> String? {
        do {
            let fail = { (message: String, fix: String) in SweepError(.usage, message, fix: fix) }
            let object = try RequestKeys.object(Array("{\"\(key)\": \(json)}".utf8), fail: fail)
            var given = ArgumentSplitter.Result(positionals: ["a.png"], options: [("output", "out.gif")])
            given.options += try RequestKeys.values(object, fail: fail)
            _ = try RenderRequest.interpret(given)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// A range refusal, not one of the checks between options (an end not after the start).
    static func outOfRange(_ message: String?) -> Bool {
        message.map { $0.contains("out of range") || $0.contains("beyond a day") } ?? false
    }

    @Test("every documented minimum and maximum is taken; a step below is refused, a step above as out of range")
    func ranges() throws {
        var checked = 0
        for (key, schema) in try Self.documentedKeys() {
            for alternative in schema["anyOf"] as? [[String: Any]] ?? [] {
                guard let low = alternative["minimum"] as? Double, let high = alternative["maximum"] as? Double else { continue }
                let whole = alternative["type"] as? String == "integer"
                let step = whole ? 1 : max(0.001, abs(high) * 1e-6)
                let text = { (v: Double) in whole || v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v) }
                #expect(!Self.outOfRange(Self.refusal(key, text(low))), "\(key) \(text(low))")
                #expect(!Self.outOfRange(Self.refusal(key, text(high))), "\(key) \(text(high))")
                #expect(Self.refusal(key, text(low - step)) != nil, "\(key) \(text(low - step)) is refused")
                #expect(Self.outOfRange(Self.refusal(key, text(high + step))), "\(key) \(text(high + step)) is refused")
                checked += 1
            }
        }
        // Every numeric option: the animation, clip times, sizes, rates, caps, encoders, looks, style.
        #expect(checked >= 30, "\(checked) ranges")
    }

    @Test("every documented word is taken, and a word not documented is refused")
    func words() throws {
        var checked = 0
        for (key, schema) in try Self.documentedKeys() where !ServeSpec.namedKeys.keys.contains(key) {
            for alternative in schema["anyOf"] as? [[String: Any]] ?? [] {
                guard let words = alternative["enum"] as? [String] else { continue }
                for word in words { #expect(Self.refusal(key, "\"\(word)\"") == nil, "\(key) \(word)") }
                #expect(Self.refusal(key, "\"not-one-of-them\"") != nil, "\(key)")
                checked += 1
            }
        }
        // ease, loop, reduce-motion, audio, hdr, codec, fit, dither, page-images.
        #expect(checked >= 9, "\(checked) lists")
    }

    @Test("a colour's pattern takes what the parser takes, and the parser refuses what it does not")
    func colours() throws {
        let keys = try Self.documentedKeys()
        let schema = try #require((keys["knob-color"]?["anyOf"] as? [[String: Any]])?.first)
        let pattern = try NSRegularExpression(pattern: try #require(schema["pattern"] as? String))
        let matches = { (s: String) in pattern.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil }
        for good in ["#ff8800", "FF8800", "#ff880080", "White", "transparent", "BLACK"] {
            #expect(matches(good), "\(good)")
            #expect(Self.refusal("knob-color", "\"\(good)\"") == nil, "\(good)")
        }
        for bad in ["#ff88", "red", "#gg8800", "whitey", "+fffff", "#+ffffff"] {
            #expect(!matches(bad), "\(bad)")
            #expect(Self.refusal("knob-color", "\"\(bad)\"") != nil, "\(bad)")
        }
    }
}
