import TestSupport
import Testing

@testable import JSON

/// Random JSON values that exercise escapes, Unicode, number edges and nesting.
struct JSONGenerator {
    var random: SplitMix64

    mutating func value(depth: Int = 0) -> JSON {
        switch Int.random(in: 0..<(depth < 5 ? 9 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .int(integer())
        case 3: return .double(double())
        case 4, 5: return .string(string())
        case 6, 7:
            return .array((0..<Int.random(in: 0...6, using: &random)).map { _ in value(depth: depth + 1) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...6, using: &random) { object[string()] = value(depth: depth + 1) }
            return .object(object)
        }
    }

    mutating func integer() -> Int {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: [0, 1, -1, .max, .min, .max - 1, .min + 1].randomElement(using: &random)!
        case 1: Int.random(in: -1000...1000, using: &random)
        default: Int(bitPattern: UInt(random.next()))
        }
    }

    mutating func double() -> Double {
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            return [0.0, -0.0, 0.1, 1e21, 1e-7, 1e-6, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.leastNormalMagnitude,
             9_223_372_036_854_775_808.0, 1e20, 0.5]
                .randomElement(using: &random)!
        case 1: return Double(Int.random(in: -100_000...100_000, using: &random)) / 64
        case 2: return Double.random(in: -1...1, using: &random)
        default:
            // Any finite bit pattern: every exponent, subnormals included.
            while true {
                let double = Double(bitPattern: random.next())
                if double.isFinite { return double }
            }
        }
    }

    mutating func string() -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &random) {
            let value: UInt32 =
                switch Int.random(in: 0..<6, using: &random) {
                case 0: UInt32.random(in: 0..<0x20, using: &random)
                case 1: [0x22, 0x5C, 0x2F, 0x7F, 0x2028, 0x2029, 0xFEFF, 0xFFFF].randomElement(using: &random)!
                case 2: UInt32.random(in: 0x80...0xD7FF, using: &random)
                case 3: UInt32.random(in: 0x10000...0x10FFFF, using: &random)
                default: UInt32.random(in: 0x20..<0x7F, using: &random)
                }
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }
}

@Suite struct JSONRoundTripTests {
    /// Documents in the writer's canonical form: parse then write gives the same bytes back.
    static let canonical: [String] = [
        "null", "true", "[]", "{}", "0", "-1", "9223372036854775807", "-9223372036854775808",
        "9223372036854776000", "1e+21", "1.5", "-0", "1e-7", "0.000001", "5e-324",
        #""""#, #""a\"b\\c\n\u0000\u001f\u2028""#, "\"é€😀\"",
        #"[1,"two",3.5,true,false,null,[],{}]"#,
        #"{"z":1,"a":{"y":[1,{"x":null}],"b":"c"},"":""}"#,
        #"[[[[[[[[[["deep"]]]]]]]]]]"#,
    ]

    @Test(arguments: canonical)
    func parseThenWriteIsIdentity(text: String) throws {
        #expect(try JSON.parse(text).serializedString() == text)
    }

    /// Non-canonical spellings and what the writer makes of them.
    static let normalizing: [(String, String)] = [
        (" [ 1 , 2 ] ", "[1,2]"),
        ("1E2", "100"),
        ("1.0", "1"),
        ("-0.0", "-0"),
        ("1e21", "1e+21"),
        ("0.1e1", "1"),
        (#""\/\u0041\u00E9""#, #""/Aé""#),
        (#""\uD83D\uDE00""#, "\"😀\""),
        (#"{"a":1,"b":2,"a":3}"#, #"{"a":3,"b":2}"#),
        ("9223372036854775808", "9223372036854776000"),
    ]

    @Test(arguments: normalizing)
    func parseThenWriteNormalizes(text: String, expected: String) throws {
        #expect(try JSON.parse(text).serializedString() == expected)
    }

    @Test func randomValuesRoundTrip() throws {
        var generator = JSONGenerator(random: SplitMix64(seed: 0x6A73_6F6E))
        for iteration in 0..<3000 {
            let value = generator.value()
            let bytes = value.serialized()
            let parsed = try JSON.parse(bytes: bytes)
            let matches = matchesAfterRoundTrip(parsed, value)
            #expect(matches, "iteration \(iteration): \(String(decoding: bytes, as: UTF8.self))")
            #expect(parsed.serialized() == bytes, "iteration \(iteration): writing is not stable")
            if !matches { break }
        }
    }

    @Test func randomDoublesRoundTripExactly() throws {
        var generator = JSONGenerator(random: SplitMix64(seed: 42))
        for _ in 0..<5000 {
            let double = generator.double()
            let text = JSON.double(double).serializedString()
            let parsed = try #require(try JSON.parse(text).doubleValue, "\(text)")
            #expect(parsed == double && parsed.sign == double.sign, "\(double) was written as \(text)")
        }
    }
}
