/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// - One top-level value of any type, with only space, tab, CR and LF around it.
/// - Objects keep their keys in document order. A duplicate key keeps the **last** value at the
///   position of the **first** occurrence (`{"a":1,"b":2,"a":3}` is `{"a":3,"b":2}`).
/// - Strings must be well-formed UTF-8 with no raw control characters; every escape is supported,
///   and `\uXXXX` surrogate escapes must come in high/low pairs.
/// - Numbers follow the JSON grammar exactly. An integer literal that fits in `Int` becomes `.int`;
///   other integers, decimals and exponents become `.double` (correctly rounded). `-0` becomes
///   `.double(-0.0)`, since `Int` has no negative zero. A number whose magnitude overflows `Double`
///   is an error; one that underflows becomes zero.
///
/// The parser is iterative (no recursion), so hostile nesting cannot overflow the stack, and runs
/// in time linear in the input.
public struct JSONParser: Sendable {
    /// The deepest nesting of arrays and objects accepted; `[]` has depth 1.
    public var maxDepth: Int
    /// The longest input accepted, in bytes, or `nil` for no limit.
    public var maxLength: Int?

    /// Creates a parser with the given limits.
    public init(maxDepth: Int = 128, maxLength: Int? = nil) {
        self.maxDepth = maxDepth
        self.maxLength = maxLength
    }

    /// Parses one JSON document from UTF-8 `bytes`.
    @inlinable
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSON {
        // Inlinable so that the caller's collection is read directly, not through its
        // protocol witnesses; the reading itself is not generic.
        let result: Result<JSON, JSONError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONError) in try parseContiguous(buffer) }
        }
        if let result { return try result.get() }
        return try Array(bytes).withUnsafeBufferPointer { buffer in
            Result { () throws(JSONError) in try parseContiguous(buffer) }
        }.get()
    }

    @usableFromInline
    func parseContiguous(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSON {
        if let maxLength, buffer.count > maxLength {
            throw JSONError(
                .tooLong, at: maxLength,
                "JSON input of \(buffer.count) bytes is longer than the limit of \(maxLength) bytes")
        }
        var reader = JSONReader(buffer, maxDepth: maxDepth)
        return try reader.parseDocument()
    }

    /// Parses one JSON document from UTF-8 `bytes` that should be an object, handing each
    /// member to `member` in document order, without building the object (a duplicate key
    /// is handed again, so the last value is the one to keep, as ``parse(_:)`` keeps it).
    /// Returns false, having handed nothing, when the document is valid JSON but not an object.
    public func parseObjectMembers(_ bytes: [UInt8], _ member: (String, JSON) -> Void) throws(JSONError) -> Bool {
        if let maxLength, bytes.count > maxLength {
            throw JSONError(
                .tooLong, at: maxLength,
                "JSON input of \(bytes.count) bytes is longer than the limit of \(maxLength) bytes")
        }
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONError) -> Bool in
                var reader = JSONReader(buffer, maxDepth: maxDepth)
                if try reader.parseObjectMembers(member) != nil { return true }
                reader.position = 0
                _ = try reader.parseDocument()
                return false
            }
        }
        return try result.get()
    }

    /// Parses one JSON document from the UTF-8 of `text`.
    public func parse(_ text: String) throws(JSONError) -> JSON {
        var text = text
        return try text.withUTF8 { buffer in
            Result { () throws(JSONError) in try parseContiguous(buffer) }
        }.get()
    }
}

extension JSON {
    /// Parses one JSON document from UTF-8 `bytes`; see ``JSONParser`` for the exact rules.
    @inlinable
    public static func parse(
        bytes: some Collection<UInt8>, maxDepth: Int = 128, maxLength: Int? = nil
    ) throws(JSONError) -> JSON {
        try JSONParser(maxDepth: maxDepth, maxLength: maxLength).parse(bytes)
    }

    /// Parses one JSON document from the UTF-8 of `text`; see ``JSONParser`` for the exact rules.
    public static func parse(
        _ text: String, maxDepth: Int = 128, maxLength: Int? = nil
    ) throws(JSONError) -> JSON {
        try JSONParser(maxDepth: maxDepth, maxLength: maxLength).parse(text)
    }
}

// MARK: - Reader

private enum ASCII {
    static let quote: UInt8 = 0x22, backslash: UInt8 = 0x5C, slash: UInt8 = 0x2F
    static let comma: UInt8 = 0x2C, colon: UInt8 = 0x3A, minus: UInt8 = 0x2D, plus: UInt8 = 0x2B
    static let dot: UInt8 = 0x2E, zero: UInt8 = 0x30, nine: UInt8 = 0x39
    static let openBracket: UInt8 = 0x5B, closeBracket: UInt8 = 0x5D
    static let openBrace: UInt8 = 0x7B, closeBrace: UInt8 = 0x7D
    static let space: UInt8 = 0x20, tab: UInt8 = 0x09, lf: UInt8 = 0x0A, cr: UInt8 = 0x0D
}

/// One open array or object on the reader's explicit stack.
private struct Container {
    var isObject: Bool
    var keys: [String] = []
    var values: [JSON] = []
    /// Key → position, built only once an object is large enough for linear search to hurt.
    var index: [String: Int]? = nil
    /// The key whose value is being parsed (objects only).
    var pendingKey: String = ""

    /// An open container with room for a few members, so that small ones (most, such as an
    /// ACL's flags) are allocated once rather than grown.
    init(isObject: Bool) {
        self.isObject = isObject
        values.reserveCapacity(4)
        if isObject { keys.reserveCapacity(4) }
    }
}

/// The parsing state over one contiguous buffer.
private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var position = 0
    /// Reused by every string that contains escapes.
    var scratch: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    // MARK: Structure

    mutating func parseDocument() throws(JSONError) -> JSON {
        let value = try parseValue(depth: 0)
        try expectEnd()
        return value
    }

    /// The members of the object that is the whole document, handed to `member` in document
    /// order (a duplicate key again); or nil, with nothing handed, if the document is not an
    /// object (then ``parseDocument()`` says whether it is JSON at all).
    mutating func parseObjectMembers(_ member: (String, JSON) -> Void) throws(JSONError) -> Void? {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == ASCII.openBrace else { return nil }
        guard maxDepth >= 1 else { throw tooDeep() }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == ASCII.closeBrace {
            position += 1
        } else {
            while true {
                let key = try parseKey()
                member(key, try parseValue(depth: 1))
                skipWhitespace()
                guard position < bytes.count else { throw unexpectedEnd(expecting: "',' or '}'") }
                if bytes[position] == ASCII.closeBrace {
                    position += 1
                    break
                }
                guard bytes[position] == ASCII.comma else { throw unexpectedCharacter(expecting: "',' or '}'") }
                position += 1
            }
        }
        try expectEnd()
        return ()
    }

    /// Nothing but whitespace is left.
    private mutating func expectEnd() throws(JSONError) {
        skipWhitespace()
        if position < bytes.count { throw unexpectedCharacter(expecting: "the end of input") }
    }

    /// One value, inside `depth` containers; leaves the position after it.
    private mutating func parseValue(depth: Int) throws(JSONError) -> JSON {
        // The innermost open container, and those around it (outermost first): a document
        // nested one level deep, as most are, needs no stack storage.
        var current: Container? = nil
        var outer: [Container] = []
        var value: JSON
        parsing: while true {
            // At the start of a value.
            skipWhitespace()
            guard position < bytes.count else { throw unexpectedEnd(expecting: "a value") }
            let byte = bytes[position]
            switch byte {
            case ASCII.openBracket, ASCII.openBrace:
                if depth + outer.count + (current == nil ? 0 : 1) >= maxDepth { throw tooDeep() }
                let isObject = byte == ASCII.openBrace
                position += 1
                skipWhitespace()
                let close = isObject ? ASCII.closeBrace : ASCII.closeBracket
                if position < bytes.count, bytes[position] == close {
                    position += 1
                    value = isObject ? .object(JSONObject()) : .array([])
                } else {
                    var container = Container(isObject: isObject)
                    if isObject { container.pendingKey = try parseKey() }
                    if let enclosing = current.take() { outer.append(enclosing) }
                    current = container
                    continue parsing
                }
            case ASCII.quote:
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            case ASCII.minus, ASCII.zero...ASCII.nine:
                value = try parseNumber()
            default:
                throw unexpectedCharacter(expecting: "a value")
            }

            // A value is complete: add it to the innermost container, closing containers as needed.
            while current != nil {
                skipWhitespace()
                let isObject = current!.isObject
                if isObject {
                    add(value, to: &current!)
                } else {
                    current!.values.append(value)
                }
                guard position < bytes.count else {
                    throw unexpectedEnd(expecting: isObject ? "',' or '}'" : "',' or ']'")
                }
                switch bytes[position] {
                case ASCII.comma:
                    position += 1
                    if isObject { current!.pendingKey = try parseKey() }
                    continue parsing
                case ASCII.closeBracket where !isObject:
                    position += 1
                    value = .array(current.take()!.values)
                case ASCII.closeBrace where isObject:
                    position += 1
                    let container = current.take()!
                    value = .object(JSONObject(uniqueKeys: container.keys, values: container.values))
                default:
                    throw unexpectedCharacter(expecting: isObject ? "',' or '}'" : "',' or ']'")
                }
                current = outer.popLast()
            }
            return value
        }
    }

    /// Adds `value` under the container's pending key: a duplicate replaces the first value in place.
    private func add(_ value: JSON, to container: inout Container) {
        let key = container.pendingKey
        container.pendingKey = ""
        if container.index == nil, container.keys.count >= 16 {
            var index = [String: Int](minimumCapacity: container.keys.count * 2)
            for (position, key) in container.keys.enumerated() where index[key] == nil {
                index[key] = position
            }
            container.index = index
        }
        if container.index != nil {
            if let existing = container.index![key] {
                container.values[existing] = value
                return
            }
            container.index![key] = container.keys.count
        } else if let existing = container.keys.firstIndex(of: key) {
            container.values[existing] = value
            return
        }
        container.keys.append(key)
        container.values.append(value)
    }

    /// `"key" :` with surrounding whitespace; leaves the position at the value.
    private mutating func parseKey() throws(JSONError) -> String {
        skipWhitespace()
        guard position < bytes.count else { throw unexpectedEnd(expecting: "a string key") }
        guard bytes[position] == ASCII.quote else { throw unexpectedCharacter(expecting: "a string key") }
        let key = try parseString()
        skipWhitespace()
        guard position < bytes.count else { throw unexpectedEnd(expecting: "':'") }
        guard bytes[position] == ASCII.colon else { throw unexpectedCharacter(expecting: "':'") }
        position += 1
        return key
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case ASCII.space, ASCII.lf, ASCII.cr, ASCII.tab: position += 1
            default: return
            }
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let utf8 = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for expected in utf8 {
            guard position < bytes.count else { throw unexpectedEnd(expecting: "'\(literal)'") }
            guard bytes[position] == expected else { throw unexpectedCharacter(expecting: "'\(literal)'") }
            position += 1
        }
    }

    // MARK: Strings

    /// A string starting at the opening quote at `position`; leaves the position after the closing quote.
    private mutating func parseString() throws(JSONError) -> String {
        let start = position
        position += 1
        var runStart = position
        var escaped = false
        while true {
            // Eight bytes at a time while all are printable ASCII other than `"` and `\` (most
            // text): none of them ends the run or needs a look of its own.
            while position + 8 <= bytes.count,
                Self.isPlainASCII(UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self))
            {
                position += 8
            }
            guard position < bytes.count else {
                throw JSONError(.unterminatedString, at: start, "Unterminated string at offset \(start)")
            }
            let byte = bytes[position]
            if byte == ASCII.quote {
                break
            } else if byte == ASCII.backslash {
                if !escaped {
                    escaped = true
                    scratch.removeAll(keepingCapacity: true)
                }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                try parseEscape(stringStart: start)
                runStart = position
            } else if byte < 0x20 {
                throw JSONError(
                    .controlCharacter, at: position,
                    "Unescaped control character \(Self.scalarName(UInt32(byte))) in string at offset \(position)")
            } else if byte < 0x80 {
                position += 1
            } else {
                guard let length = Self.utf8SequenceLength(bytes, at: position) else { throw invalidUTF8() }
                position += length
            }
        }
        let run = UnsafeBufferPointer(rebasing: bytes[runStart..<position])
        position += 1  // the closing quote
        if !escaped { return String(decoding: run, as: UTF8.self) }
        scratch.append(contentsOf: run)
        return String(decoding: scratch, as: UTF8.self)
    }

    /// Whether each of the eight bytes of `word` is ASCII from 0x20 up, other than `"` and `\`.
    private static func isPlainASCII(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        // Non-ASCII bytes go the byte-by-byte way, which checks their UTF-8. Of ASCII bytes, one
        // below n (n ≤ 0x80) sets its high bit in (x − n·ones) & ~x, and one equal to c is one of
        // x ^ c·ones below 1 (a borrow makes a false alarm only after a byte that was found).
        func below(_ x: UInt64, _ n: UInt64) -> UInt64 { (x &- n &* ones) & ~x & highBits }
        guard word & highBits == 0 else { return false }
        return below(word, 0x20) | below(word ^ (0x22 &* ones), 1) | below(word ^ (0x5C &* ones), 1) == 0
    }

    /// One escape at `position` (a backslash), appended to `scratch` as UTF-8.
    private mutating func parseEscape(stringStart: Int) throws(JSONError) {
        let start = position
        guard position + 1 < bytes.count else {
            throw JSONError(.unterminatedString, at: stringStart, "Unterminated string at offset \(stringStart)")
        }
        let byte = bytes[position + 1]
        position += 2
        switch byte {
        case ASCII.quote, ASCII.backslash, ASCII.slash: scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeStart: start)
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed at once by a \u low surrogate (RFC 8259 §7).
                guard position + 1 < bytes.count, bytes[position] == ASCII.backslash,
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw unpairedSurrogate(scalar, at: start) }
                let lowStart = position
                position += 2
                let low = try parseHex4(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(low) else { throw unpairedSurrogate(scalar, at: start) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw unpairedSurrogate(scalar, at: start)
            }
            appendUTF8(scalar)
        default:
            throw JSONError(
                .invalidEscape, at: start,
                "Invalid escape sequence '\\\(Self.describe(byte))' at offset \(start)")
        }
    }

    /// Four hex digits at `position`.
    private mutating func parseHex4(escapeStart: Int) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard position < bytes.count, let digit = Self.hexValue(bytes[position]) else {
                throw JSONError(
                    .invalidUnicodeEscape, at: escapeStart, "Invalid \\u escape at offset \(escapeStart)")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case ASCII.zero...ASCII.nine: UInt32(byte - ASCII.zero)
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// The length of the well-formed UTF-8 sequence starting at `offset` (RFC 3629 §4), or `nil`:
    /// rejects stray continuation bytes, overlong forms, encoded surrogates, scalars above
    /// U+10FFFF and truncated sequences.
    static func utf8SequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int? {
        let lead = bytes[offset]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF  // the valid range of the second byte
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return nil
        }
        guard offset + length <= bytes.count else { return nil }
        let second = bytes[offset + 1]
        guard second >= low, second <= high else { return nil }
        for index in (offset + 2)..<(offset + length) where bytes[index] & 0xC0 != 0x80 {
            return nil
        }
        return length
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` (RFC 8259 §6).
    private mutating func parseNumber() throws(JSONError) -> JSON {
        let start = position
        let negative = bytes[position] == ASCII.minus
        if negative { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw JSONError(.invalidNumber, at: start, "Invalid number at offset \(start): expected a digit after '-'")
        }
        if bytes[position] == ASCII.zero {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw JSONError(
                    .invalidNumber, at: start, "Invalid number at offset \(start): leading zeros are not allowed")
            }
        } else {
            skipDigits()
        }
        let integerEnd = position
        var isInteger = true
        if position < bytes.count, bytes[position] == ASCII.dot {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw JSONError(
                    .invalidNumber, at: start, "Invalid number at offset \(start): expected a digit after '.'")
            }
            skipDigits()
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == ASCII.plus || bytes[position] == ASCII.minus {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw JSONError(
                    .invalidNumber, at: start, "Invalid number at offset \(start): expected a digit in the exponent")
            }
            skipDigits()
        }
        if isInteger, let integer = integerValue(from: negative ? start + 1 : start, to: integerEnd, negative: negative) {
            if negative && integer == 0 { return .double(-0.0) }
            return .int(integer)
        }
        // The slice is validated ASCII; Double(String) rounds correctly (and fast, even for huge inputs).
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            throw JSONError(.numberOutOfRange, at: start, "Number out of range at offset \(start)")
        }
        return .double(double)
    }

    /// The digits in `from..<to` as an `Int`, or `nil` if they do not fit.
    private func integerValue(from: Int, to: Int, negative: Bool) -> Int? {
        guard to - from <= 19 else { return nil }
        // Accumulate negatively so that Int.min fits.
        var value = 0
        for index in from..<to {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(Int(bytes[index] - ASCII.zero))
            if overflow1 || overflow2 { return nil }
            value = next
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    private mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- ASCII.zero < 10 }

    // MARK: Errors

    private func unexpectedEnd(expecting expected: String) -> JSONError {
        JSONError(.unexpectedEnd, at: position, "Unexpected end of input at offset \(position) (expected \(expected))")
    }

    /// An unexpected byte at `position`, or invalid UTF-8 if it starts no well-formed sequence.
    private func unexpectedCharacter(expecting expected: String) -> JSONError {
        let byte = bytes[position]
        var shown = Self.describe(byte)
        if byte >= 0x80 {
            guard let length = Self.utf8SequenceLength(bytes, at: position) else { return invalidUTF8() }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<position + length]), as: UTF8.self)
            let scalar = text.unicodeScalars.first!
            switch scalar.properties.generalCategory {
            case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator,
                .nonspacingMark, .enclosingMark, .privateUse, .unassigned, .surrogate:
                shown = Self.scalarName(scalar.value)  // invisible or combining: name it
            default:
                shown = text
            }
        }
        return JSONError(
            .unexpectedCharacter, at: position,
            "Unexpected character '\(shown)' at offset \(position) (expected \(expected))")
    }

    private func tooDeep() -> JSONError {
        JSONError(.tooDeep, at: position, "JSON nested deeper than \(maxDepth) levels at offset \(position)")
    }

    private func invalidUTF8() -> JSONError {
        JSONError(.invalidUTF8, at: position, "Invalid UTF-8 at offset \(position)")
    }

    private func unpairedSurrogate(_ scalar: UInt32, at offset: Int) -> JSONError {
        JSONError(
            .invalidUnicodeEscape, at: offset,
            "Invalid \\u escape at offset \(offset): unpaired surrogate \(Self.scalarName(scalar))")
    }

    /// A printable ASCII byte as itself, anything else as `U+XXXX`.
    private static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : scalarName(UInt32(byte))
    }

    private static func scalarName(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
