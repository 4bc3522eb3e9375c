import Testing

@testable import JSON

@Suite struct JSONWriterTests {
    static let scalars: [(JSON, String)] = [
        (.null, "null"),
        (true, "true"),
        (false, "false"),
        (0, "0"),
        (7, "7"),
        (-42, "-42"),
        (1_234_567_890, "1234567890"),
        (.int(.max), "9223372036854775807"),
        (.int(.min), "-9223372036854775808"),
    ]

    static let doubles: [(Double, String)] = [
        (0.1, "0.1"),
        (1.5, "1.5"),
        (-1.5, "-1.5"),
        (0.30000000000000004, "0.30000000000000004"),
        (123456789.125, "123456789.125"),
        (1.0, "1"),
        (-2.0, "-2"),
        (100.0, "100"),
        (0.0, "0"),
        (-0.0, "-0"),
        (1e16, "10000000000000000"),
        (1e20, "100000000000000000000"),
        (1.23e20, "123000000000000000000"),
        (1e21, "1e+21"),
        (1.5e21, "1.5e+21"),
        (2e22, "2e+22"),
        (1e300, "1e+300"),
        (-1.5e300, "-1.5e+300"),
        (.greatestFiniteMagnitude, "1.7976931348623157e+308"),
        (0.001, "0.001"),
        (0.000125, "0.000125"),
        (1e-6, "0.000001"),
        (1.5e-6, "0.0000015"),
        (1e-7, "1e-7"),
        (1.2345e-10, "1.2345e-10"),
        (.leastNonzeroMagnitude, "5e-324"),
        (.leastNormalMagnitude, "2.2250738585072014e-308"),
        (.nan, "null"),
        (.infinity, "null"),
        (-.infinity, "null"),
    ]

    static let strings: [(String, String)] = [
        ("", #""""#),
        ("plain ascii", #""plain ascii""#),
        ("a\"b", #""a\"b""#),
        ("back\\slash", #""back\\slash""#),
        ("/", #""/""#),
        ("\u{8}\u{C}\n\r\t", #""\b\f\n\r\t""#),
        ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("é€😀\u{10FFFF}", "\"é€😀\u{10FFFF}\""),
        ("\u{2028}\u{2029}", #""\u2028\u2029""#),
        ("a\u{2028}b€\u{2029}", #""a\u2028b€\u2029""#),
        ("€\u{2027}\u{202A}", "\"€\u{2027}\u{202A}\""),
        ("tail\n", #""tail\n""#),
    ]

    @Test(arguments: scalars)
    func writesScalars(value: JSON, expected: String) {
        #expect(value.serializedString() == expected)
    }

    @Test(arguments: doubles)
    func writesDoublesLikeJavaScript(value: Double, expected: String) throws {
        let text = JSON.double(value).serializedString()
        #expect(text == expected)
        // Every finite output parses back to the same number.
        if value.isFinite {
            let parsed = try #require(try JSON.parse(text).doubleValue)
            #expect(parsed == value && parsed.sign == value.sign)
        }
    }

    @Test(arguments: strings)
    func escapesStrings(value: String, expected: String) throws {
        #expect(JSON.string(value).serializedString() == expected)
        #expect(try JSON.parse(expected) == .string(value))
    }

    @Test func writesContainersCompactlyInInsertionOrder() {
        var object = JSONObject()
        object["z"] = 1
        object["a"] = [true, .null, 1.5, "x"]
        object["m"] = [:]
        object["k\"ey"] = []
        object["z"] = "replaced in place"
        #expect(JSON.object(object).serializedString()
            == #"{"z":"replaced in place","a":[true,null,1.5,"x"],"m":{},"k\"ey":[]}"#)
        #expect(JSON.array([[], [[]], [:]]).serializedString() == "[[],[[]],{}]")
    }

    @Test func writeAppendsToExistingBytes() {
        var output = Array("prefix:".utf8)
        JSON.array([1, "é"]).write(to: &output)
        JSONWriter.writeString("\n", to: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"prefix:[1,"é"]"\n""#)
        #expect(JSON.array([1]).serialized() == Array("[1]".utf8))
        #expect(JSON.object(["a": .null]).description == #"{"a":null}"#)
    }

    /// Strings are scanned eight bytes at a time: every character that needs escaping (and the
    /// lead byte of U+2028 in text that does not), at every position of strings longer than a
    /// word, is found, and comes out as the byte-by-byte form writes it.
    @Test func escapesAtEveryPositionOfLongStrings() throws {
        let special: [(String, String)] = [
            ("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#), ("\u{1}", #"\u0001"#), ("\u{1F}", #"\u001f"#),
            ("\u{2028}", #"\u2028"#), ("\u{2029}", #"\u2029"#), ("€", "€"), ("\u{7F}", "\u{7F}"), (" ", " "),
        ]
        for length in 1...20 {
            for position in 0..<length {
                for (character, escaped) in special {
                    let before = String(repeating: "a", count: position), after = String(repeating: "b", count: length - position - 1)
                    let text = before + character + after
                    #expect(JSON.string(text).serializedString() == "\"" + before + escaped + after + "\"")
                    #expect(try JSON.parse(JSON.string(text).serializedString()) == .string(text))
                }
            }
        }
    }

    /// The writer stages bytes in 1,024 bytes of stack memory on their way to the array: values
    /// that fill it many times, with strings and escapes across its end and strings larger than
    /// it, come out whole and in order after what the array held.
    @Test func writesValuesLargerThanItsStagingMemory() throws {
        var items: [JSON] = []
        var expected = "prefix:["
        for length in stride(from: 0, to: 2_600, by: 37) {
            let text = String(repeating: "x", count: length) + (length % 2 == 0 ? "\n" : "é")
            if !items.isEmpty { expected += "," }
            items.append(.string(text))
            expected += "\"" + String(repeating: "x", count: length) + (length % 2 == 0 ? #"\n"# : "é") + "\""
            items.append(.object(["k\(length)": .int(length), "d": .double(0.5)]))
            expected += #",{"k\#(length)":\#(length),"d":0.5}"#
        }
        expected += "]"
        var output = Array("prefix:".utf8)
        JSONWriter.write(.array(items), to: &output)
        #expect(String(decoding: output, as: UTF8.self) == expected)
        #expect(try JSON.parse(bytes: output.dropFirst(7)) == .array(items))
    }

    @Test func writesStringsBuiltFromSlices() {
        // Escapes at both ends of the copied runs.
        let text = "xx\"é\u{2028}yy"
        let sliced = String(text.dropFirst().dropLast())
        #expect(JSON.string(sliced).serializedString() == #""x\"é\u2028y""#)
    }
}
