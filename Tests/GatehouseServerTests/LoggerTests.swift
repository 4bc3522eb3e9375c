import Foundation
@testable import GatehouseServer
import JSON
import Synchronization
import Testing
import TestSupport

/// The request line written field by field reads as the same line built from a JSONObject.
@Suite struct LoggerTests {
    /// The line without its `time` field (the only one that differs between two calls).
    static func withoutTime(_ line: String) -> String {
        line.replacing(/"time":"[^"]*",/, with: "")
    }

    @Test(arguments: [0, 1, 10, 120, 999, 1000, 1001, 1500, 123_456, 5_000_000, -3])
    func requestLineMatchesTheGeneralForm(microseconds: Int) throws {
        let lines = LogCapture()
        let logger = Logger(level: .info, write: { lines.append(String(decoding: $0, as: UTF8.self)) }, hurry: {}, flush: {})
        for operation in [nil, "Viewer \"quoted\""] as [String?] {
            logger.request(
                method: "POST", path: "/graph\u{1}ql", status: 200, microseconds: microseconds, client: "127.0.0.1",
                operation: operation)
            var fields: JSONObject = [
                "method": "POST", "path": "/graph\u{1}ql", "status": .int(200),
                "duration_ms": .double(Double(max(0, microseconds)) / 1000), "client": "127.0.0.1",
            ]
            if let operation { fields["operation"] = .string(operation) }
            logger.info("request", fields)
        }
        let written = lines.lines
        #expect(written.count == 4)
        #expect(Self.withoutTime(written[0]) == Self.withoutTime(written[1]))
        #expect(Self.withoutTime(written[2]) == Self.withoutTime(written[3]))
        #expect(written.allSatisfy { $0.hasSuffix("}\n") })
    }

    /// Strings that need escaping (some only in part: U+2028, U+2029 and other 0xE2 sequences),
    /// non-ASCII, empty, and long enough that the line is built on the heap.
    @Test(arguments: [
        "", "plain", "quote \" backslash \\ tab \t nul \u{0}", "line\u{2028}para\u{2029}", "\u{2026}\u{20AC}é",
        String(repeating: "\u{1}", count: 5000), String(repeating: "x", count: 100_000),
    ])
    func requestLineEscapesAsTheGeneralFormDoes(text: String) throws {
        let lines = LogCapture()
        let logger = Logger(level: .info, write: { lines.append(String(decoding: $0, as: UTF8.self)) }, hurry: {}, flush: {})
        logger.request(method: text, path: text, status: 404, microseconds: 12_345, client: text, operation: text)
        logger.info(
            "request",
            [
                "method": .string(text), "path": .string(text), "status": .int(404), "duration_ms": .double(12.345),
                "client": .string(text), "operation": .string(text),
            ])
        let written = lines.lines
        #expect(written.count == 2)
        #expect(Self.withoutTime(written[0]) == Self.withoutTime(written[1]))
        let parsed = try JSONParser(maxDepth: 4).parse(Array(written[0].utf8))
        #expect(parsed["path"] == .string(text))
    }

    /// A line longer than the memory it starts in moves to the heap and keeps every byte
    /// (a writer that stopped at the end of its memory would lose or overrun them).
    @Test(arguments: [1, 7, 64])
    func lineOutgrowsItsMemory(capacity: Int) throws {
        let long = String(repeating: "\u{1}é\u{2028}", count: 300)
        var expected: [UInt8] = Array(#"{"a":"#.utf8)
        JSONWriter.writeString(long, to: &expected)
        expected += Array(#","n":-9223372036854775808,"t":""#.utf8)
        let bytes = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { memory in
            var line = LineWriter(memory)
            defer { line.release() }
            line.append(#"{"a":"#)
            line.appendString(long)
            line.append(#","n":"#)
            line.appendInt(.min)
            line.append(#","t":""#)
            line.appendTimestamp()
            return Array(line.written)
        }
        #expect(bytes.count == expected.count + ISO8601.fixedLength)
        #expect(Array(bytes.prefix(expected.count)) == expected)
    }

    @Test func timeIsNowInUTC() throws {
        let lines = LogCapture()
        Logger(level: .info, write: { lines.append(String(decoding: $0, as: UTF8.self)) }, hurry: {}, flush: {})
            .request(method: "GET", path: "/", status: 200, microseconds: 5, client: "", operation: nil)
        let line = try #require(lines.lines.first)
        let text = try #require(try JSONParser().parse(Array(line.utf8))["time"]?.stringValue)
        #expect(text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(text)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(formatter.date(from: text))
        #expect(abs(date.timeIntervalSinceNow) < 5)
    }

    @Test func requestLineIsNotWrittenBelowInfo() {
        let lines = LogCapture()
        Logger(level: .warn, write: { lines.append(String(decoding: $0, as: UTF8.self)) }, hurry: {}, flush: {})
            .request(method: "GET", path: "/", status: 200, microseconds: 5, client: "", operation: nil)
        #expect(lines.lines.isEmpty)
    }
}
