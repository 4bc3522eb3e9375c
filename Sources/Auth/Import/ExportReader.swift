import JSON

/// Splits an export into its records without parsing the whole document: JSON lines (one object
/// per line), or one array of objects, at the top or under a key of the top object (Firebase's
/// `{"users": […]}`, Parse's `{"results": […]}`). Each record is then parsed on its own, so a
/// malformed one is reported with the line it starts on and the others are still read.
///
/// The array's elements are found by tracking strings and brackets only; a file whose brackets do
/// not balance ends the reading with ``Failure`` (the records before it were delivered).
public struct ExportReader {
    /// How the file holds its records.
    public enum Layout: Sendable, Equatable {
        /// One JSON object per line; blank lines are skipped.
        case jsonLines
        /// An array, at the top of the file or under `key` of the top object.
        case array(key: String?)
    }

    /// A file that cannot be read as `layout` from some point on.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// One record: its first line and its JSON (or why it is not JSON).
    public enum Element {
        case record(line: Int, json: JSON)
        case malformed(line: Int, reason: String)
    }

    let bytes: UnsafeRawBufferPointer
    /// The line of ``cursor`` (1-based): advanced by ``line(at:)``.
    private var cursor = 0
    private var cursorLine = 1

    /// A reader of `bytes`, which must stay valid while it reads.
    public init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Parse Server's layouts: `{"results": […]}` when the file's first key is `results`, else JSON lines.
    public func parseLayout() -> Layout {
        var index = skipSpace(0)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return .jsonLines }
        index = skipSpace(index + 1)
        guard let (key, _) = readKey(index) else { return .jsonLines }
        return key == "results" ? .array(key: "results") : .jsonLines
    }

    /// Calls `body` with each record of the file in order.
    public mutating func read(_ layout: Layout, _ body: (Element) throws -> Void) throws {
        switch layout {
        case .jsonLines:
            var start = 0
            var line = 1
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                let slice = bytes[start..<end]
                if slice.contains(where: { !Self.isSpace($0) }) { try body(Self.element(line: line, slice)) }
                start = end + 1
                line += 1
            }
        case .array(let key):
            var index = try arrayStart(key: key)
            index = skipSpace(index + 1)
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { return }
            while true {
                let line = line(at: index)
                guard index < bytes.count, let end = valueEnd(index) else {
                    throw Failure(line: line, reason: "the file ends inside a record (unbalanced brackets or quotes)")
                }
                try body(Self.element(line: line, bytes[index..<end]))
                index = skipSpace(end)
                guard index < bytes.count else {
                    throw Failure(line: self.line(at: index), reason: "the file ends before the array's closing bracket")
                }
                if bytes[index] == UInt8(ascii: "]") { return }
                guard bytes[index] == UInt8(ascii: ",") else {
                    throw Failure(line: self.line(at: index), reason: "expected a comma or a closing bracket after a record")
                }
                index = skipSpace(index + 1)
            }
        }
    }

    private static func element(line: Int, _ slice: Slice<UnsafeRawBufferPointer>) -> Element {
        do {
            return .record(line: line, json: try JSON.parse(bytes: slice, maxDepth: 32))
        } catch {
            return .malformed(line: line, reason: "not valid JSON: \(error.message)")
        }
    }

    /// The index of the array's `[`.
    private mutating func arrayStart(key: String?) throws -> Int {
        var index = skipSpace(0)
        guard index < bytes.count else { throw Failure(line: 1, reason: "the file is empty") }
        if bytes[index] == UInt8(ascii: "[") { return index }
        let wanted = key.map { "an object with a \"\($0)\" array" } ?? "an array"
        guard let key, bytes[index] == UInt8(ascii: "{") else {
            throw Failure(line: line(at: index), reason: "expected \(wanted)")
        }
        index = skipSpace(index + 1)
        while index < bytes.count, let (name, afterKey) = readKey(index) {
            index = skipSpace(afterKey)
            if name == key, index < bytes.count, bytes[index] == UInt8(ascii: "[") { return index }
            guard let end = valueEnd(index) else { break }
            index = skipSpace(end)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { break }
            index = skipSpace(index + 1)
        }
        throw Failure(line: line(at: min(index, bytes.count)), reason: "expected \(wanted)")
    }

    /// A key at `index` (a string, then a colon): its text and the index after the colon.
    private func readKey(_ index: Int) -> (String, Int)? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let end = valueEnd(index) else { return nil }
        let colon = skipSpace(end)
        guard colon < bytes.count, bytes[colon] == UInt8(ascii: ":"),
              let key = (try? JSON.parse(bytes: bytes[index..<end]))?.stringValue else { return nil }
        return (key, colon + 1)
    }

    /// The index after the value starting at `index` (a string, object, array or scalar), found
    /// by tracking quotes and brackets; nil when the file ends first.
    private func valueEnd(_ start: Int) -> Int? {
        var index = start
        var depth = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return index + 1 }
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return index }
                    depth -= 1
                    if depth == 0 { return index + 1 }
                case UInt8(ascii: ","):
                    if depth == 0 { return index }
                default:
                    if depth == 0, Self.isSpace(byte) { return index }
                }
            }
            index += 1
        }
        return depth == 0 && !inString && index > start ? index : nil
    }

    private func skipSpace(_ start: Int) -> Int {
        var index = start
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        return index
    }

    /// The line of `index`; indexes asked for only grow.
    private mutating func line(at index: Int) -> Int {
        while cursor < min(index, bytes.count) {
            if bytes[cursor] == UInt8(ascii: "\n") { cursorLine += 1 }
            cursor += 1
        }
        return cursorLine
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }
}
