/// A GraphQL document's text, held as UTF-8 bytes, with a name used in error reports.
public struct Source: Sendable, Hashable {
    /// A name for the document, such as a file name.
    public let name: String
    /// The document's UTF-8 bytes.
    public let bytes: [UInt8]

    /// A source from text.
    public init(_ body: String, name: String = "GraphQL request") {
        self.name = name
        self.bytes = Array(body.utf8)
    }

    /// A source from raw bytes; invalid UTF-8 is reported by the lexer where it occurs.
    public init(bytes: [UInt8], name: String = "GraphQL request") {
        self.name = name
        self.bytes = bytes
    }

    /// The 1-based line and column of a byte offset. Columns count Unicode scalars;
    /// `\n`, `\r\n` and `\r` each end a line (spec §2.1.2 Line Terminators).
    /// Linear in the offset: computed only when an error needs it.
    public func location(of offset: Int) -> SourceLocation {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        var index = 0
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                lineStart = index + 1
            } else if byte == 0x0D {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                    // "\r\n" is one terminator; the line starts after the "\n".
                    if index + 1 >= end { break }
                    index += 1
                }
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        var column = 1
        var i = lineStart
        while i < end {
            // Count scalars: every byte that is not a UTF-8 continuation byte.
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return SourceLocation(line: line, column: column)
    }
}

/// A 1-based line and column in a `Source`.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// A half-open byte range `start..<end` in a source.
///
/// Spans never take part in equality or hashing: two AST nodes are equal when they
/// have the same structure and values, wherever they were written. This is what
/// makes `parse(print(ast)) == ast` meaningful.
public struct Span: Sendable, Hashable, CustomStringConvertible {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// A span for nodes built in code rather than parsed.
    public static let synthetic = Span(start: 0, end: 0)

    /// Whether this is `.synthetic` (`==` ignores spans, so AST nodes compare by content).
    var isSynthetic: Bool { start == 0 && end == 0 }

    public static func == (lhs: Span, rhs: Span) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}

    public var description: String { "\(start)..<\(end)" }
}
