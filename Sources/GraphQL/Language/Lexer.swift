/// Turns UTF-8 bytes into tokens (spec §2.1 Source Text), skipping ignored tokens:
/// white space, line terminators, commas, comments and the byte order mark.
///
/// Works on an unsafe buffer that the caller keeps alive for the lexer's lifetime
/// (`Parser` runs inside `withUnsafeBufferPointer`). Error messages follow graphql-js.
///
/// The current token is kept as plain fields (kind, byte span, and the byte range of
/// its value) rather than a `Token`, so that reading a token makes no `String` and
/// touches no reference count: the parser makes a `String` only for the values that
/// end up in the syntax tree. Strings whose value differs from their bytes (escapes,
/// multi-line block strings) are decoded while lexing, into `decoded`.
struct Lexer {
    let source: Source
    let bytes: UnsafeBufferPointer<UInt8>
    /// Byte offset of the next unread byte.
    private(set) var position: Int = 0
    /// The current token's kind and byte span.
    private(set) var kind: TokenKind = .startOfFile
    private(set) var start: Int = 0
    private(set) var end: Int = 0
    /// The current token's value is `bytes[valueStart..<valueEnd]`, unless `isDecoded`,
    /// when it is `decoded`.
    private var valueStart: Int = 0
    private var valueEnd: Int = 0
    private var isDecoded = false
    private var decoded: String = ""

    init(source: Source, bytes: UnsafeBufferPointer<UInt8>) {
        self.source = source
        self.bytes = bytes
    }

    /// The token most recently read, with its value as a `String`.
    var token: Token { Token(kind: kind, start: start, end: end, value: value) }

    /// The current token's value: a name, a number as written, a string's decoded value
    /// or empty for punctuators.
    var value: String {
        isDecoded ? decoded : text(valueStart, valueEnd)
    }

    /// Whether the current token is the name `keyword` (compared byte by byte).
    @inline(__always)
    func isName(_ keyword: StaticString) -> Bool {
        guard kind == .name else { return false }
        let length = keyword.utf8CodeUnitCount
        guard end - start == length else { return false }
        let pointer = keyword.utf8Start
        var i = 0
        while i < length {
            if bytes[start + i] != pointer[i] { return false }
            i += 1
        }
        return true
    }

    /// The current name or number token's text as a `String`: always ASCII.
    @inline(__always)
    func asciiValue() -> String {
        asciiText(valueStart, valueEnd)
    }

    @inline(__always)
    private func byte(_ offset: Int) -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private func error(_ offset: Int, _ description: String) -> GraphQLError {
        .syntax(source, at: offset, description)
    }

    /// Reads the next token into `kind`, `start`, `end` and the value fields.
    @inline(__always)
    mutating func advance() throws(GraphQLError) {
        try readToken()
    }

    /// The token after the current one, without consuming anything.
    func lookahead() throws(GraphQLError) -> Token {
        var copy = self
        try copy.advance()
        return copy.token
    }

    @inline(__always)
    private mutating func set(_ kind: TokenKind, _ start: Int, _ end: Int, value valueStart: Int, _ valueEnd: Int) {
        self.kind = kind
        self.start = start
        self.end = end
        self.valueStart = valueStart
        self.valueEnd = valueEnd
        self.isDecoded = false
        position = end
    }

    private mutating func setDecoded(_ kind: TokenKind, _ start: Int, _ end: Int, _ value: String) {
        self.kind = kind
        self.start = start
        self.end = end
        self.isDecoded = true
        self.decoded = value
        position = end
    }

    private mutating func readToken() throws(GraphQLError) {
        let count = bytes.count
        var pos = position
        // Ignored tokens (spec §2.1.7).
        while pos < count {
            let b = bytes[pos]
            switch b {
            case 0x20:
                pos = skipSpaces(from: pos + 1)
            case 0x09, 0x2C, 0x0A, 0x0D:
                pos += 1
            case 0xEF where byte(pos + 1) == 0xBB && byte(pos + 2) == 0xBF:
                pos += 3  // UnicodeBOM
            case 0x23:  // # Comment, up to a line terminator
                pos += 1
                while pos < count {
                    let c = bytes[pos]
                    if c == 0x0A || c == 0x0D { break }
                    guard let length = scalarLength(at: pos) else { break }  // invalid UTF-8 is reported as the next token
                    pos += length
                }
            default:
                return try readSignificantToken(at: pos)
            }
        }
        set(.endOfFile, count, count, value: count, count)
    }

    /// The offset of the first byte from `start` on that is not a space, read eight bytes
    /// at a time: indentation is most of a document's ignored bytes.
    @inline(__always)
    private func skipSpaces(from start: Int) -> Int {
        let count = bytes.count
        var pos = start
        while pos + 8 <= count {
            // The first byte that is not a space is the lowest non-zero byte of the difference.
            let difference = word(at: pos) ^ 0x2020_2020_2020_2020
            if difference != 0 { return pos + (difference.trailingZeroBitCount >> 3) }
            pos += 8
        }
        while pos < count, bytes[pos] == 0x20 { pos += 1 }
        return pos
    }

    /// The eight bytes from `pos` (which has eight bytes after it) as one integer, the
    /// first byte lowest, whatever the machine's byte order.
    @inline(__always)
    private func word(at pos: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: pos, as: UInt64.self))
    }

    @inline(__always)
    private mutating func readSignificantToken(at start: Int) throws(GraphQLError) {
        let b = bytes[start]
        // Names first: most tokens are names.
        if isNameStart(b) { return readName(start) }
        @inline(__always) func punctuator(_ kind: TokenKind, _ length: Int = 1) {
            set(kind, start, start + length, value: start, start)
        }
        switch b {
        case 0x21: return punctuator(.bang)
        case 0x24: return punctuator(.dollar)
        case 0x26: return punctuator(.amp)
        case 0x28: return punctuator(.parenL)
        case 0x29: return punctuator(.parenR)
        case 0x2E:
            if byte(start + 1) == 0x2E && byte(start + 2) == 0x2E { return punctuator(.spread, 3) }
        case 0x3A: return punctuator(.colon)
        case 0x3D: return punctuator(.equals)
        case 0x40: return punctuator(.at)
        case 0x5B: return punctuator(.bracketL)
        case 0x5D: return punctuator(.bracketR)
        case 0x7B: return punctuator(.braceL)
        case 0x7C: return punctuator(.pipe)
        case 0x7D: return punctuator(.braceR)
        case 0x22:
            if byte(start + 1) == 0x22 && byte(start + 2) == 0x22 { return try readBlockString(start) }
            return try readString(start)
        default:
            if isDigit(b) || b == 0x2D { return try readNumber(start) }
        }
        if b == 0x27 {
            throw error(start, "Unexpected single quote character ('), did you mean to use a double quote (\")?")
        }
        if scalarLength(at: start) == nil {
            throw error(start, "Invalid character: \(describeInvalidByte(at: start)).")
        }
        throw error(start, "Unexpected character: \(describeCharacter(at: start)).")
    }

    // MARK: Names

    /// Name :: NameStart NameContinue* [lookahead != NameContinue]
    @inline(__always)
    private mutating func readName(_ start: Int) {
        var pos = start + 1
        let count = bytes.count
        // Eight bytes at a time while eight are left, then byte by byte.
        while pos + 8 <= count {
            let others = nonNameContinueBytes(word(at: pos))
            if others != 0 {
                pos += others.trailingZeroBitCount >> 3
                return set(.name, start, pos, value: start, pos)
            }
            pos += 8
        }
        while pos < count, isNameContinue(bytes[pos]) { pos += 1 }
        set(.name, start, pos, value: start, pos)
    }

    // MARK: Numbers

    /// IntValue :: IntegerPart [lookahead != {Digit, `.`, NameStart}]
    /// FloatValue :: IntegerPart FractionalPart? ExponentPart? (at least one of them)
    private mutating func readNumber(_ start: Int) throws(GraphQLError) {
        var pos = start
        var isFloat = false
        if byte(pos) == 0x2D { pos += 1 }  // NegativeSign
        if byte(pos) == 0x30 {
            pos += 1
            if let next = byte(pos), isDigit(next) {
                throw error(pos, "Invalid number, unexpected digit after 0: \(describeCharacter(at: pos)).")
            }
        } else {
            pos = try readDigits(pos)
        }
        if byte(pos) == 0x2E {  // FractionalPart
            isFloat = true
            pos = try readDigits(pos + 1)
        }
        if byte(pos) == 0x45 || byte(pos) == 0x65 {  // ExponentPart
            isFloat = true
            pos += 1
            if byte(pos) == 0x2B || byte(pos) == 0x2D { pos += 1 }
            pos = try readDigits(pos)
        }
        if let next = byte(pos), next == 0x2E || isNameStart(next) {
            throw error(pos, "Invalid number, expected digit but got: \(describeCharacter(at: pos)).")
        }
        set(isFloat ? .float : .int, start, pos, value: start, pos)
    }

    /// Digit+, returning the offset after the last digit.
    private func readDigits(_ start: Int) throws(GraphQLError) -> Int {
        guard let first = byte(start), isDigit(first) else {
            throw error(start, "Invalid number, expected digit but got: \(describeCharacter(at: start)).")
        }
        var pos = start + 1
        while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        return pos
    }

    // MARK: Strings

    /// StringValue :: `"` StringCharacter* `"`
    private mutating func readString(_ start: Int) throws(GraphQLError) {
        var pos = start + 1
        var chunkStart = pos
        var decoded: [UInt8]? = nil  // only allocated once an escape is seen
        while pos < bytes.count {
            let b = bytes[pos]
            if b == 0x22 {  // closing quote
                if var buffer = decoded {
                    buffer.append(contentsOf: bytes[chunkStart..<pos])
                    setDecoded(.string, start, pos + 1, String(decoding: buffer, as: UTF8.self))
                } else {
                    set(.string, start, pos + 1, value: chunkStart, pos)
                }
                return
            }
            if b == 0x5C {  // escape sequence
                if decoded == nil { decoded = [] }
                decoded!.append(contentsOf: bytes[chunkStart..<pos])
                let (scalar, length) = try readEscape(pos)
                appendUTF8(scalar, to: &decoded!)
                pos += length
                chunkStart = pos
                continue
            }
            if b == 0x0A || b == 0x0D { break }
            pos += try stringCharacterLength(at: pos)
        }
        throw error(pos, "Unterminated string.")
    }

    /// The length of the scalar at `pos` in a string or block string, which must be valid UTF-8.
    @inline(__always)
    private func stringCharacterLength(at pos: Int) throws(GraphQLError) -> Int {
        guard let length = scalarLength(at: pos) else {
            throw error(pos, "Invalid character within String: \(describeInvalidByte(at: pos)).")
        }
        return length
    }

    /// `\` EscapedCharacter, `\u` HexDigit{4} (with surrogate pairs), `\u{` HexDigit+ `}`.
    /// Returns the scalar and the number of bytes the escape spans.
    private func readEscape(_ pos: Int) throws(GraphQLError) -> (Unicode.Scalar, Int) {
        guard let kind = byte(pos + 1) else {
            throw error(pos, "Invalid character escape sequence: \"\\\".")
        }
        switch kind {
        case 0x22: return ("\"", 2)
        case 0x5C: return ("\\", 2)
        case 0x2F: return ("/", 2)
        case 0x62: return ("\u{8}", 2)
        case 0x66: return ("\u{C}", 2)
        case 0x6E: return ("\n", 2)
        case 0x72: return ("\r", 2)
        case 0x74: return ("\t", 2)
        case 0x75:
            if byte(pos + 2) == 0x7B { return try readVariableWidthEscape(pos) }
            return try readFixedWidthEscape(pos)
        default:
            throw error(pos, "Invalid character escape sequence: \"\(slice(pos, scalars: 2))\".")
        }
    }

    /// `\u{` HexDigit+ `}`: at most 8 hex digits, and the value must be a scalar.
    private func readVariableWidthEscape(_ pos: Int) throws(GraphQLError) -> (Unicode.Scalar, Int) {
        var point: UInt32 = 0
        var size = 3
        while size < 12 {
            guard let b = byte(pos + size) else { break }
            size += 1
            if b == 0x7D {
                if size < 5 { break }
                guard let scalar = Unicode.Scalar(point) else { break }
                return (scalar, size)
            }
            guard let digit = hexValue(b) else { break }
            point = (point << 4) | digit
        }
        throw error(pos, "Invalid Unicode escape sequence: \"\(slice(pos, scalars: size))\".")
    }

    /// `\u` HexDigit{4}; a leading surrogate must be followed by `\u` and a trailing one.
    private func readFixedWidthEscape(_ pos: Int) throws(GraphQLError) -> (Unicode.Scalar, Int) {
        if let code = hex16(at: pos + 2) {
            if let scalar = Unicode.Scalar(code) { return (scalar, 6) }
            if (0xD800...0xDBFF).contains(code), byte(pos + 6) == 0x5C, byte(pos + 7) == 0x75,
                let trailing = hex16(at: pos + 8), (0xDC00...0xDFFF).contains(trailing)
            {
                let combined = 0x10000 + ((code - 0xD800) << 10) + (trailing - 0xDC00)
                return (Unicode.Scalar(combined)!, 12)
            }
        }
        throw error(pos, "Invalid Unicode escape sequence: \"\(slice(pos, scalars: 6))\".")
    }

    private func hex16(at pos: Int) -> UInt32? {
        var value: UInt32 = 0
        for i in 0..<4 {
            guard let b = byte(pos + i), let digit = hexValue(b) else { return nil }
            value = (value << 4) | digit
        }
        return value
    }

    /// BlockString :: `"""` BlockStringCharacter* `"""`, its value dedented by
    /// BlockStringValue() (spec §2.9.4). One pass finds the end and what dedenting
    /// needs (the first and last non-blank lines, the indentation common to the lines
    /// after the first, whether there is a `\"""`); a second writes the value straight
    /// into a `String`. A one-line block string without `\"""` is its raw text.
    private mutating func readBlockString(_ start: Int) throws(GraphQLError) {
        let count = bytes.count
        let contentStart = start + 3
        var pos = contentStart
        var line = 0
        var indent = 0
        var isBlank = true
        var hasEscape = false
        var commonIndent = Int.max
        var firstNonBlank = -1
        var lastNonBlank = -1
        while true {
            guard pos < count else { throw error(pos, "Unterminated string.") }
            let b = bytes[pos]
            let isEnd = b == 0x22 && byte(pos + 1) == 0x22 && byte(pos + 2) == 0x22
            if isEnd || b == 0x0A || b == 0x0D {
                if !isBlank {
                    if firstNonBlank < 0 { firstNonBlank = line }
                    lastNonBlank = line
                    if line != 0 && indent < commonIndent { commonIndent = indent }
                }
                if isEnd { break }
                pos += (b == 0x0D && byte(pos + 1) == 0x0A) ? 2 : 1
                line += 1
                indent = 0
                isBlank = true
                continue
            }
            if isBlank {
                if b == 0x20 || b == 0x09 { indent += 1 } else { isBlank = false }
            }
            if isEscapedTripleQuote(at: pos) {
                hasEscape = true
                pos += 4
                continue
            }
            pos += try stringCharacterLength(at: pos)
        }
        let contentEnd = pos
        let end = contentEnd + 3
        // Only blank lines: the value is empty.
        if firstNonBlank < 0 { return set(.blockString, start, end, value: contentEnd, contentEnd) }
        if line == 0 && !hasEscape { return set(.blockString, start, end, value: contentStart, contentEnd) }
        let first = firstNonBlank
        let last = lastNonBlank
        let strip = commonIndent == Int.max ? 0 : commonIndent
        let value = String(unsafeUninitializedCapacity: contentEnd - contentStart) { out in
            var written = 0
            var line = 0
            var lineStart = contentStart
            while line <= last {
                var lineEnd = lineStart
                while lineEnd < contentEnd, bytes[lineEnd] != 0x0A, bytes[lineEnd] != 0x0D { lineEnd += 1 }
                if line >= first {
                    if line > first {
                        out[written] = 0x0A
                        written += 1
                    }
                    // The common indentation is white space only, so it never holds a `\"""`.
                    var i = line == 0 ? lineStart : lineStart + min(strip, lineEnd - lineStart)
                    while i < lineEnd {
                        if hasEscape && isEscapedTripleQuote(at: i) { i += 1 }  // \""" stands for """
                        out[written] = bytes[i]
                        written += 1
                        i += 1
                    }
                }
                if lineEnd >= contentEnd { break }
                lineStart = lineEnd + ((bytes[lineEnd] == 0x0D && byte(lineEnd + 1) == 0x0A) ? 2 : 1)
                line += 1
            }
            return written
        }
        setDecoded(.blockString, start, end, value)
    }

    /// Whether `pos` starts `\"""`, which in a block string stands for `"""`.
    @inline(__always)
    private func isEscapedTripleQuote(at pos: Int) -> Bool {
        bytes[pos] == 0x5C && byte(pos + 1) == 0x22 && byte(pos + 2) == 0x22 && byte(pos + 3) == 0x22
    }

    // MARK: Characters

    /// The length of the well-formed UTF-8 scalar at `pos`, an offset within the input:
    /// 1 for ASCII, checked first; nil for invalid UTF-8.
    @inline(__always)
    private func scalarLength(at pos: Int) -> Int? {
        bytes[pos] < 0x80 ? 1 : decodeScalar(at: pos)?.1
    }

    /// Decodes one well-formed UTF-8 scalar (no overlongs, no surrogates) at `pos`.
    func decodeScalar(at pos: Int) -> (Unicode.Scalar, Int)? {
        guard let b0 = byte(pos) else { return nil }
        if b0 < 0x80 { return (Unicode.Scalar(b0), 1) }
        func continuation(_ i: Int) -> UInt32? {
            guard let b = byte(pos + i), b & 0xC0 == 0x80 else { return nil }
            return UInt32(b & 0x3F)
        }
        let value: UInt32
        let length: Int
        switch b0 {
        case 0xC2...0xDF:
            guard let c1 = continuation(1) else { return nil }
            value = UInt32(b0 & 0x1F) << 6 | c1
            length = 2
        case 0xE0...0xEF:
            guard let c1 = continuation(1), let c2 = continuation(2) else { return nil }
            value = UInt32(b0 & 0x0F) << 12 | c1 << 6 | c2
            guard value >= 0x800 else { return nil }
            length = 3
        case 0xF0...0xF4:
            guard let c1 = continuation(1), let c2 = continuation(2), let c3 = continuation(3) else { return nil }
            value = UInt32(b0 & 0x07) << 18 | c1 << 12 | c2 << 6 | c3
            guard value >= 0x10000 else { return nil }
            length = 4
        default:
            return nil
        }
        guard let scalar = Unicode.Scalar(value) else { return nil }  // rejects surrogates and > U+10FFFF
        return (scalar, length)
    }

    /// `"c"` for printable ASCII (`'"'` for a quote), `U+XXXX` otherwise, `<EOF>` at the end.
    func describeCharacter(at pos: Int) -> String {
        guard pos < bytes.count else { return "<EOF>" }
        guard let (scalar, _) = decodeScalar(at: pos) else { return describeInvalidByte(at: pos) }
        if scalar.value >= 0x20 && scalar.value <= 0x7E {
            return scalar == "\"" ? "'\"'" : "\"\(Character(scalar))\""
        }
        return unicodeName(scalar.value)
    }

    private func describeInvalidByte(at pos: Int) -> String {
        "0x" + String(bytes[pos], radix: 16, uppercase: true) + " (invalid UTF-8)"
    }

    private func unicodeName(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Text of `scalars` Unicode scalars from `pos` (fewer at the end of input).
    private func slice(_ pos: Int, scalars: Int) -> String {
        var end = pos
        var taken = 0
        while taken < scalars, end < bytes.count {
            end += scalarLength(at: end) ?? 1
            taken += 1
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[pos..<end]), as: UTF8.self)
    }

    @inline(__always)
    private func text(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// `bytes[start..<end]`, known to be ASCII, as a `String`. Up to 15 bytes this
    /// makes a small (inline, unallocated) string, which the standard library checks
    /// for ASCII with one mask instead of running the UTF-8 validator.
    @inline(__always)
    private func asciiText(_ start: Int, _ end: Int) -> String {
        let count = end - start
        guard count <= 15 else { return text(start, end) }
        let base = bytes.baseAddress! + start
        return String(unsafeUninitializedCapacity: count) { buffer in
            buffer.baseAddress!.initialize(from: base, count: count)
            return count
        }
    }
}

@inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

@inline(__always) func isNameStart(_ b: UInt8) -> Bool {
    (b | 0x20) &- 0x61 < 26 || b == 0x5F
}

/// NameContinue :: Letter | Digit | `_`, letters tested first: they are most of a name.
@inline(__always) func isNameContinue(_ b: UInt8) -> Bool {
    (b | 0x20) &- 0x61 < 26 || b &- 0x30 < 10 || b == 0x5F
}

/// The bytes of `word` (eight bytes, the first one lowest) that are not NameContinue:
/// bit 7 of each such byte set, every other bit clear.
///
/// Each test works on all eight bytes at once. Bytes are first cut to seven bits, so
/// adding a constant below 0x80 never carries into the next byte, and bit 7 of each
/// sum tells whether that byte reached a bound: `x + (0x80 - low)` sets it when
/// `x >= low`, `x + (0x7F - high)` when `x > high`. Bytes of 0x80 and above are not
/// name characters whatever their low bits.
@inline(__always) func nonNameContinueBytes(_ word: UInt64) -> UInt64 {
    let highBits: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func repeated(_ byte: UInt8) -> UInt64 { 0x0101_0101_0101_0101 &* UInt64(byte) }
    let low = word & ~highBits
    let lowercased = low | repeated(0x20)
    let letters = (lowercased &+ repeated(0x80 - 0x61)) & ~(lowercased &+ repeated(0x7F - 0x7A))
    let digits = (low &+ repeated(0x80 - 0x30)) & ~(low &+ repeated(0x7F - 0x39))
    // `x ^ 0x5F` is zero only for `_`; adding 0x7F sets bit 7 of every other byte.
    let underscores = ~((low ^ repeated(0x5F)) &+ repeated(0x7F))
    return ~(letters | digits | underscores) & highBits | word & highBits
}

@inline(__always) private func hexValue(_ b: UInt8) -> UInt32? {
    switch b {
    case 0x30...0x39: UInt32(b - 0x30)
    case 0x41...0x46: UInt32(b - 0x41 + 10)
    case 0x61...0x66: UInt32(b - 0x61 + 10)
    default: nil
    }
}

func appendUTF8(_ scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
    UTF8.encode(scalar) { buffer.append($0) }
}
