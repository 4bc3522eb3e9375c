import Testing

@testable import JSON

/// An input that must fail to parse, with the error it must produce.
struct InvalidJSON: Sendable, CustomTestStringConvertible {
    var bytes: [UInt8]
    var kind: JSONError.Kind
    var offset: Int
    var message: String
    var maxDepth = 128

    init(_ text: String, _ kind: JSONError.Kind, at offset: Int, _ message: String, maxDepth: Int = 128) {
        self.init(bytes: Array(text.utf8), kind, at: offset, message, maxDepth: maxDepth)
    }

    init(bytes: [UInt8], _ kind: JSONError.Kind, at offset: Int, _ message: String, maxDepth: Int = 128) {
        self.bytes = bytes
        self.kind = kind
        self.offset = offset
        self.message = message
        self.maxDepth = maxDepth
    }

    var testDescription: String {
        String(decoding: bytes, as: UTF8.self).debugDescription + " \(bytes.prefix(12))"
    }
}

@Suite struct JSONParserTests {
    static let valid: [(String, JSON)] = [
        ("null", .null),
        ("true", true),
        ("false", false),
        ("0", 0),
        ("1", 1),
        ("-1", -1),
        ("1234567890", 1_234_567_890),
        ("9223372036854775807", .int(.max)),
        ("-9223372036854775808", .int(.min)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808.0)),
        ("-9223372036854775809", .double(-9_223_372_036_854_775_809.0)),
        ("123456789012345678901234567890", .double(1.2345678901234568e29)),
        ("1.5", 1.5),
        ("-1.5", -1.5),
        ("0.0", .double(0)),
        ("0.1", 0.1),
        ("1e308", .double(1e308)),
        ("1E-7", .double(1e-7)),
        ("1e+2", .double(100)),
        ("1E2", .double(100)),
        ("-2.5e-3", -0.0025),
        ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
        ("2.2250738585072014e-308", .double(2.2250738585072014e-308)),
        ("5e-324", .double(.leastNonzeroMagnitude)),
        ("1e-400", .double(0)),
        ("0.30000000000000004", .double(0.30000000000000004)),
        ("\"\"", ""),
        ("\"abc\"", "abc"),
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        (#""\u0041\u00e9\u20AC\uFFFF""#, "Aé€\u{FFFF}"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""\udbff\udfff""#, "\u{10FFFF}"),
        (#""\u0000""#, "\u{0}"),
        (#""a\nb\u0020c""#, "a\nb c"),
        ("\"é€😀\u{10FFFF}\"", "é€😀\u{10FFFF}"),
        ("\"\u{7F}/\"", "\u{7F}/"),
        ("[]", []),
        ("[1,2,3]", [1, 2, 3]),
        (" \t\r\n[ 1 , [ ] , { } , \"x\" ] \n", [1, [], [:], "x"]),
        ("[[[[]]]]", [[[[]]]]),
        ("{}", [:]),
        (#"{"b":1,"a":2}"#, ["b": 1, "a": 2]),
        (#"{"a":{"b":[true,null,{"c":"d"}]}}"#, ["a": ["b": [true, .null, ["c": "d"]]]]),
        (#"{"a":1,"b":2,"a":3}"#, ["a": 3, "b": 2]),
        (#"{"":0}"#, ["": 0]),
        (#"{"é\n":"\u00e9"}"#, ["é\n": "é"]),
    ]

    @Test(arguments: valid)
    func parsesValidJSON(text: String, expected: JSON) throws {
        let value = try JSON.parse(bytes: Array(text.utf8))
        #expect(value == expected)
        #expect(try JSON.parse(text) == expected)
        // Object equality is order-sensitive already; spell the key order out to make it visible.
        #expect(value.objectValue?.keys == expected.objectValue?.keys)
    }

    @Test func negativeZeroIsADoubleWithItsSign() throws {
        let value = try JSON.parse("-0")
        guard case .double(let double) = value else {
            Issue.record("expected .double, got \(value)")
            return
        }
        #expect(double == 0 && double.sign == .minus)
        #expect(try JSON.parse("0") == .int(0))
        #expect(try JSON.parse("-0.0").doubleValue?.sign == .minus)
    }

    @Test func duplicateKeyKeepsLastValueAtFirstPosition() throws {
        // Past 16 keys the parser switches to a hash index: check both regimes.
        for count in [3, 40] {
            var text = "{"
            for index in 0..<count { text += "\"k\(index)\":\(index)," }
            text += "\"k1\":\"last\",\"k0\":\"zero\"}"
            let object = try #require(try JSON.parse(text).objectValue)
            #expect(object.keys == (0..<count).map { "k\($0)" })
            #expect(object["k1"] == "last")
            #expect(object["k0"] == "zero")
            #expect(object["k2"] == 2)
        }
    }

    @Test func parsesNonContiguousCollections() throws {
        let bytes = Array(#"{"a":[1,"x"]}"#.utf8).lazy.map { $0 }
        #expect(try JSON.parse(bytes: bytes) == ["a": [1, "x"]])
    }

    static let invalid: [InvalidJSON] = [
        // Structure
        .init("", .unexpectedEnd, at: 0, "Unexpected end of input at offset 0 (expected a value)"),
        .init("   ", .unexpectedEnd, at: 3, "Unexpected end of input at offset 3 (expected a value)"),
        .init("x", .unexpectedCharacter, at: 0, "Unexpected character 'x' at offset 0 (expected a value)"),
        .init("[1,]", .unexpectedCharacter, at: 3, "Unexpected character ']' at offset 3 (expected a value)"),
        .init("[1 2]", .unexpectedCharacter, at: 3, "Unexpected character '2' at offset 3 (expected ',' or ']')"),
        .init("[1}", .unexpectedCharacter, at: 2, "Unexpected character '}' at offset 2 (expected ',' or ']')"),
        .init(#"{"a" 1}"#, .unexpectedCharacter, at: 5, "Unexpected character '1' at offset 5 (expected ':')"),
        .init(#"{"a":1,}"#, .unexpectedCharacter, at: 7, "Unexpected character '}' at offset 7 (expected a string key)"),
        .init(#"{"a":1]"#, .unexpectedCharacter, at: 6, "Unexpected character ']' at offset 6 (expected ',' or '}')"),
        .init("{a:1}", .unexpectedCharacter, at: 1, "Unexpected character 'a' at offset 1 (expected a string key)"),
        .init("{'a':1}", .unexpectedCharacter, at: 1, "Unexpected character ''' at offset 1 (expected a string key)"),
        .init("[1", .unexpectedEnd, at: 2, "Unexpected end of input at offset 2 (expected ',' or ']')"),
        .init(#"{"a":1"#, .unexpectedEnd, at: 6, "Unexpected end of input at offset 6 (expected ',' or '}')"),
        .init(#"{"a""#, .unexpectedEnd, at: 4, "Unexpected end of input at offset 4 (expected ':')"),
        .init("{", .unexpectedEnd, at: 1, "Unexpected end of input at offset 1 (expected a string key)"),
        .init("tru", .unexpectedEnd, at: 3, "Unexpected end of input at offset 3 (expected 'true')"),
        .init("trux", .unexpectedCharacter, at: 3, "Unexpected character 'x' at offset 3 (expected 'true')"),
        .init("nul", .unexpectedEnd, at: 3, "Unexpected end of input at offset 3 (expected 'null')"),
        .init("True", .unexpectedCharacter, at: 0, "Unexpected character 'T' at offset 0 (expected a value)"),
        .init("NaN", .unexpectedCharacter, at: 0, "Unexpected character 'N' at offset 0 (expected a value)"),
        .init("Infinity", .unexpectedCharacter, at: 0, "Unexpected character 'I' at offset 0 (expected a value)"),
        // Trailing garbage and non-JSON whitespace
        .init("1 2", .unexpectedCharacter, at: 2, "Unexpected character '2' at offset 2 (expected the end of input)"),
        .init("{} x", .unexpectedCharacter, at: 3, "Unexpected character 'x' at offset 3 (expected the end of input)"),
        .init("truefalse", .unexpectedCharacter, at: 4, "Unexpected character 'f' at offset 4 (expected the end of input)"),
        .init("[1]]", .unexpectedCharacter, at: 3, "Unexpected character ']' at offset 3 (expected the end of input)"),
        .init("\u{C}1", .unexpectedCharacter, at: 0, "Unexpected character 'U+000C' at offset 0 (expected a value)"),
        .init("\u{A0}1", .unexpectedCharacter, at: 0, "Unexpected character 'U+00A0' at offset 0 (expected a value)"),
        .init("\u{FEFF}1", .unexpectedCharacter, at: 0, "Unexpected character 'U+FEFF' at offset 0 (expected a value)"),
        .init("1\u{0}", .unexpectedCharacter, at: 1, "Unexpected character 'U+0000' at offset 1 (expected the end of input)"),
        .init("[é]", .unexpectedCharacter, at: 1, "Unexpected character 'é' at offset 1 (expected a value)"),
        // Strings
        .init("\"abc", .unterminatedString, at: 0, "Unterminated string at offset 0"),
        .init("[\"ab", .unterminatedString, at: 1, "Unterminated string at offset 1"),
        .init("\"ab\\", .unterminatedString, at: 0, "Unterminated string at offset 0"),
        .init(#""\x""#, .invalidEscape, at: 1, #"Invalid escape sequence '\x' at offset 1"#),
        .init(#""ab\'""#, .invalidEscape, at: 3, #"Invalid escape sequence '\'' at offset 3"#),
        .init(#""\U0041""#, .invalidEscape, at: 1, #"Invalid escape sequence '\U' at offset 1"#),
        .init(#""\u12G4""#, .invalidUnicodeEscape, at: 1, #"Invalid \u escape at offset 1"#),
        .init(#""\u12""#, .invalidUnicodeEscape, at: 1, #"Invalid \u escape at offset 1"#),
        .init(#""\u12"#, .invalidUnicodeEscape, at: 1, #"Invalid \u escape at offset 1"#),
        .init(#""x\uD800""#, .invalidUnicodeEscape, at: 2, #"Invalid \u escape at offset 2: unpaired surrogate U+D800"#),
        .init(#""\uDC00""#, .invalidUnicodeEscape, at: 1, #"Invalid \u escape at offset 1: unpaired surrogate U+DC00"#),
        .init(#""\uDBFF\u0041""#, .invalidUnicodeEscape, at: 1, #"Invalid \u escape at offset 1: unpaired surrogate U+DBFF"#),
        .init(#""\uD800\uD800""#, .invalidUnicodeEscape, at: 1, #"Invalid \u escape at offset 1: unpaired surrogate U+D800"#),
        .init(#""\uD800x""#, .invalidUnicodeEscape, at: 1, #"Invalid \u escape at offset 1: unpaired surrogate U+D800"#),
        .init(#""\uD800\u12""#, .invalidUnicodeEscape, at: 7, #"Invalid \u escape at offset 7"#),
        .init("\"a\nb\"", .controlCharacter, at: 2, "Unescaped control character U+000A in string at offset 2"),
        .init("\"\t\"", .controlCharacter, at: 1, "Unescaped control character U+0009 in string at offset 1"),
        .init(bytes: [0x22, 0x00, 0x22], .controlCharacter, at: 1, "Unescaped control character U+0000 in string at offset 1"),
        .init(bytes: [0x22, 0x1F, 0x22], .controlCharacter, at: 1, "Unescaped control character U+001F in string at offset 1"),
        // UTF-8 (RFC 3629 §4)
        .init(bytes: [0x22, 0xFF, 0x22], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),
        .init(bytes: [0x22, 0x61, 0x80, 0x22], .invalidUTF8, at: 2, "Invalid UTF-8 at offset 2"),  // stray continuation
        .init(bytes: [0x22, 0xC0, 0xAF, 0x22], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),  // overlong '/'
        .init(bytes: [0x22, 0xC1, 0xBF, 0x22], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),  // overlong
        .init(bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),  // overlong
        .init(bytes: [0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),  // overlong
        .init(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),  // U+D800
        .init(bytes: [0x22, 0xED, 0xBF, 0xBF, 0x22], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),  // U+DFFF
        .init(bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),  // U+110000
        .init(bytes: [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),
        .init(bytes: [0x22, 0xE2, 0x82, 0x22], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),  // truncated €
        .init(bytes: [0x22, 0x61, 0xC3], .invalidUTF8, at: 2, "Invalid UTF-8 at offset 2"),  // truncated at end
        .init(bytes: [0x22, 0xF0, 0x9F, 0x98], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),
        .init(bytes: [0x5B, 0xFF, 0x5D], .invalidUTF8, at: 1, "Invalid UTF-8 at offset 1"),  // outside a string
        .init(bytes: [0x31, 0x20, 0xC3], .invalidUTF8, at: 2, "Invalid UTF-8 at offset 2"),
        // Numbers (RFC 8259 §6)
        .init("01", .invalidNumber, at: 0, "Invalid number at offset 0: leading zeros are not allowed"),
        .init("[-012]", .invalidNumber, at: 1, "Invalid number at offset 1: leading zeros are not allowed"),
        .init("00.5", .invalidNumber, at: 0, "Invalid number at offset 0: leading zeros are not allowed"),
        .init("+1", .unexpectedCharacter, at: 0, "Unexpected character '+' at offset 0 (expected a value)"),
        .init(".5", .unexpectedCharacter, at: 0, "Unexpected character '.' at offset 0 (expected a value)"),
        .init("1.", .invalidNumber, at: 0, "Invalid number at offset 0: expected a digit after '.'"),
        .init("1.e5", .invalidNumber, at: 0, "Invalid number at offset 0: expected a digit after '.'"),
        .init("1e", .invalidNumber, at: 0, "Invalid number at offset 0: expected a digit in the exponent"),
        .init("[1E+]", .invalidNumber, at: 1, "Invalid number at offset 1: expected a digit in the exponent"),
        .init("1e-x", .invalidNumber, at: 0, "Invalid number at offset 0: expected a digit in the exponent"),
        .init("-", .invalidNumber, at: 0, "Invalid number at offset 0: expected a digit after '-'"),
        .init("[1,-]", .invalidNumber, at: 3, "Invalid number at offset 3: expected a digit after '-'"),
        .init("-Infinity", .invalidNumber, at: 0, "Invalid number at offset 0: expected a digit after '-'"),
        .init("0x10", .unexpectedCharacter, at: 1, "Unexpected character 'x' at offset 1 (expected the end of input)"),
        .init("1.5.2", .unexpectedCharacter, at: 3, "Unexpected character '.' at offset 3 (expected the end of input)"),
        .init("1e400", .numberOutOfRange, at: 0, "Number out of range at offset 0"),
        .init("[0,-1.8e308]", .numberOutOfRange, at: 3, "Number out of range at offset 3"),
        .init("1" + String(repeating: "0", count: 400), .numberOutOfRange, at: 0, "Number out of range at offset 0"),
        // Depth
        .init("[[[]]]", .tooDeep, at: 2, "JSON nested deeper than 2 levels at offset 2", maxDepth: 2),
        .init(#"{"a":{"b":{}}}"#, .tooDeep, at: 10, "JSON nested deeper than 2 levels at offset 10", maxDepth: 2),
    ]

    @Test(arguments: invalid)
    func rejectsInvalidJSON(_ input: InvalidJSON) {
        #expect(throws: JSONError(input.kind, at: input.offset, input.message)) {
            try JSON.parse(bytes: input.bytes, maxDepth: input.maxDepth)
        }
    }

    /// `parseObjectMembers` agrees with `parse` on every input here, bare and as a member's
    /// value: the same error, false for a non-object, and members that rebuild the object.
    @Test func objectMembersAgreeWithParse() throws {
        var inputs: [(bytes: [UInt8], maxDepth: Int)] = Self.valid.map { (Array($0.0.utf8), 128) }
        inputs += Self.invalid.map { ($0.bytes, $0.maxDepth) }
        inputs += inputs.map { (Array(#"{"x":1, "v": "#.utf8) + $0.bytes + Array("}".utf8), $0.maxDepth) }
        inputs += [#"{"a":{}}"#, #" { } "#, #"{"a":1,"a":{"b":2},"c":[3]}"#].map { (Array($0.utf8), 1) }
        inputs.append((Array("{}".utf8), 0))
        for (bytes, maxDepth) in inputs {
            let parser = JSONParser(maxDepth: maxDepth)
            let expected = Result { () throws(JSONError) in try parser.parse(bytes) }
            var members = JSONObject()
            let got = Result { () throws(JSONError) in try parser.parseObjectMembers(bytes) { members[$0] = $1 } }
            let text = String(decoding: bytes, as: UTF8.self)
            switch (expected, got) {
            case (.failure(let error), .failure(let other)): #expect(error == other, "\(text)")
            case (.success(.object(let object)), .success(true)): #expect(members == object, "\(text)")
            case (.success(let value), .success(false)):
                #expect(value.objectValue == nil && members.isEmpty, "\(text)")
            default: Issue.record("\(text): parse gave \(expected), parseObjectMembers \(got)")
            }
        }
    }

    /// Strings are scanned eight bytes at a time while they hold plain ASCII: whatever ends
    /// such a run (a quote, an escape, a control character, non-ASCII, valid or not) is found at
    /// every position of strings longer than a word, with the right value or error offset.
    @Test func stringsAreScannedAWordAtATime() throws {
        for length in 1...20 {
            for position in 0..<length {
                let before = Array(repeating: UInt8(ascii: "a"), count: position)
                let after = Array(repeating: UInt8(ascii: "b"), count: length - position - 1)
                func parse(_ middle: [UInt8]) -> Result<JSON, JSONError> {
                    Result { () throws(JSONError) in try JSON.parse(bytes: [0x22] + before + middle + after + [0x22]) }
                }
                func text(_ middle: String) -> JSON {
                    .string(String(decoding: before, as: UTF8.self) + middle + String(decoding: after, as: UTF8.self))
                }
                let offset = 1 + position
                #expect(try parse(Array(#"\""#.utf8)).get() == text("\""))
                #expect(try parse(Array(#"\n"#.utf8)).get() == text("\n"))
                #expect(try parse(Array("é€\u{7F} ~".utf8)).get() == text("é€\u{7F} ~"))
                #expect(parse([0x0A]) == .failure(JSONError(
                    .controlCharacter, at: offset, "Unescaped control character U+000A in string at offset \(offset)")))
                #expect(parse([0xFF]) == .failure(JSONError(.invalidUTF8, at: offset, "Invalid UTF-8 at offset \(offset)")))
                // A quote ends the string there: what follows is trailing garbage.
                #expect((try? parse([0x22]).get()) == nil)
            }
        }
    }

    @Test func depthLimitIsInclusive() throws {
        let deepest = String(repeating: "[", count: 128) + String(repeating: "]", count: 128)
        #expect(try JSON.parse(deepest).arrayValue?.count == 1)
        #expect(try JSON.parse("1", maxDepth: 0) == 1)
        #expect(throws: JSONError(.tooDeep, at: 128, "JSON nested deeper than 128 levels at offset 128")) {
            try JSON.parse("[" + deepest + "]")
        }
    }

    @Test func maxLengthIsEnforced() throws {
        #expect(try JSON.parse("[1,2]", maxLength: 5) == [1, 2])
        #expect(throws: JSONError(.tooLong, at: 4, "JSON input of 5 bytes is longer than the limit of 4 bytes")) {
            try JSON.parse(bytes: Array("[1,2]".utf8), maxLength: 4)
        }
        #expect(throws: JSONError(.tooLong, at: 4, "JSON input of 5 bytes is longer than the limit of 4 bytes")) {
            try JSON.parse("[1,2]", maxLength: 4)
        }
    }

    @Test func errorDescriptionIsTheMessage() {
        let error = JSONError(.unterminatedString, at: 3, "Unterminated string at offset 3")
        #expect("\(error)" == "Unterminated string at offset 3")
    }
}
