import Foundation
import Postgres
import Sodium

/// The mail outbox (`mail_outbox`): messages are added in the transaction of the change that
/// causes them, so an answered mutation never loses its mail; the server's sender delivers them.
struct OutboxStore: Sendable {
    let pool: Pool

    /// A message to add: what it says is rendered at delivery from these fields.
    struct Message {
        /// A `Mail.MailKind` raw value.
        var kind: String
        /// The user it is about (pending messages go when the user is deleted, but the notice of deletion).
        var userId: String?
        var recipient: String
        var username: String
        /// A `Mail.MailLanguage` raw value.
        var language: String
        /// The link with its token (verify and reset kinds).
        var link: String?
    }

    /// Adds `message` in `tx` unless the recipient already had `perHour` messages of its kind in
    /// the last hour (no mail bomb; the caller answers the same either way). Returns whether it was added.
    /// `messageIdDomain` is the right-hand side of its `Message-ID`.
    @discardableResult
    static func enqueue(_ message: Message, perHour: Int, messageIdDomain: String, now: Date, in tx: Transaction) throws -> Bool {
        // One sender of this kind to this address at a time, so concurrent requests cannot pass the count together.
        try tx.execute("SELECT pg_advisory_xact_lock(hashtext(\("mail:" + message.kind + ":" + message.recipient.lowercased())))")
        let recent = try tx.queryFirst("""
            SELECT count(*) FROM mail_outbox
            WHERE lower(recipient) = lower(\(message.recipient)) AND kind = \(message.kind)
              AND created_at > \(now.addingTimeInterval(-3600))
            """)?.decode(Int.self, at: 0) ?? 0
        guard recent < perHour else { return false }
        let messageId = "<\(SecureRandom.hex(count: 16))@\(messageIdDomain)>"
        try tx.execute("""
            INSERT INTO mail_outbox (kind, user_id, recipient, username, language, link, message_id, created_at, next_attempt_at)
            VALUES (\(message.kind), \(message.userId), \(message.recipient), \(message.username), \(message.language),
                    \(message.link), \(messageId), \(now), \(now))
            """)
        return true
    }
}
