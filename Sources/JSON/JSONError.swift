/// A JSON syntax or limit error: what went wrong and the byte offset where it was detected.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of a ``JSONError``, for callers (and tests) that branch on it.
    public enum Kind: Sendable, Hashable {
        /// A byte that cannot start or continue the value being parsed.
        case unexpectedCharacter
        /// The input ended before the value was complete.
        case unexpectedEnd
        /// A string had no closing quote.
        case unterminatedString
        /// A backslash followed by a character that is not a JSON escape.
        case invalidEscape
        /// A `\u` escape without four hex digits, or an unpaired surrogate escape.
        case invalidUnicodeEscape
        /// A raw control character (below U+0020) inside a string.
        case controlCharacter
        /// Bytes that are not well-formed UTF-8 (RFC 3629).
        case invalidUTF8
        /// A number that breaks the JSON number grammar.
        case invalidNumber
        /// A number too large in magnitude for a `Double`.
        case numberOutOfRange
        /// Arrays and objects nested deeper than the parser's `maxDepth`.
        case tooDeep
        /// The input is longer than the parser's `maxLength`.
        case tooLong
    }

    /// The class of error.
    public var kind: Kind
    /// The byte offset in the input where the error was detected.
    public var offset: Int
    /// A full sentence ending with the offset, e.g. `Unexpected character 'x' at offset 12`.
    public var message: String

    /// Creates an error; `message` should already name the offset.
    public init(_ kind: Kind, at offset: Int, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
