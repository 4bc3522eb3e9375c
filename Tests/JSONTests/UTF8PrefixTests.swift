import JSON
import Testing

/// `utf8Prefix`: at most the given number of UTF-8 bytes, cut on a scalar boundary, whatever the
/// grapheme clusters.
struct UTF8PrefixTests {
    @Test func shortTextIsKept() {
        #expect("Ping".utf8Prefix(100) == "Ping")
        #expect("".utf8Prefix(0) == "")
        #expect(String(repeating: "é", count: 50).utf8Prefix(100) == String(repeating: "é", count: 50))
    }

    @Test func longTextIsCutByBytesOnAScalarBoundary() {
        #expect(String(repeating: "n", count: 5000).utf8Prefix(100) == String(repeating: "n", count: 100))
        // "é" is two bytes: 100 bytes hold 50; 99 bytes hold 49, not half a scalar.
        #expect(String(repeating: "é", count: 100).utf8Prefix(100) == String(repeating: "é", count: 50))
        #expect(String(repeating: "é", count: 100).utf8Prefix(99) == String(repeating: "é", count: 49))
        // Four-byte scalars.
        #expect(String(repeating: "𝄞", count: 10).utf8Prefix(7) == "𝄞")
        #expect("𝄞".utf8Prefix(3) == "")
    }

    /// One Character of 100,001 bytes: a cut by Characters would keep all of it.
    @Test func oneHugeGraphemeClusterIsCut() {
        let name = "a" + String(repeating: "\u{301}", count: 50_000)
        #expect(name.count == 1)
        let cut = name.utf8Prefix(100)
        #expect(cut.utf8.count == 99)
        #expect(cut == "a" + String(repeating: "\u{301}", count: 49))
        #expect(Array(cut.unicodeScalars) == Array(name.unicodeScalars.prefix(50)))
    }
}
