import Testing

@testable import JSON

/// Inputs meant to crash, hang or exhaust a parser: each must give a value or a `JSONError`.
@Suite struct JSONHostileInputTests {
    @Test(arguments: ["[", "{\"a\":", "[{\"a\":"])
    func deepNestingIsAnErrorNotACrash(opening: String) {
        let text = String(repeating: opening, count: 100_000)
        #expect(throws: JSONError.self) { try JSON.parse(text) }
        do {
            _ = try JSON.parse(text)
        } catch {
            #expect(error.kind == .tooDeep)
            #expect(error.message.hasPrefix("JSON nested deeper than 128 levels"))
        }
    }

    @Test func deepNestingWithoutALimitDoesNotUseTheCallStack() {
        // The parser keeps its own stack, so even an unlimited depth cannot overflow the call stack.
        let text = String(repeating: "[", count: 100_000)
        #expect(throws: JSONError(.unexpectedEnd, at: 100_000, "Unexpected end of input at offset 100000 (expected a value)")) {
            try JSON.parse(text, maxDepth: .max)
        }
    }

    @Test func tenMegabyteStringParses() throws {
        let count = 10 * 1024 * 1024
        var bytes: [UInt8] = [0x22]
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "a"), count: count))
        bytes.append(0x22)
        let value = try JSON.parse(bytes: bytes)
        #expect(value.stringValue?.utf8.count == count)

        // With escapes throughout (the slow path) and multi-byte UTF-8.
        let chunk = #"abc\n\u00e9\uD83D\uDE00é"#
        let escaped = "\"" + String(repeating: chunk, count: count / chunk.utf8.count) + "\""
        let decoded = try #require(try JSON.parse(escaped).stringValue)
        #expect(decoded.unicodeScalars.count == (count / chunk.utf8.count) * 7)
        #expect(decoded.hasPrefix("abc\né😀éabc"))
    }

    @Test func hugeNumbers() throws {
        let million = String(repeating: "7", count: 1_000_000)
        #expect(try JSON.parse(million + "e-999990").doubleValue == 7.777777777777778e9)
        #expect(try JSON.parse("-" + million + "e-999990").doubleValue == -7.777777777777778e9)
        #expect(try JSON.parse("0." + String(repeating: "0", count: 1_000_000) + "1") == .double(0))
        #expect(try JSON.parse("1e-99999999999999999999999") == .double(0))
        #expect(throws: JSONError(.numberOutOfRange, at: 0, "Number out of range at offset 0")) {
            try JSON.parse(million)
        }
        #expect(throws: JSONError(.numberOutOfRange, at: 1, "Number out of range at offset 1")) {
            try JSON.parse("[1e99999999999999999999999]")
        }
    }

    @Test func wideContainers() throws {
        let array = "[" + Array(repeating: "0", count: 200_000).joined(separator: ",") + "]"
        #expect(try JSON.parse(array).arrayValue?.count == 200_000)

        // Many keys, every one repeated: the duplicate check must stay linear (hash index).
        let keys = (0..<50_000).map { "\"key\($0)\":\($0)" }.joined(separator: ",")
        let object = try #require(try JSON.parse("{" + keys + "," + keys + ",\"key7\":true}").objectValue)
        #expect(object.count == 50_000)
        #expect(object.keys.first == "key0" && object.keys.last == "key49999")
        #expect(object["key7"] == true)
        #expect(object["key49999"] == 49_999)
    }
}
