import Foundation
import Postgres

/// Passkeys and WebAuthn challenges (migration 7), through parameterised statements on the pool.
struct PasskeyStore: Sendable {
    let pool: Pool

    /// What a ceremony's challenge was given out for.
    enum Purpose: String {
        case registration, authentication
    }

    /// A stored passkey with what verification needs.
    struct StoredPasskey {
        var passkey: Passkey
        var userId: String
        var credentialId: [UInt8]
        /// The COSE public key as registered.
        var publicKey: [UInt8]
        var signCount: UInt32
        var disabled: Bool
    }

    /// The credential id is registered already (a unique violation).
    struct CredentialTaken: Error {}

    private static let columns: StaticString =
        "object_id, user_id, credential_id, public_key, sign_count, name, created_at, last_used_at, disabled_at IS NOT NULL"
    /// ``columns`` of `passkeys p`.
    private static let prefixedColumns: StaticString = """
        p.object_id, p.user_id, p.credential_id, p.public_key, p.sign_count, p.name, p.created_at, p.last_used_at,
        p.disabled_at IS NOT NULL
        """

    /// Decodes ``columns`` starting at `column`.
    private static func passkey(_ row: PostgresRow, from column: Int = 0) throws(PostgresError) -> StoredPasskey {
        StoredPasskey(
            passkey: Passkey(
                objectId: try row.decode(String.self, at: column), name: try row.decode(String.self, at: column + 5),
                createdAt: try row.decode(Date.self, at: column + 6), lastUsedAt: try row.decode(Date?.self, at: column + 7)),
            userId: try row.decode(String.self, at: column + 1), credentialId: try row.decode([UInt8].self, at: column + 2),
            publicKey: try row.decode([UInt8].self, at: column + 3),
            signCount: UInt32(clamping: try row.decode(Int64.self, at: column + 4)),
            disabled: try row.decode(Bool.self, at: column + 8))
    }

    /// Stores a challenge's digest until `expiresAt`, and deletes some expired ones (challenges
    /// given out and never answered would otherwise stay).
    func insertChallenge(digest: [UInt8], userId: String?, purpose: Purpose, expiresAt: Date, now: Date) throws {
        try pool.withConnection(retry: .never) { connection in
            try connection.execute("""
                DELETE FROM webauthn_challenges WHERE digest IN
                    (SELECT digest FROM webauthn_challenges WHERE expires_at <= \(now) LIMIT 100)
                """)
            try connection.execute("""
                INSERT INTO webauthn_challenges (digest, user_id, purpose, expires_at)
                VALUES (\(digest), \(userId), \(purpose.rawValue), \(expiresAt))
                """)
        }
    }

    /// Takes (deletes) the unexpired challenge with this digest and purpose; the user it was
    /// given to (`.some(nil)`: none named), or nil when there is no such challenge. Of two
    /// concurrent takes of one challenge, exactly one finds it.
    func takeChallenge(digest: [UInt8], purpose: Purpose, now: Date) throws -> String?? {
        try pool.withConnection(retry: .never) { connection in
            try connection.queryFirst("""
                DELETE FROM webauthn_challenges
                WHERE digest = \(digest) AND purpose = \(purpose.rawValue) AND expires_at > \(now)
                RETURNING user_id
                """).map { try $0.decode(String?.self, at: 0) }
        }
    }

    /// A passkey log-in: the digest of the challenge its assertion signed, its credential id, and
    /// the session it is to start. Equal and hashed by the session's id, unique to each log-in.
    struct LogIn: Hashable, Sendable {
        var challengeDigest: [UInt8]
        var credentialId: [UInt8]
        var session: UserStore.NewSession

        static func == (a: Self, b: Self) -> Bool { a.session.session.objectId == b.session.session.objectId }
        func hash(into hasher: inout Hasher) { hasher.combine(session.session.objectId) }
    }

    /// What ``take(_:now:)`` found for a log-in: whether its challenge was taken and for whom,
    /// and the passkey of its credential id with its user.
    struct LogInLookup: Sendable {
        /// The user the challenge was given to (`.some(nil)`: none named); nil when the challenge
        /// was not given out, was used or expired.
        var challengeUser: String??
        var passkey: StoredPasskey?
        var user: User?
    }

    /// An assertion that passed its checks: the passkey's counter to move from `previous` to
    /// `signCount`, and the session to start for `userId` if it moves.
    struct CounterMove: Hashable, Sendable {
        var passkeyId: String
        var previous: UInt32
        var signCount: UInt32
        var userId: String
        var session: UserStore.NewSession
        /// The log-in's request (its `session.created` event).
        var request = AuthRequest(clientAddress: "")

        static func == (a: Self, b: Self) -> Bool { a.session.session.objectId == b.session.session.objectId }
        func hash(into hasher: inout Hasher) { hasher.combine(session.session.objectId) }
    }

    /// A passkey log-in is two batched statements (see ``LookupBatcher``), with the signature
    /// check between them on the caller's thread. This first one takes (deletes) the unexpired
    /// log-in challenges of every log-in in `logIns` and reads their passkeys and users. Each
    /// challenge is taken once: of two log-ins with one challenge, in one batch or in two, exactly
    /// one finds it. A taken challenge stays used whatever the check decides.
    func take(_ logIns: [LogIn], now: Date) throws -> [LogIn: LogInLookup] {
        let digests = PostgresArray(logIns.map(\.challengeDigest))
        let rows = try pool.withConnection(retry: .never) { connection in
            try connection.query("""
                WITH wanted AS (
                    SELECT * FROM unnest(\(digests), \(PostgresArray(logIns.map(\.credentialId))))
                        WITH ORDINALITY AS w(digest, credential_id, n)
                ), taken AS (
                    DELETE FROM webauthn_challenges
                    WHERE digest = ANY(\(digests)) AND purpose = \(Purpose.authentication.rawValue) AND expires_at > \(now)
                    RETURNING digest, user_id
                )
                SELECT w.n, t.digest IS NOT NULL, t.user_id, \(sql: Self.prefixedColumns), \(sql: UserStore.userColumns)
                FROM wanted w
                LEFT JOIN taken t ON t.digest = w.digest
                LEFT JOIN passkeys p ON p.credential_id = w.credential_id
                LEFT JOIN users u ON u.object_id = p.user_id
                ORDER BY w.n
                """)
        }
        var found: [LogIn: LogInLookup] = [:]
        var given = Set<[UInt8]>()
        for row in rows {
            let logIn = logIns[Int(try row.decode(Int64.self, at: 0)) - 1]
            let known = try row.decode(String?.self, at: 12) != nil
            // Two log-ins of one batch with the same challenge: the first has it.
            let taken = try row.decode(Bool.self, at: 1) && given.insert(logIn.challengeDigest).inserted
            found[logIn] = LogInLookup(
                challengeUser: taken ? .some(try row.decode(String?.self, at: 2)) : nil,
                passkey: known ? try Self.passkey(row, from: 3) : nil, user: known ? try UserStore.user(row, from: 12) : nil)
        }
        return found
    }

    /// The second statement: moves the counter of every passkey in `moves` by compare-and-set
    /// (from `previous`, not disabled) and starts the sessions of those that moved, replacing
    /// their users' sessions from the same installations; the log-ins that moved and got their session
    /// (not when the user was disabled or deleted meanwhile: ``UserStore/startSessions``) are in the result.
    /// A passkey or an installation id appears once per statement, so a second log-in with one
    /// passkey in a batch finds the counter moved and gets nothing.
    /// The sessions started go into `events` in the statement's transaction.
    func logIn(_ moves: [CounterMove], events: EventLog = EventLog()) throws -> Set<CounterMove> {
        var moved = Set<CounterMove>()
        let recording = events.records(.sessionCreated)
        let rounds = UserStore.rounds(moves) { ["passkey " + $0.passkeyId, $0.session.session.installationId.map { "installation " + $0 }] }
        for round in rounds {
            let winners = try pool.withConnection(retry: .never) { connection in
                guard recording || round.contains(where: { $0.session.session.installationId != nil }) else {
                    return try Self.moveCounters(round, on: connection)
                }
                return try connection.transaction { tx in
                    // As ``UserStore/startSession``: lock the users before their installations' sessions are replaced.
                    try tx.execute("""
                        SELECT 1 FROM users WHERE object_id = ANY(\(PostgresArray(round.map(\.userId)))) ORDER BY object_id FOR UPDATE
                        """)
                    let winners = try Self.moveCounters(round, on: tx)
                    try events.record(winners.map { AuthEvent.sessionCreated($0.session.session, userId: $0.userId, request: $0.request) }, in: tx)
                    return winners
                }
            }
            moved.formUnion(winners)
        }
        return moved
    }

    private static func moveCounters(_ moves: [CounterMove], on connection: some PostgresQueryable) throws -> [CounterMove] {
        let sessions = moves.map(\.session.session)
        let rows = try connection.query("""
            WITH wanted AS (
                SELECT * FROM unnest(
                    \(PostgresArray(moves.map(\.passkeyId))), \(PostgresArray(moves.map { Int64($0.previous) })),
                    \(PostgresArray(moves.map { Int64($0.signCount) })), \(PostgresArray(sessions.map(\.objectId))),
                    \(PostgresArray(moves.map(\.session.tokenDigest))), \(PostgresArray(sessions.map(\.installationId))),
                    \(PostgresArray(sessions.map(UserStore.createdWith(_:)))), \(PostgresArray(sessions.map(\.createdAt))),
                    \(PostgresArray(sessions.map(\.expiresAt))), \(PostgresArray(sessions.map(\.userAgent)))
                ) WITH ORDINALITY AS w(passkey_id, previous, sign_count, session_id, token_digest, installation_id,
                                       created_with, created_at, expires_at, user_agent, n)
            ), moved AS (
                UPDATE passkeys p SET sign_count = w.sign_count, last_used_at = w.created_at
                FROM wanted w
                WHERE p.object_id = w.passkey_id AND p.sign_count = w.previous AND p.disabled_at IS NULL
                RETURNING w.n, p.user_id
            ), granted AS (
                SELECT w.*, m.user_id, NULL::text AS checked_hash FROM wanted w JOIN moved m ON m.n = w.n
            ), \(sql: UserStore.startSessions)
            SELECT g.n FROM granted g WHERE g.session_id IN (SELECT session_id FROM added)
            """)
        return try rows.map { moves[Int(try $0.decode(Int64.self, at: 0)) - 1] }
    }

    /// Disables the passkey (its counter suggests a cloned authenticator).
    func disable(passkeyId: String, now: Date) throws {
        _ = try pool.withConnection(retry: .never) { connection in
            try connection.execute("UPDATE passkeys SET disabled_at = \(now) WHERE object_id = \(passkeyId) AND disabled_at IS NULL")
        }
    }

    /// The user whose username or email is `name` (ignoring case), if any.
    func user(logInName name: String) throws -> User? {
        try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst("""
                SELECT \(sql: UserStore.userColumns)
                FROM users u WHERE lower(u.username) = lower(\(name)) OR lower(u.email) = lower(\(name)) LIMIT 1
                """).map { try UserStore.user($0) }
        }
    }

    /// The user's passkeys, oldest first.
    func passkeys(userId: String) throws -> [StoredPasskey] {
        try pool.withConnection(retry: .once) { connection in
            try connection.query(
                "SELECT \(sql: Self.columns) FROM passkeys WHERE user_id = \(userId) ORDER BY created_at, object_id"
            ).map { try Self.passkey($0) }
        }
    }

    /// Stores a new passkey (`userVerified`: its registration verified the user, which makes it a
    /// second factor); ``CredentialTaken`` when its credential id is registered already. With
    /// `endingSessions`, those sessions of the user end in the same transaction. A guest's
    /// `anonymous` link goes with it: the passkey is the account's way in from now on.
    func insert(
        _ passkey: Passkey, userId: String, credentialId: [UInt8], publicKey: [UInt8], signCount: UInt32, userVerified: Bool,
        endingSessions: SessionStore.Ending?, events: EventLog = EventLog()
    ) throws {
        do {
            try pool.withConnection(retry: .never) { connection in
                try connection.transaction { tx in
                    try tx.execute("""
                        INSERT INTO passkeys (object_id, credential_id, user_id, public_key, sign_count, name, created_at, user_verified)
                        VALUES (\(passkey.objectId), \(credentialId), \(userId), \(publicKey), \(Int64(signCount)),
                                \(passkey.name), \(passkey.createdAt), \(userVerified))
                        """)
                    try UserStore.endGuestAccess(userId: userId, in: tx)
                    var happened = [AuthEvent.passkey(
                        added: true, passkeyId: passkey.objectId, name: passkey.name, userId: userId, at: passkey.createdAt)]
                    if let endingSessions {
                        let ended = try SessionStore.endSessions(endingSessions, userId: userId, now: passkey.createdAt, in: tx)
                        happened += ended.map { .sessionEnded(sessionId: $0, userId: userId, reason: .revoked, at: passkey.createdAt) }
                    }
                    try events.record(happened, in: tx)
                }
            }
        } catch let error as PostgresError where error.isUniqueViolation(constraint: AuthMigrations.Constraint.passkeyCredentialIdUnique) {
            throw CredentialTaken()
        }
    }

    /// Removes the user's passkey; whether there was one. ``AccountStore/LastWayToLogIn`` (and
    /// nothing removed) when the user would be left with no way to log in.
    func remove(objectId: String, userId: String, now: Date = Date(), events: EventLog = EventLog()) throws -> Bool {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                // Serialise with other removals of this user's ways to log in.
                _ = try tx.queryFirst("SELECT 1 FROM users WHERE object_id = \(userId) FOR UPDATE")
                guard let row = try tx.queryFirst(
                    "DELETE FROM passkeys WHERE object_id = \(objectId) AND user_id = \(userId) RETURNING name") else {
                    return false
                }
                guard try UserStore.hasWayToLogIn(userId: userId, in: tx) else { throw AccountStore.LastWayToLogIn() }
                try events.record(
                    .passkey(added: false, passkeyId: objectId, name: try row.decode(String.self, at: 0), userId: userId, at: now), in: tx)
                return true
            }
        }
    }
}
