import Foundation
import Testing

/// The EmbedText build plugin on this target's Fixtures/ folder: every file becomes a property
/// named after its path, holding exactly the file's text, whatever characters it holds.
struct EmbedTextTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "Fixtures")

    @Test(arguments: [
        ("tricky.txt", EmbeddedFixtures.trickyTxt),
        ("empty.txt", EmbeddedFixtures.emptyTxt),
        ("backslash.js", EmbeddedFixtures.backslashJs),
        ("nested/qr-code.v2.js", EmbeddedFixtures.nestedQrCodeV2Js),
    ])
    func theEmbeddedTextIsTheFile(path: String, embedded: String) throws {
        let file = try String(contentsOf: Self.fixtures.appending(path: path), encoding: .utf8)
        #expect(embedded == file)
    }

    /// Each character that a Swift string literal could swallow, spelled here independently of
    /// the file: raw-string delimiters, escapes and interpolations, CRLF, control characters.
    @Test func charactersASwiftLiteralWouldChangeAreKept() {
        let expected = "Quotes and hashes: \"# \"## \"\"\" \"\"\"#\n"
            + ###"Escapes that must stay text: \(x) \#(x) \##(y) \#n \u{41}"### + "\r\n"
            + "A CRLF line above, a tab:\there, a bell:\u{7}, DEL:\u{7F}.\n"
            + "Unicode: 이메일 – é 🙂\n"
            + "No final line break"
        #expect(EmbeddedFixtures.trickyTxt == expected)
        #expect(EmbeddedFixtures.emptyTxt.isEmpty)
        #expect(EmbeddedFixtures.backslashJs == ##"const hash = /\#(\w+)/; // a backslash and a hash, with no quote before: \#n \#(x)"## + "\n")
    }
}
