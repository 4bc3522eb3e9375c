/// A From address: `Name <addr>`, `"Quoted, Name" <addr>` or a bare `addr`
/// (`GATEHOUSE_MAIL_FROM`'s value).
public struct MailAddress: Sendable, Hashable {
    /// The display name, nil when none is given.
    public var name: String?
    /// The address itself: `no-reply@example.com`.
    public var address: String

    /// Parses and validates: no control characters (CR and LF least of all), one `@` with text
    /// on both sides, no spaces or angle brackets inside the address.
    public init(parsing text: String) throws(MailAddressError) {
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .controlCharacter
        }
        let trimmed = Substring(text).trimmingSpaces()
        guard !trimmed.isEmpty else { throw .empty }
        var name: Substring?
        var address = trimmed
        if trimmed.last == ">" {
            guard let open = trimmed.lastIndex(of: "<") else { throw .unbalancedAngleBracket }
            address = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            name = trimmed[..<open].trimmingSpaces()
            if let quoted = name, quoted.count >= 2, quoted.first == "\"", quoted.last == "\"" {
                // A quoted string (RFC 5322 §3.2.4): `\x` stands for `x`.
                var unquoted = ""
                var escaped = false
                for character in quoted.dropFirst().dropLast() {
                    if character == "\\" && !escaped { escaped = true; continue }
                    unquoted.append(character)
                    escaped = false
                }
                name = Substring(unquoted)
            }
            if name?.isEmpty == true { name = nil }
        }
        guard !address.contains(where: { $0 == "<" || $0 == ">" }) else { throw .unbalancedAngleBracket }
        guard !address.contains(where: { $0 == " " || $0 == "\t" }) else { throw .spaceInAddress }
        let sides = address.split(separator: "@", omittingEmptySubsequences: false)
        guard sides.count == 2 else { throw .notOneAtSign }
        guard !sides[0].isEmpty, !sides[1].isEmpty else { throw .emptyLocalPartOrDomain }
        self.name = name.map(String.init)
        self.address = String(address)
    }

    /// A name and address as they are (for code that builds one; ``init(parsing:)`` validates).
    public init(name: String?, address: String) {
        self.name = name
        self.address = address
    }
}

/// What is wrong with a From address; the description says it in words.
public enum MailAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty, controlCharacter, unbalancedAngleBracket, spaceInAddress, notOneAtSign, emptyLocalPartOrDomain

    public var description: String {
        switch self {
        case .empty: "the mail address is empty"
        case .controlCharacter: "the mail address contains a control character (such as a line break)"
        case .unbalancedAngleBracket: "the mail address must be `Name <address>` or a bare address: its angle brackets do not match"
        case .spaceInAddress: "the mail address contains a space (a display name goes before `<address>`)"
        case .notOneAtSign: "the mail address must contain exactly one @"
        case .emptyLocalPartOrDomain: "the mail address needs text on both sides of the @"
        }
    }
}
