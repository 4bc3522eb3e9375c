import Testing
import WebAuthn

private func bytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        out.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return out
}

/// The strict CBOR decoder: RFC 8949 Appendix A's examples within WebAuthn's subset, and every
/// refusal (indefinite lengths, tags, floats, other simple values, duplicate keys, trailing
/// bytes, truncation, depth, invalid UTF-8, lengths beyond the input).
struct CBORTests {
    @Test(arguments: [
        ("00", CBOR.unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
        ("1a000f4240", .unsigned(1_000_000)), ("1bffffffffffffffff", .unsigned(UInt64.max)),
        ("20", .int(-1)), ("3903e7", .int(-1000)), ("3bffffffffffffffff", .negative(UInt64.max)),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])), ("60", .text("")), ("6449455446", .text("IETF")),
        ("62c3bc", .text("ü")), ("80", .array([])), ("83010203", .array([.int(1), .int(2), .int(3)])),
        ("a0", .map([])), ("a201020304", .map([CBORPair(.int(1), .int(2)), CBORPair(.int(3), .int(4))])),
        ("a26161016162820203", .map([CBORPair(.text("a"), .int(1)), CBORPair(.text("b"), .array([.int(2), .int(3)]))])),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null),
    ])
    func decodesRFC8949Examples(hex: String, expected: CBOR) throws {
        let item = try CBORDecoder().decode(bytes(hex))
        #expect(item == expected)
        #expect(item.encoded() == bytes(hex))
    }

    @Test func nonShortestLengthsAreReadAndReencodedShortest() throws {
        let item = try CBORDecoder().decode(bytes("1900 05".replacingOccurrences(of: " ", with: "")))
        #expect(item == .unsigned(5))
        #expect(item.encoded() == [0x05])
    }

    @Test(arguments: [
        ("5f42010243030405ff", "indefinite"), ("9fff", "indefinite"), ("bfff", "indefinite"), ("7f6161ff", "indefinite"),
        ("c074", "tags"), ("f90000", "float"), ("fa47c35000", "float"), ("fb3ff199999999999a", "float"),
        ("f7", "simple value"), ("f0", "simple value"), ("f820", "simple value"), ("1c", "reserved"), ("3d", "reserved"),
        ("a201020103", "repeats"), ("a2616101616102", "repeats"), ("0000", "after the item"), ("", "ends inside"),
        ("18", "ends inside"), ("1a0000", "ends inside"), ("4401", "longer than the input"), ("63616263ff", "after the item"),
        ("62c328", "UTF-8"), ("9bffffffffffffffff00", "longer than the input"), ("bbffffffffffffffff0000", "longer than the input"),
        ("5bffffffffffffffff", "longer than the input"), ("820118", "ends inside"), ("830102", "longer than the input"),
    ])
    func refuses(hex: String, reason: String) {
        #expect {
            _ = try CBORDecoder().decode(bytes(hex))
        } throws: { error in
            guard case .malformedCBOR(let detail) = error as? WebAuthnError else { return false }
            return detail.contains(reason)
        }
    }

    @Test func nestingIsLimited() throws {
        let deepest = [UInt8](repeating: 0x81, count: 16) + [0x00]
        #expect(throws: Never.self) { try CBORDecoder().decode(deepest) }
        #expect(throws: WebAuthnError.malformedCBOR("nested deeper than 16")) {
            try CBORDecoder().decode([0x81] + deepest)
        }
        // Far deeper input does not exhaust the stack: refused at the limit.
        #expect(throws: WebAuthnError.malformedCBOR("nested deeper than 16")) {
            try CBORDecoder().decode([UInt8](repeating: 0x81, count: 100_000) + [0x00])
        }
    }

    @Test func decodePrefixReturnsTheEndOfTheItem() throws {
        let (item, end) = try CBORDecoder().decodePrefix([0xff, 0x82, 0x01, 0x02, 0x99], from: 1)
        #expect(item == .array([.int(1), .int(2)]))
        #expect(end == 4)
    }

    @Test func mapLookups() throws {
        let item = try CBORDecoder().decode(bytes("a3016161200263666d74f5"))
        #expect(item[int: 1] == .text("a"))
        #expect(item[int: -1] == .int(2))
        #expect(item[text: "fmt"] == .bool(true))
        #expect(item[int: 2] == nil)
        #expect(CBOR.int(5)[int: 1] == nil)
        #expect(CBOR.negative(UInt64.max).intValue == nil)
    }
}
