/// What one message says: filled from an outbox row.
public struct MailContent: Sendable, Hashable {
    public var kind: MailKind
    public var language: MailLanguage
    /// The To address, plain: `ann@example.com`.
    public var recipient: String
    public var username: String
    /// The full link with its token: the verify and reset kinds only (ignored for the others).
    public var link: String?
    /// Seconds the link works, which the message says (nil: it says nothing about it).
    public var linkLifetime: Int?
    /// The changes to the ways into the account that the message lists, one paragraph each
    /// after its lead: the sign-in kinds only (ignored for the others).
    public var signInChanges: [SignInChange]

    public init(
        kind: MailKind, language: MailLanguage, recipient: String, username: String, link: String? = nil,
        linkLifetime: Int? = nil, signInChanges: [SignInChange] = []
    ) {
        self.kind = kind
        self.language = language
        self.recipient = recipient
        self.username = username
        self.link = link
        self.linkLifetime = linkLifetime
        self.signInChanges = signInChanges
    }
}

/// A composed message: its parts for display, and the bytes to send.
public struct ComposedMail: Sendable {
    /// The subject, decoded, for display.
    public var subject: String
    /// The text/plain body.
    public var text: String
    /// The text/html body.
    public var html: String
    /// The whole RFC 5322 message (headers and MIME body), CRLF line ends.
    public var data: [UInt8]
}
