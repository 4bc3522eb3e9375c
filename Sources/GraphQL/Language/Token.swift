/// The kinds of lexical token (spec §2.1.6 Lexical Tokens), plus start and end of file.
public enum TokenKind: UInt8, Sendable, Hashable {
    case startOfFile, endOfFile
    case bang, dollar, amp, parenL, parenR, spread, colon, equals, at
    case bracketL, bracketR, braceL, pipe, braceR
    case name, int, float, string, blockString

    /// How error messages name the kind: punctuators quoted, others by name.
    var errorDescription: String {
        switch self {
        case .startOfFile: "<SOF>"
        case .endOfFile: "<EOF>"
        case .bang: "\"!\""
        case .dollar: "\"$\""
        case .amp: "\"&\""
        case .parenL: "\"(\""
        case .parenR: "\")\""
        case .spread: "\"...\""
        case .colon: "\":\""
        case .equals: "\"=\""
        case .at: "\"@\""
        case .bracketL: "\"[\""
        case .bracketR: "\"]\""
        case .braceL: "\"{\""
        case .pipe: "\"|\""
        case .braceR: "\"}\""
        case .name: "Name"
        case .int: "Int"
        case .float: "Float"
        case .string: "String"
        case .blockString: "BlockString"
        }
    }
}

/// One token: its kind, byte span and, for names, numbers and strings, its value
/// (strings decoded, block strings dedented).
public struct Token: Sendable, Hashable {
    public var kind: TokenKind
    public var start: Int
    public var end: Int
    public var value: String

    /// `Name "foo"`, `"{"`, `<EOF>`: the form used in syntax errors.
    var errorDescription: String {
        switch kind {
        case .name, .int, .float, .string, .blockString:
            kind.errorDescription + " \"" + value + "\""
        default:
            kind.errorDescription
        }
    }
}
