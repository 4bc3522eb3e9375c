import Testing

@testable import GraphQL

// Lexer cases (spec §2.1 Source Text, §2.9 Input Values). Expected messages and
// locations were generated once from graphql-core 3.2.8 (graphql-js 16) and
// converted to graphql-js's quoting (`"x"` where graphql-core prints `'x'`).

struct LexCase: Sendable, CustomTestStringConvertible {
    let text: String
    /// Kind, value, line and column of every token.
    let tokens: [(TokenKind, String, Int, Int)]
    init(_ text: String, _ tokens: [(TokenKind, String, Int, Int)]) {
        self.text = text
        self.tokens = tokens
    }
    var testDescription: String { label(text) }
}

enum LexerTable {
    static let valid: [LexCase] = [
        LexCase("!", [(.bang, "", 1, 1)]),
        LexCase("$", [(.dollar, "", 1, 1)]),
        LexCase("&", [(.amp, "", 1, 1)]),
        LexCase("(", [(.parenL, "", 1, 1)]),
        LexCase(")", [(.parenR, "", 1, 1)]),
        LexCase("...", [(.spread, "", 1, 1)]),
        LexCase(":", [(.colon, "", 1, 1)]),
        LexCase("=", [(.equals, "", 1, 1)]),
        LexCase("@", [(.at, "", 1, 1)]),
        LexCase("[", [(.bracketL, "", 1, 1)]),
        LexCase("]", [(.bracketR, "", 1, 1)]),
        LexCase("{", [(.braceL, "", 1, 1)]),
        LexCase("|", [(.pipe, "", 1, 1)]),
        LexCase("}", [(.braceR, "", 1, 1)]),
        LexCase("!$&()...:=@[]{|}", [(.bang, "", 1, 1), (.dollar, "", 1, 2), (.amp, "", 1, 3), (.parenL, "", 1, 4), (.parenR, "", 1, 5), (.spread, "", 1, 6), (.colon, "", 1, 9), (.equals, "", 1, 10), (.at, "", 1, 11), (.bracketL, "", 1, 12), (.bracketR, "", 1, 13), (.braceL, "", 1, 14), (.pipe, "", 1, 15), (.braceR, "", 1, 16)]),
        LexCase("a", [(.name, "a", 1, 1)]),
        LexCase("_", [(.name, "_", 1, 1)]),
        LexCase("__typename", [(.name, "__typename", 1, 1)]),
        LexCase("A1_b2", [(.name, "A1_b2", 1, 1)]),
        LexCase("on", [(.name, "on", 1, 1)]),
        LexCase("true", [(.name, "true", 1, 1)]),
        LexCase("null", [(.name, "null", 1, 1)]),
        LexCase("a b", [(.name, "a", 1, 1), (.name, "b", 1, 3)]),
        LexCase("0", [(.int, "0", 1, 1)]),
        LexCase("-0", [(.int, "-0", 1, 1)]),
        LexCase("123", [(.int, "123", 1, 1)]),
        LexCase("-123", [(.int, "-123", 1, 1)]),
        LexCase("1.5", [(.float, "1.5", 1, 1)]),
        LexCase("-1.5e-10", [(.float, "-1.5e-10", 1, 1)]),
        LexCase("1E+3", [(.float, "1E+3", 1, 1)]),
        LexCase("0.0", [(.float, "0.0", 1, 1)]),
        LexCase("1e10", [(.float, "1e10", 1, 1)]),
        LexCase("1.0E-0", [(.float, "1.0E-0", 1, 1)]),
        LexCase("0e0", [(.float, "0e0", 1, 1)]),
        LexCase("9007199254740993", [(.int, "9007199254740993", 1, 1)]),
        LexCase("123.456e789", [(.float, "123.456e789", 1, 1)]),
        LexCase("\"\"", [(.string, "", 1, 1)]),
        LexCase("\"simple\"", [(.string, "simple", 1, 1)]),
        LexCase("\" white space \"", [(.string, " white space ", 1, 1)]),
        LexCase("\"quote \\\"\"", [(.string, "quote \"", 1, 1)]),
        LexCase("\"\\\\\"", [(.string, "\\", 1, 1)]),
        LexCase("\"\\/\"", [(.string, "/", 1, 1)]),
        LexCase("\"\\b\"", [(.string, "\u{8}", 1, 1)]),
        LexCase("\"\\f\"", [(.string, "\u{C}", 1, 1)]),
        LexCase("\"\\n\"", [(.string, "\n", 1, 1)]),
        LexCase("\"\\r\"", [(.string, "\r", 1, 1)]),
        LexCase("\"\\t\"", [(.string, "\t", 1, 1)]),
        LexCase("\"esc \\\"\\\\\\/\\b\\f\\n\\r\\t\"", [(.string, "esc \"\\/\u{8}\u{C}\n\r\t", 1, 1)]),
        LexCase("\"\\u0041\"", [(.string, "A", 1, 1)]),
        LexCase("\"\\u00e9\\u00E9\"", [(.string, "éé", 1, 1)]),
        LexCase("\"\\u{1F600}\"", [(.string, "😀", 1, 1)]),
        LexCase("\"\\u{0}\"", [(.string, "\u{0}", 1, 1)]),
        LexCase("\"\\u{0041}\"", [(.string, "A", 1, 1)]),
        LexCase("\"\\u{00000041}\"", [(.string, "A", 1, 1)]),
        LexCase("\"\\u{10FFFF}\"", [(.string, "\u{10FFFF}", 1, 1)]),
        LexCase("\"\\uD83D\\uDE00\"", [(.string, "😀", 1, 1)]),
        LexCase("\"\\uDBFF\\uDFFF\"", [(.string, "\u{10FFFF}", 1, 1)]),
        LexCase("\"unicode \\u1234\\u5678\\u90AB\\uCDEF\"", [(.string, "unicode ሴ噸邫췯", 1, 1)]),
        LexCase("\"é😀\"", [(.string, "é😀", 1, 1)]),
        LexCase("\"tab\there\"", [(.string, "tab\there", 1, 1)]),
        LexCase("\"bell\u{7} nul\u{0} del\u{7F}\"", [(.string, "bell\u{7} nul\u{0} del\u{7F}", 1, 1)]),
        LexCase("\"\u{1F}\"", [(.string, "\u{1F}", 1, 1)]),
        LexCase("\"\u{FEFF}\"", [(.string, "\u{FEFF}", 1, 1)]),
        LexCase("\"\"\"\"\"\"", [(.blockString, "", 1, 1)]),
        LexCase("\"\"\"simple\"\"\"", [(.blockString, "simple", 1, 1)]),
        LexCase("\"\"\" white space \"\"\"", [(.blockString, " white space ", 1, 1)]),
        LexCase("\"\"\"contains \" quote\"\"\"", [(.blockString, "contains \" quote", 1, 1)]),
        LexCase("\"\"\"contains \\\"\"\" triple quote\"\"\"", [(.blockString, "contains \"\"\" triple quote", 1, 1)]),
        LexCase("\"\"\"multi\nline\"\"\"", [(.blockString, "multi\nline", 1, 1)]),
        LexCase("\"\"\"multi\rline\r\nnormalized\"\"\"", [(.blockString, "multi\nline\nnormalized", 1, 1)]),
        LexCase("\"\"\"unescaped \\n\\r\\b\\t\\f\\u1234\"\"\"", [(.blockString, "unescaped \\n\\r\\b\\t\\f\\u1234", 1, 1)]),
        LexCase("\"\"\"slashes \\\\ \\/\"\"\"", [(.blockString, "slashes \\\\ \\/", 1, 1)]),
        LexCase("\"\"\"\n  spans\n    multiple\n      lines\n\n  \"\"\"", [(.blockString, "spans\n  multiple\n    lines", 1, 1)]),
        LexCase("\"\"\"\n    Hello,\n      World!\n\n    Yours,\n      GraphQL.\n  \"\"\"", [(.blockString, "Hello,\n  World!\n\nYours,\n  GraphQL.", 1, 1)]),
        LexCase("\"\"\"  \n\n    hello\n      world\n  \n\"\"\"", [(.blockString, "hello\n  world", 1, 1)]),
        LexCase("\"\"\"\r\n  a\r\n    b\r\n\"\"\"", [(.blockString, "a\n  b", 1, 1)]),
        LexCase("\"\"\"\r  a\r    b\r\"\"\"", [(.blockString, "a\n  b", 1, 1)]),
        LexCase("\"\"\"\n\tfoo\n\t\tbar\n\"\"\"", [(.blockString, "foo\n\tbar", 1, 1)]),
        LexCase("\"\"\"  first\n    second\n  third\"\"\"", [(.blockString, "  first\n  second\nthird", 1, 1)]),
        LexCase("\"\"\"   \n   \"\"\"", [(.blockString, "", 1, 1)]),
        LexCase("\"\"\"\n\n\"\"\"", [(.blockString, "", 1, 1)]),
        LexCase("\"\"\"\\\"\"\"\"\"\"", [(.blockString, "\"\"\"", 1, 1)]),
        LexCase("\"\"\"a\"\"\" \"\"\"b\"\"\"", [(.blockString, "a", 1, 1), (.blockString, "b", 1, 9)]),
        LexCase("\"\"\"😀 é\"\"\"", [(.blockString, "😀 é", 1, 1)]),
        LexCase("\"\"\"bell\u{7}\"\"\"", [(.blockString, "bell\u{7}", 1, 1)]),
        LexCase("\"\"\"\n  a\n \n  b\n\"\"\"", [(.blockString, "a\n\nb", 1, 1)]),
        LexCase("\"\"\"x\n  \t y\n  \tz\"\"\"", [(.blockString, "x\n y\nz", 1, 1)]),
        LexCase("\"\"\"\n    a \\\"\"\"\n      b\n  \"\"\"", [(.blockString, "a \"\"\"\n  b", 1, 1)]),
        LexCase("\"\"\"x\\\\\"\"\"y\"\"\"", [(.blockString, "x\\\"\"\"y", 1, 1)]),
        LexCase("\"\"\"  \\\"\"\"\n  z\"\"\"", [(.blockString, "  \"\"\"\nz", 1, 1)]),
        LexCase("# comment\nfoo", [(.name, "foo", 2, 1)]),
        LexCase("foo # comment", [(.name, "foo", 1, 1)]),
        LexCase("#\r\nfoo", [(.name, "foo", 2, 1)]),
        LexCase("# é😀 comment\rfoo", [(.name, "foo", 2, 1)]),
        LexCase("\u{FEFF}foo", [(.name, "foo", 1, 2)]),
        LexCase("a\u{FEFF}b", [(.name, "a", 1, 1), (.name, "b", 1, 3)]),
        LexCase(",,a,,b,,", [(.name, "a", 1, 3), (.name, "b", 1, 6)]),
        LexCase(" \t\n\r\n\ra", [(.name, "a", 4, 1)]),
        LexCase("a\r\nb\r\n\r\n  c", [(.name, "a", 1, 1), (.name, "b", 2, 1), (.name, "c", 4, 3)]),
        LexCase("a\rb\nc\r\nd", [(.name, "a", 1, 1), (.name, "b", 2, 1), (.name, "c", 3, 1), (.name, "d", 4, 1)]),
        LexCase("\"é😀\" x", [(.string, "é😀", 1, 1), (.name, "x", 1, 6)]),
        LexCase("\"\"\"é\n😀\"\"\" x", [(.blockString, "é\n😀", 1, 1), (.name, "x", 2, 6)]),
        LexCase("query Q($a: [Int!]! = 1) @d { ...F ... on T { f } }", [(.name, "query", 1, 1), (.name, "Q", 1, 7), (.parenL, "", 1, 8), (.dollar, "", 1, 9), (.name, "a", 1, 10), (.colon, "", 1, 11), (.bracketL, "", 1, 13), (.name, "Int", 1, 14), (.bang, "", 1, 17), (.bracketR, "", 1, 18), (.bang, "", 1, 19), (.equals, "", 1, 21), (.int, "1", 1, 23), (.parenR, "", 1, 24), (.at, "", 1, 26), (.name, "d", 1, 27), (.braceL, "", 1, 29), (.spread, "", 1, 31), (.name, "F", 1, 34), (.spread, "", 1, 36), (.name, "on", 1, 40), (.name, "T", 1, 43), (.braceL, "", 1, 45), (.name, "f", 1, 47), (.braceR, "", 1, 49), (.braceR, "", 1, 51)]),
    ]

    static let errors: [SyntaxErrorCase] = [
        SyntaxErrorCase("00", "Syntax Error: Invalid number, unexpected digit after 0: \"0\".", 1, 2),
        SyntaxErrorCase("01", "Syntax Error: Invalid number, unexpected digit after 0: \"1\".", 1, 2),
        SyntaxErrorCase("-01", "Syntax Error: Invalid number, unexpected digit after 0: \"1\".", 1, 3),
        SyntaxErrorCase("1.", "Syntax Error: Invalid number, expected digit but got: <EOF>.", 1, 3),
        SyntaxErrorCase(".5", "Syntax Error: Unexpected character: \".\".", 1, 1),
        SyntaxErrorCase("1e", "Syntax Error: Invalid number, expected digit but got: <EOF>.", 1, 3),
        SyntaxErrorCase("0x1", "Syntax Error: Invalid number, expected digit but got: \"x\".", 1, 2),
        SyntaxErrorCase("1a", "Syntax Error: Invalid number, expected digit but got: \"a\".", 1, 2),
        SyntaxErrorCase("1.0e", "Syntax Error: Invalid number, expected digit but got: <EOF>.", 1, 5),
        SyntaxErrorCase("-", "Syntax Error: Invalid number, expected digit but got: <EOF>.", 1, 2),
        SyntaxErrorCase("1.2.3", "Syntax Error: Invalid number, expected digit but got: \".\".", 1, 4),
        SyntaxErrorCase("1_000", "Syntax Error: Invalid number, expected digit but got: \"_\".", 1, 2),
        SyntaxErrorCase("+1", "Syntax Error: Unexpected character: \"+\".", 1, 1),
        SyntaxErrorCase("1.e1", "Syntax Error: Invalid number, expected digit but got: \"e\".", 1, 3),
        SyntaxErrorCase("1.A", "Syntax Error: Invalid number, expected digit but got: \"A\".", 1, 3),
        SyntaxErrorCase("-A", "Syntax Error: Invalid number, expected digit but got: \"A\".", 1, 2),
        SyntaxErrorCase("1.0eA", "Syntax Error: Invalid number, expected digit but got: \"A\".", 1, 5),
        SyntaxErrorCase("1.0e+", "Syntax Error: Invalid number, expected digit but got: <EOF>.", 1, 6),
        SyntaxErrorCase("0xF1", "Syntax Error: Invalid number, expected digit but got: \"x\".", 1, 2),
        SyntaxErrorCase("0b10", "Syntax Error: Invalid number, expected digit but got: \"b\".", 1, 2),
        SyntaxErrorCase("123abc", "Syntax Error: Invalid number, expected digit but got: \"a\".", 1, 4),
        SyntaxErrorCase("1.23f", "Syntax Error: Invalid number, expected digit but got: \"f\".", 1, 5),
        SyntaxErrorCase("1.234_5", "Syntax Error: Invalid number, expected digit but got: \"_\".", 1, 6),
        SyntaxErrorCase("1e1.0", "Syntax Error: Invalid number, expected digit but got: \".\".", 1, 4),
        SyntaxErrorCase("1e_1", "Syntax Error: Invalid number, expected digit but got: \"_\".", 1, 3),
        SyntaxErrorCase("-.5", "Syntax Error: Invalid number, expected digit but got: \".\".", 1, 2),
        SyntaxErrorCase("1-", "Syntax Error: Invalid number, expected digit but got: <EOF>.", 1, 3),
        SyntaxErrorCase("0.x", "Syntax Error: Invalid number, expected digit but got: \"x\".", 1, 3),
        SyntaxErrorCase("\"\\uD83D\"", "Syntax Error: Invalid Unicode escape sequence: \"\\uD83D\".", 1, 2),
        SyntaxErrorCase("\"\\uDE00\"", "Syntax Error: Invalid Unicode escape sequence: \"\\uDE00\".", 1, 2),
        SyntaxErrorCase("\"\\uD83Dx\"", "Syntax Error: Invalid Unicode escape sequence: \"\\uD83D\".", 1, 2),
        SyntaxErrorCase("\"\\uD83D\\u0041\"", "Syntax Error: Invalid Unicode escape sequence: \"\\uD83D\".", 1, 2),
        SyntaxErrorCase("\"\\uD83D\\uD83D\"", "Syntax Error: Invalid Unicode escape sequence: \"\\uD83D\".", 1, 2),
        SyntaxErrorCase("\"\\u{}\"", "Syntax Error: Invalid Unicode escape sequence: \"\\u{}\".", 1, 2),
        SyntaxErrorCase("\"\\u{110000}\"", "Syntax Error: Invalid Unicode escape sequence: \"\\u{110000}\".", 1, 2),
        SyntaxErrorCase("\"\\u{D800}\"", "Syntax Error: Invalid Unicode escape sequence: \"\\u{D800}\".", 1, 2),
        SyntaxErrorCase("\"\\u{DFFF}\"", "Syntax Error: Invalid Unicode escape sequence: \"\\u{DFFF}\".", 1, 2),
        SyntaxErrorCase("\"\\u{000000041}\"", "Syntax Error: Invalid Unicode escape sequence: \"\\u{000000041\".", 1, 2),
        SyntaxErrorCase("\"\\uXYZW\"", "Syntax Error: Invalid Unicode escape sequence: \"\\uXYZW\".", 1, 2),
        SyntaxErrorCase("\"\\x\"", "Syntax Error: Invalid character escape sequence: \"\\x\".", 1, 2),
        SyntaxErrorCase("\"\\u{1F600\"", "Syntax Error: Invalid Unicode escape sequence: \"\\u{1F600\"\".", 1, 2),
        SyntaxErrorCase("\"\\u{1F6 00}\"", "Syntax Error: Invalid Unicode escape sequence: \"\\u{1F6 \".", 1, 2),
        SyntaxErrorCase("\"\\u{FFFFFFFF}\"", "Syntax Error: Invalid Unicode escape sequence: \"\\u{FFFFFFFF}\".", 1, 2),
        SyntaxErrorCase("\"\\u12\"x", "Syntax Error: Invalid Unicode escape sequence: \"\\u12\"x\".", 1, 2),
        SyntaxErrorCase("\"bad \\z esc\"", "Syntax Error: Invalid character escape sequence: \"\\z\".", 1, 6),
        SyntaxErrorCase("\"unterminated", "Syntax Error: Unterminated string.", 1, 14),
        SyntaxErrorCase("\"", "Syntax Error: Unterminated string.", 1, 2),
        SyntaxErrorCase("\"line\nbreak\"", "Syntax Error: Unterminated string.", 1, 6),
        SyntaxErrorCase("\"line\rbreak\"", "Syntax Error: Unterminated string.", 1, 6),
        SyntaxErrorCase("\"a\r\n\"", "Syntax Error: Unterminated string.", 1, 3),
        SyntaxErrorCase("\"é😀 \\x\"", "Syntax Error: Invalid character escape sequence: \"\\x\".", 1, 5),
        SyntaxErrorCase("\"\\uD83D\\u{DE00}\"", "Syntax Error: Invalid Unicode escape sequence: \"\\uD83D\".", 1, 2),
        SyntaxErrorCase("\"\"\"abc", "Syntax Error: Unterminated string.", 1, 7),
        SyntaxErrorCase("\"\"\"", "Syntax Error: Unterminated string.", 1, 4),
        SyntaxErrorCase("\"\"\"\"", "Syntax Error: Unterminated string.", 1, 5),
        SyntaxErrorCase("\"\"\"a\n\nb\\\"\"\"", "Syntax Error: Unterminated string.", 3, 6),
        SyntaxErrorCase("?", "Syntax Error: Unexpected character: \"?\".", 1, 1),
        SyntaxErrorCase("'", "Syntax Error: Unexpected single quote character ('), did you mean to use a double quote (\")?", 1, 1),
        SyntaxErrorCase("\u{7}", "Syntax Error: Unexpected character: U+0007.", 1, 1),
        SyntaxErrorCase("é", "Syntax Error: Unexpected character: U+00E9.", 1, 1),
        SyntaxErrorCase("~", "Syntax Error: Unexpected character: \"~\".", 1, 1),
        SyntaxErrorCase("\u{0}", "Syntax Error: Unexpected character: U+0000.", 1, 1),
        SyntaxErrorCase("😀", "Syntax Error: Unexpected character: U+1F600.", 1, 1),
        SyntaxErrorCase(".", "Syntax Error: Unexpected character: \".\".", 1, 1),
        SyntaxErrorCase("..", "Syntax Error: Unexpected character: \".\".", 1, 1),
        SyntaxErrorCase(". . .", "Syntax Error: Unexpected character: \".\".", 1, 1),
        SyntaxErrorCase("..a", "Syntax Error: Unexpected character: \".\".", 1, 1),
        SyntaxErrorCase("\u{7F}", "Syntax Error: Unexpected character: U+007F.", 1, 1),
        SyntaxErrorCase("\u{FEFF}?", "Syntax Error: Unexpected character: \"?\".", 1, 2),
        SyntaxErrorCase("a\n  ?", "Syntax Error: Unexpected character: \"?\".", 2, 3),
        SyntaxErrorCase("a\r\n b\r\n  ?", "Syntax Error: Unexpected character: \"?\".", 3, 3),
        SyntaxErrorCase("a\rb\r ?", "Syntax Error: Unexpected character: \"?\".", 3, 2),
        SyntaxErrorCase("\"é😀\" ?", "Syntax Error: Unexpected character: \"?\".", 1, 6),
        SyntaxErrorCase("\"\"\"é😀\n é😀\"\"\" ?", "Syntax Error: Unexpected character: \"?\".", 2, 8),
        SyntaxErrorCase("# é😀\n\té ?", "Syntax Error: Unexpected character: U+00E9.", 2, 2),
        SyntaxErrorCase("\u{A0}", "Syntax Error: Unexpected character: U+00A0.", 1, 1),
        SyntaxErrorCase("\u{2028}", "Syntax Error: Unexpected character: U+2028.", 1, 1),
        SyntaxErrorCase("aé", "Syntax Error: Unexpected character: U+00E9.", 1, 2),
        SyntaxErrorCase("{ a ^ }", "Syntax Error: Unexpected character: \"^\".", 1, 5),
        SyntaxErrorCase("\"\\", "Syntax Error: Invalid character escape sequence: \"\\\".", 1, 2),
        SyntaxErrorCase("\"\\u", "Syntax Error: Invalid Unicode escape sequence: \"\\u\".", 1, 2),
        SyntaxErrorCase("\"\\u12", "Syntax Error: Invalid Unicode escape sequence: \"\\u12\".", 1, 2),
    ]
}

struct ByteErrorCase: Sendable, CustomTestStringConvertible {
    let bytes: [UInt8]
    let message: String
    let line: Int
    let column: Int
    var testDescription: String { bytes.map { String($0, radix: 16) }.joined(separator: " ") }
}

@Suite struct LexerTests {
    @Test(arguments: LexerTable.valid)
    func lexesTokens(_ c: LexCase) throws {
        let source = Source(c.text)
        let tokens = try lexAll(source)
        #expect(tokens.count == c.tokens.count)
        for (token, expected) in zip(tokens, c.tokens) {
            #expect(token.kind == expected.0)
            #expect(token.value == expected.1)
            #expect(source.location(of: token.start) == SourceLocation(line: expected.2, column: expected.3))
        }
    }

    @Test(arguments: LexerTable.errors)
    func reportsErrors(_ c: SyntaxErrorCase) throws {
        let error = try #require(syntaxError { () throws(GraphQLError) in try lexAll(Source(c.text)) })
        #expect(error.message == c.message)
        #expect(error.locations == [SourceLocation(line: c.line, column: c.column)])
    }

    /// graphql-js sees only UTF-16 text; raw bytes that are not UTF-8 are ours to report.
    @Test(arguments: [
        ByteErrorCase(bytes: [0xFF], message: "Syntax Error: Invalid character: 0xFF (invalid UTF-8).", line: 1, column: 1),
        ByteErrorCase(bytes: [0x61, 0x20, 0xC3], message: "Syntax Error: Invalid character: 0xC3 (invalid UTF-8).", line: 1, column: 3),
        ByteErrorCase(bytes: [0xC0, 0x80], message: "Syntax Error: Invalid character: 0xC0 (invalid UTF-8).", line: 1, column: 1),
        ByteErrorCase(bytes: [0xE0, 0x80, 0x80], message: "Syntax Error: Invalid character: 0xE0 (invalid UTF-8).", line: 1, column: 1),
        ByteErrorCase(bytes: [0xED, 0xA0, 0x80], message: "Syntax Error: Invalid character: 0xED (invalid UTF-8).", line: 1, column: 1),
        ByteErrorCase(bytes: [0xF4, 0x90, 0x80, 0x80], message: "Syntax Error: Invalid character: 0xF4 (invalid UTF-8).", line: 1, column: 1),
        ByteErrorCase(bytes: [0x80], message: "Syntax Error: Invalid character: 0x80 (invalid UTF-8).", line: 1, column: 1),
        ByteErrorCase(bytes: Array("\"a".utf8) + [0xFF, 0x22], message: "Syntax Error: Invalid character within String: 0xFF (invalid UTF-8).", line: 1, column: 3),
        ByteErrorCase(bytes: Array("\"é".utf8) + [0xE2, 0x82, 0x22], message: "Syntax Error: Invalid character within String: 0xE2 (invalid UTF-8).", line: 1, column: 3),
        ByteErrorCase(bytes: Array("\"\"\"a\n".utf8) + [0xFE] + Array("\"\"\"".utf8), message: "Syntax Error: Invalid character within String: 0xFE (invalid UTF-8).", line: 2, column: 1),
        ByteErrorCase(bytes: Array("# c ".utf8) + [0xFF] + Array("\na".utf8), message: "Syntax Error: Invalid character: 0xFF (invalid UTF-8).", line: 1, column: 5),
        ByteErrorCase(bytes: Array("\r\n\r\n  ".utf8) + [0xC2], message: "Syntax Error: Invalid character: 0xC2 (invalid UTF-8).", line: 3, column: 3),
    ])
    func reportsInvalidUTF8(_ c: ByteErrorCase) throws {
        let error = try #require(syntaxError { () throws(GraphQLError) in try lexAll(Source(bytes: c.bytes)) })
        #expect(error.message == c.message)
        #expect(error.locations == [SourceLocation(line: c.line, column: c.column)])
    }

    @Test func validUTF8InRawBytesLexes() throws {
        let tokens = try lexAll(Source(bytes: Array("\"é😀\" # ☃\nname".utf8)))
        #expect(tokens.map(\.kind) == [.string, .name])
        #expect(tokens.map(\.value) == ["é😀", "name"])
    }

    @Test func tokenSpansAreByteOffsets() throws {
        let tokens = try lexAll(Source("\u{FEFF}a\"é\" ... \"\"\"x\"\"\" -1.5"))
        #expect(tokens.map { [$0.start, $0.end] } == [[3, 4], [4, 8], [9, 12], [13, 20], [21, 25]])
    }

    /// Names and runs of spaces are read eight bytes at a time: names and indentation of
    /// every length up to a few words, so that each ends at every offset in a word and in
    /// the last bytes of the input, before each kind of byte that can follow a name.
    @Test(arguments: [" ", "\t", "\n", ",", "(", ":", "{", "}", "!", "$", "@", "[", "=", "|", "&", "...", "\"s\"", "#c", ""])
    func namesAndSpacesOfEveryLength(_ next: String) throws {
        let continues = Array("aZ_09zA".utf8)
        for length in 1...20 {
            let name = "n" + String(decoding: (1..<length).map { continues[$0 % continues.count] }, as: UTF8.self)
            for spaces in 0...17 {
                let source = Source(String(repeating: " ", count: spaces) + name + next)
                let first = try #require(try lexAll(source).first)
                #expect(first.kind == .name)
                #expect(first.value == name)
                #expect([first.start, first.end] == [spaces, spaces + length])
            }
        }
    }

    /// A byte of 0x80 or above ends a name, in the bytes read eight at a time as in the rest.
    @Test func nonASCIIEndsAName() throws {
        for length in 1...12 {
            let name = String(repeating: "x", count: length)
            let error = try #require(syntaxError { () throws(GraphQLError) in try lexAll(Source(name + "é" + name)) })
            #expect(error.message == "Syntax Error: Unexpected character: U+00E9.")
            #expect(error.locations == [SourceLocation(line: 1, column: length + 1)])
        }
    }

    @Test func errorDescriptionsNameTokens() throws {
        let tokens = try lexAll(Source("a 1 1.0 \"s\" \"\"\"b\"\"\" { ..."))
        #expect(tokens.map(\.errorDescription) == [
            "Name \"a\"", "Int \"1\"", "Float \"1.0\"", "String \"s\"", "BlockString \"b\"", "\"{\"", "\"...\"",
        ])
    }
}
