import Testing

@testable import GraphQL

/// `Source.location(of:)`: 1-based lines and columns; `\n`, `\r\n` and `\r` end a
/// line (spec §2.1.2); columns count Unicode scalars.
@Suite struct SourceTests {
    @Test(arguments: [
        ("abc", 0, 1, 1), ("abc", 2, 1, 3), ("abc", 3, 1, 4),
        ("a\nb", 2, 2, 1), ("a\n\nb", 3, 3, 1),
        ("a\r\nb", 3, 2, 1), ("a\r\n\r\nb", 5, 3, 1), ("a\r\nbc", 4, 2, 2),
        ("a\rb", 2, 2, 1), ("a\r\rb", 3, 3, 1), ("a\n\rb", 3, 3, 1), ("a\r\n\rb", 4, 3, 1),
        ("é", 2, 1, 2), ("é😀x", 6, 1, 3), ("é😀x", 7, 1, 4), ("x\n😀😀y", 10, 2, 3), ("\u{FEFF}a", 3, 1, 2),
        ("ab", -5, 1, 1), ("ab", 99, 1, 3),
    ])
    func location(_ text: String, _ offset: Int, _ line: Int, _ column: Int) {
        #expect(Source(text).location(of: offset) == SourceLocation(line: line, column: column))
    }

    @Test func rawBytesCountScalarsEvenWhenInvalid() {
        let source = Source(bytes: [0x61, 0xFF, 0xC3, 0xA9, 0x0D, 0x0A, 0x62])
        #expect(source.location(of: 4) == SourceLocation(line: 1, column: 4))
        #expect(source.location(of: 6) == SourceLocation(line: 2, column: 1))
    }

    @Test func errorsDescribeTheirLocation() throws {
        let error = try #require(syntaxError { () throws(GraphQLError) in try parse("{\r\n  a(\r\n") })
        #expect(error.description == "Syntax Error: Expected Name, found <EOF>. (3:1)")
        #expect(Source("x", name: "schema.graphql").name == "schema.graphql")
    }
}
