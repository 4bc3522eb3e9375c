import Foundation

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
    /// When and from where the change happened: the security notices only (ignored for the others).
    public var occurrence: NoticeOccurrence?

    public init(
        kind: MailKind, language: MailLanguage, recipient: String, username: String, link: String? = nil,
        linkLifetime: Int? = nil, signInChanges: [SignInChange] = [], occurrence: NoticeOccurrence? = nil
    ) {
        self.occurrence = occurrence
        self.kind = kind
        self.language = language
        self.recipient = recipient
        self.username = username
        self.link = link
        self.linkLifetime = linkLifetime
        self.signInChanges = signInChanges
    }
}

/// When and from where the change a security notice reports was made.
public struct NoticeOccurrence: Sendable, Hashable {
    public var at: Date
    /// The client's address as the server saw it; nil: not known.
    public var address: String?
    /// The request's User-Agent; nil: none.
    public var device: String?

    public init(at: Date, address: String? = nil, device: String? = nil) {
        self.at = at
        self.address = address
        self.device = device
    }

    /// The time as the notices write it in every language: `2026-12-06 16:40 UTC`.
    var formattedTime: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: at)
        func two(_ n: Int?) -> String { let n = n ?? 0; return n < 10 ? "0\(n)" : "\(n)" }
        return "\(c.year ?? 1970)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)) UTC"
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
