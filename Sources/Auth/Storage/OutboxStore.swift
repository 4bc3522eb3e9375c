import Foundation
import JSON
import Mail
import Postgres
import Sodium
import Signatures

/// The mail outbox (`mail_outbox`, migration 4): messages are added in the transaction of the
/// change that causes them, so an answered mutation never loses its mail; any instance's sender
/// claims, delivers and marks them.
///
/// Delivery is at least once, in order of creation: ``claim(limit:lease:)`` leases due messages
/// with `FOR UPDATE SKIP LOCKED`, so two live senders never hold one message, and a message held
/// by a sender that died is due again when its lease ends. All times are the database's clock, so
/// instances with skewed clocks agree.
///
/// A link (with its token) is stored only sealed (``SecretBox``, purpose `mailLinks`) and is
/// forgotten once its message is sent or given up; the sender opens it just before delivery.
public struct OutboxStore: Sendable {
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
        /// The link with its token (verify and reset kinds): sealed by
        /// ``enqueue(_:perHour:messageIdDomain:now:linkBox:in:)``, never stored as it is.
        var link: String?
        /// The SHA-256 digest of the link's token (as `account_tokens` keeps it).
        var tokenDigest: [UInt8]?
        /// Seconds the link works from the message's creation.
        var linkLifetime: Int?
        /// What a sign-in notice lists (the sign-in kinds).
        var signInChanges: [SignInChange] = []
        /// The address and User-Agent of the request that made the change (the security notices);
        /// when is the message's creation.
        var occurrence: (address: String?, device: String?)? = nil
    }

    /// A stored message, as the sender and the dev mailbox read it.
    public struct StoredMessage: Sendable, Equatable {
        public var id: Int64
        /// A `Mail.MailKind` raw value: `verify_email`, `reset_password`, `sign_in_changed`, ….
        public var kind: String
        public var recipient: String
        public var username: String
        /// `en`, `es`, `fr` or `ko`.
        public var language: String
        /// The link with its token, sealed (``SecretBox``, purpose `mailLinks`); nil for kinds
        /// without a link, and once the message is sent or given up.
        public var sealedLink: [UInt8]?
        /// When the link stops working (nil: no link).
        public var linkExpiresAt: Date?
        /// The `Message-ID` header, the same on every attempt.
        public var messageId: String
        public var createdAt: Date
        /// `pending`, `sent` or `failed`.
        public var state: String
        /// Delivery attempts so far, counting the one a claim starts.
        public var attempts: Int
        /// What a sign-in notice lists (empty for the other kinds; changes this build does not know are left out).
        public var signInChanges: [SignInChange]
        /// When and from where the change a security notice reports was made (nil for the other kinds).
        public var occurrence: NoticeOccurrence?

        public init(
            id: Int64, kind: String, recipient: String, username: String, language: String, sealedLink: [UInt8]?,
            linkExpiresAt: Date?, messageId: String, createdAt: Date, state: String, attempts: Int,
            signInChanges: [SignInChange] = [], occurrence: NoticeOccurrence? = nil
        ) {
            self.occurrence = occurrence
            self.id = id
            self.kind = kind
            self.recipient = recipient
            self.username = username
            self.language = language
            self.sealedLink = sealedLink
            self.linkExpiresAt = linkExpiresAt
            self.messageId = messageId
            self.createdAt = createdAt
            self.state = state
            self.attempts = attempts
            self.signInChanges = signInChanges
        }
    }

    /// What became of a message whose delivery failed.
    public typealias FailureOutcome = OutboxLease.FailureOutcome

    /// Seconds after its creation when a message is given up.
    public static let giveUpAfter = 24 * 3600
    /// Longest wait between two attempts, in seconds.
    public static let maximumRetryDelay = 600

    /// The pool each operation borrows a connection from.
    public let pool: Pool
    /// Claims, leases and marks the messages (the machinery the webhook outbox shares).
    public let lease: OutboxLease

    public init(pool: Pool) {
        self.pool = pool
        self.lease = OutboxLease(pool: pool, table: Self.table)
    }

    /// The mail outbox's rows for ``OutboxLease``: a sent or given-up message forgets its link.
    static let table = OutboxLease.Table(
        name: "mail_outbox", returning: returnedColumns, onSent: ", sealed_link = NULL",
        onFailure: ", sealed_link = CASE WHEN d.give_up THEN NULL ELSE m.sealed_link END")

    /// Mail's retry schedule with `base` seconds before the first retry.
    public static func schedule(base: Int) -> OutboxLease.RetrySchedule {
        OutboxLease.RetrySchedule(base: base, maximum: maximumRetryDelay, giveUpAfter: giveUpAfter)
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
    /// `messageIdDomain` is the right-hand side of its `Message-ID`; `linkBox` seals its link
    /// (a message with a link and no box is an internal error: the link is never stored as it is).
    @discardableResult
    static func enqueue(
        _ message: Message, perHour: Int, messageIdDomain: String, now: Date, linkBox: SecretBox?, in tx: Transaction
    ) throws -> Bool {
        var sealedLink: [UInt8]? = nil
        if let link = message.link {
            guard let linkBox else {
                throw AuthError.internalError(detail: "a mail link cannot be sealed: no secret key (GATEHOUSE_SECRET_KEY)")
            }
            sealedLink = linkBox.seal(Array(link.utf8))
        }
        guard try admit(kind: message.kind, address: message.recipient, perHour: perHour, now: now, in: tx) else { return false }
        let messageId = "<\(SecureRandom.hex(count: 16))@\(messageIdDomain)>"
        let linkExpiresAt = message.link == nil ? nil : message.linkLifetime.map { now.addingTimeInterval(Double($0)) }
        let signInChanges = message.signInChanges.isEmpty
            ? nil : JSON.array(message.signInChanges.map { .string($0.storedValue) }).serializedString()
        let occurrence = message.occurrence.map { occurrence in
            JSON.object(["address": occurrence.address.map(JSON.string) ?? .null, "device": occurrence.device.map(JSON.string) ?? .null])
                .serializedString()
        }
        try tx.execute("""
            INSERT INTO mail_outbox (
                kind, user_id, recipient, username, language, sealed_link, token_digest, link_expires_at, message_id,
                created_at, next_attempt_at, sign_in_changes, occurrence)
            VALUES (\(message.kind), \(message.userId), \(message.recipient), \(message.username), \(message.language),
                    \(sealedLink), \(message.tokenDigest), \(linkExpiresAt), \(messageId), \(now), \(now), \(signInChanges)::jsonb,
                    \(occurrence)::jsonb)
            """)
        return true
    }

    /// Seconds to wait after failed attempt number `attempt` (1 for the first delivery):
    /// `base`, doubling, at most ``maximumRetryDelay``.
    public static func retryDelay(attempt: Int, base: Int) -> Int {
        schedule(base: base).delay(attempt: attempt)
    }

    /// Leases up to `limit` due pending messages for `lease` seconds (``OutboxLease``: renewed
    /// while the sender works on them) and counts the attempt; oldest first.
    public func claim(limit: Int, lease seconds: Int = OutboxLease.duration) throws -> [StoredMessage] {
        try lease.claim(limit: limit, seconds: seconds).map(Self.message).sorted { $0.id < $1.id }
    }

    /// Makes claimed messages due at once (a sender stopping before it tried them), taking back
    /// the attempt their claim counted.
    public func release(ids: [Int64]) throws {
        try lease.release(ids: ids)
    }

    /// Marks a message delivered, forgetting its link.
    public func markSent(id: Int64) throws {
        try lease.markSent(id: id)
    }

    /// Records a failed attempt of a claimed message with `attempts` attempts (``OutboxLease/markFailed(id:attempts:error:permanent:schedule:)``):
    /// a message given up forgets its link.
    public func markFailed(id: Int64, attempts: Int, error: String, permanent: Bool, retryBase: Int) throws -> FailureOutcome {
        try lease.markFailed(id: id, attempts: attempts, error: error, permanent: permanent, schedule: Self.schedule(base: retryBase))
    }

    /// Seconds until the earliest pending message is due (0 if one is due now); nil when none is pending.
    public func secondsUntilNextDue() throws -> Double? {
        try lease.secondsUntilNextDue()
    }

    /// Pending messages and the age in seconds of the oldest (0 when none).
    public func pendingSummary() throws -> (count: Int, oldestAge: Double) {
        try lease.pendingSummary()
    }

    /// Whether a message's link still works, as the dev mailbox shows it.
    public enum LinkState: String, Sendable, Equatable {
        /// Unused and unexpired.
        case open
        /// A reset link used up, or a verification link whose address is verified.
        case used
        /// Past the time the link works.
        case expired
        /// Void though unused: a newer reset link replaced it, or the account's address changed.
        case void
        /// Unused, but the message was sent or given up, so its link is no longer kept.
        case notKept
    }

    /// A message as the dev mailbox lists it.
    public struct ListedMessage: Sendable, Equatable {
        public var message: StoredMessage
        /// Nil for kinds without a link.
        public var linkState: LinkState?
        /// Why the last attempt failed (no credentials, no content).
        public var lastError: String?

        public init(message: StoredMessage, linkState: LinkState?, lastError: String?) {
            self.message = message
            self.linkState = linkState
            self.lastError = lastError
        }
    }

    /// The newest `limit` messages, newest first, in any state, with whether each link still
    /// works (the dev mailbox).
    public func newest(limit: Int) throws -> [ListedMessage] {
        // Verification tokens stay until they expire (verifying twice is allowed), so a used one
        // is told by the verified address; a reset token is deleted when used or replaced.
        let result = try pool.withConnection(retry: .once) { connection in
            try connection.query("""
                SELECT \(sql: Self.returnedColumns), m.last_error,
                    CASE
                        WHEN m.token_digest IS NULL THEN NULL
                        WHEN m.link_expires_at <= now() THEN 'expired'
                        WHEN m.kind = 'verify_email' AND lower(t.email) = lower(u.email) AND u.email_verified THEN 'used'
                        WHEN m.kind = 'verify_email' AND (t.token_digest IS NULL OR lower(t.email) IS DISTINCT FROM lower(u.email))
                            THEN 'void'
                        WHEN t.token_digest IS NULL AND EXISTS (
                            SELECT 1 FROM mail_outbox n WHERE n.user_id = m.user_id AND n.kind = m.kind AND n.id > m.id
                              AND n.token_digest IS NOT NULL) THEN 'void'
                        WHEN t.token_digest IS NULL THEN 'used'
                        WHEN m.sealed_link IS NULL THEN 'notKept'
                        ELSE 'open'
                    END
                FROM mail_outbox m
                LEFT JOIN account_tokens t ON t.token_digest = m.token_digest
                LEFT JOIN users u ON u.object_id = t.user_id
                ORDER BY m.id DESC LIMIT \(limit)
                """)
        }
        return try result.map { row in
            ListedMessage(
                message: try Self.message(row),
                linkState: try row.decode(String?.self, at: 14).flatMap(LinkState.init(rawValue:)),
                lastError: try row.decode(String?.self, at: 13))
        }
    }

    private static let returnedColumns: StaticString = """
        m.id, m.kind, m.recipient, m.username, m.language, m.sealed_link, m.link_expires_at, m.message_id, m.created_at, \
        m.state, m.attempts, m.sign_in_changes::text, m.occurrence::text
        """

    private static func message(_ row: PostgresRow) throws -> StoredMessage {
        StoredMessage(
            id: try row.decode(Int64.self, at: 0), kind: try row.decode(String.self, at: 1),
            recipient: try row.decode(String.self, at: 2), username: try row.decode(String.self, at: 3),
            language: try row.decode(String.self, at: 4), sealedLink: try row.decode([UInt8]?.self, at: 5),
            linkExpiresAt: try row.decode(Date?.self, at: 6), messageId: try row.decode(String.self, at: 7),
            createdAt: try row.decode(Date.self, at: 8), state: try row.decode(String.self, at: 9),
            attempts: Int(try row.decode(Int32.self, at: 10)),
            signInChanges: signInChanges(try row.decode(String?.self, at: 11)),
            occurrence: occurrence(try row.decode(String?.self, at: 12), at: try row.decode(Date.self, at: 8)))
    }

    /// A security notice's `occurrence` value (`{"address", "device"}`), at its message's creation.
    static func occurrence(_ json: String?, at time: Date) -> NoticeOccurrence? {
        guard let json, let object = (try? JSON.parse(json))?.objectValue else { return nil }
        return NoticeOccurrence(at: time, address: object["address"]?.stringValue, device: object["device"]?.stringValue)
    }

    /// The changes of a `sign_in_changes` value (a JSON array of stored values), those this
    /// build knows; none for NULL.
    static func signInChanges(_ json: String?) -> [SignInChange] {
        guard let json, let values = (try? JSON.parse(json))?.arrayValue else { return [] }
        return values.compactMap { $0.stringValue.flatMap(SignInChange.init(storedValue:)) }
    }
}
