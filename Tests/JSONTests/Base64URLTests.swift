import Foundation
import JSON
import Testing

/// Base64url without padding: RFC 4648 §10's vectors in the URL-safe alphabet, both ways.
struct Base64URLTests {
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(text: String, encoded: String) {
        #expect(Base64URL.encode(Array(text.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(text.utf8))
    }

    @Test func urlSafeAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
    }

    @Test func everyByteStringRoundTrips() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + length) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    /// Foundation's base64, made URL-safe and unpadded, as an independent encoder: every length
    /// (each tail of one and two bytes) and every byte value.
    @Test func agreesWithFoundationsEncoder() {
        for length in 0..<300 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 131 + length * 7) }
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation)
            var appended = Array("head.".utf8)
            Base64URL.append(bytes, to: &appended)
            #expect(appended == Array("head.".utf8) + Array(foundation.utf8))
        }
    }

    @Test(arguments: ["Zg==", "Zm9v+", "Zm9v/", "Z", "Zh", "Zm9 v", "Zm9vY"])
    func refusesPaddingForeignCharactersImpossibleLengthsAndUnusedBits(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
