import Foundation
import Testing

@testable import SweepWeb

@Suite("Hashes and encodings")
struct EncodingTests {
    @Test("SHA-256 matches the FIPS 180-4 examples")
    func sha256() {
        func hex(_ s: String) -> String { SHA256.digest(Array(s.utf8)).map { String(format: "%02x", $0) }.joined() }
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(String(repeating: "a", count: 1000)).hasPrefix("41edece42d63e8d9bf515a9ba6932e1c"))
    }

    @Test("Base64 agrees with Foundation for every length remainder")
    func base64() {
        for n in 0..<70 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString())
        }
    }

    @Test("Text is escaped for HTML, for JSON inside <script>, and for CSS font lists")
    func escaping() {
        #expect(HTMLText.escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;")
        #expect(HTMLText.jsonString("</script>\n\u{2028}") == "\"\\u003c/script\\u003e\\u000a\\u2028\"")
        #expect(HTMLText.cssFontFamily("Sans") == "\"Noto Sans\",system-ui,sans-serif")
        #expect(HTMLText.cssFontFamily("Noto Sans, Noto Sans CJK JP") == "\"Noto Sans\",\"Noto Sans CJK JP\",sans-serif")
        #expect(HTMLText.cssFontFamily("a\"b;}</style>") == "\"ab/style\",sans-serif")
        #expect(HTMLText.jsonNumber(2) == "2" && HTMLText.jsonNumber(0.42) == "0.42" && HTMLText.jsonNumber(.nan) == "0")
    }
}
