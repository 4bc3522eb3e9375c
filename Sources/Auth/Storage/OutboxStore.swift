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

    /// Counts a request for a message of `kind` to `address` and answers whether it is within
    /// the address's hourly share of that kind. Requests for addresses no account has count the
    /// same way, with the same write, so the answer's timing does not tell them apart.
    static func admit(kind: String, address: String, perHour: Int, now: Date, in tx: Transaction) throws -> Bool {
        let digest = SHA256.digest(address.lowercased())
        // One request of this kind to this address at a time, so concurrent ones cannot pass the count together.
        try tx.execute("SELECT pg_advisory_xact_lock(hashtext(\(kind)), hashtext(encode(\(digest), 'hex')))")
        let recent = try tx.queryFirst("""
            WITH counted AS (INSERT INTO mail_requests (address_digest, kind, created_at) VALUES (\(digest), \(kind), \(now)))
            SELECT count(*) FROM mail_requests
            WHERE address_digest = \(digest) AND kind = \(kind) AND created_at > \(now.addingTimeInterval(-3600))
            """)?.decode(Int.self, at: 0) ?? 0
        return recent < perHour
    }

    /// Adds `message` in `tx` unless its recipient already had `perHour` messages of its kind in
    /// the last hour (no mail bomb; callers answer the same either way); whether it was added.
    /// `messageIdDomain` is the right-hand side of its `Message-ID`.
    @discardableResult
    static func enqueue(_ message: Message, perHour: Int, messageIdDomain: String, now: Date, in tx: Transaction) throws -> Bool {
        guard try admit(kind: message.kind, address: message.recipient, perHour: perHour, now: now, in: tx) else { return false }
        let messageId = "<\(SecureRandom.hex(count: 16))@\(messageIdDomain)>"
        try tx.execute("""
            INSERT INTO mail_outbox (kind, user_id, recipient, username, language, link, message_id, created_at, next_attempt_at)
            VALUES (\(message.kind), \(message.userId), \(message.recipient), \(message.username), \(message.language),
                    \(message.link), \(messageId), \(now), \(now))
            """)
        return true
    }
}
