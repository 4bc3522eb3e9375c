import Foundation
import JSON
import Postgres

/// The users and sessions tables, through parameterised statements on the pool.
/// Uniqueness is the database's job (unique indexes); violations map to domain errors.
struct UserStore: Sendable {
    let pool: Pool

    /// A user row with what log-in needs besides the public fields.
    struct Credentials {
        var user: User
        /// Nil for users made by a third-party provider, who have no password.
        var passwordHash: String?
    }

    /// A new session and its token's digest (the token itself is never stored).
    struct NewSession {
        var session: Session
        var tokenDigest: [UInt8]
    }

    /// The session columns, selected in this order (from `s`): see ``session(_:from:)``.
    static let sessionColumns: StaticString = """
        s.object_id, s.created_at, s.updated_at, s.expires_at, s.last_used_at, s.installation_id,
        s.created_with->>'action', s.created_with->>'authProvider', s.user_agent, (s.created_with->'factors')::text
        """

    /// Decodes ``sessionColumns`` starting at `column`.
    static func session(_ row: PostgresRow, from column: Int) throws(PostgresError) -> Session {
        Session(
            objectId: try row.decode(String.self, at: column), createdAt: try row.decode(Date.self, at: column + 1),
            updatedAt: try row.decode(Date.self, at: column + 2), expiresAt: try row.decode(Date.self, at: column + 3),
            lastUsedAt: try row.decode(Date.self, at: column + 4), installationId: try row.decode(String?.self, at: column + 5),
            action: try row.decode(String?.self, at: column + 6) ?? "login",
            authProvider: try row.decode(String?.self, at: column + 7) ?? "password",
            userAgent: try row.decode(String?.self, at: column + 8),
            factors: try row.decode(String?.self, at: column + 9).flatMap(factors(json:)))
    }

    /// `created_with`'s `factors` (a JSON array of strings); nil for sessions stored without one.
    static func factors(json: String) -> [String]? {
        guard let array = (try? JSON.parse(json))?.arrayValue else { return nil }
        let names = array.compactMap(\.stringValue)
        return names.count == array.count && !names.isEmpty ? names : nil
    }

    /// The public user columns of `u`, in the order ``user(_:from:)`` decodes them.
    static let userColumns: StaticString = """
        u.object_id, u.username, u.email, u.email_verified, u.acl::text, u.created_at, u.updated_at,
        u.display_name, u.photo_url, u.custom_fields::text, u.disabled_at IS NOT NULL, u.disabled_reason
        """

    /// How many columns ``userColumns`` are: the first column a statement selects after them.
    static let userColumnCount = 12

    /// Decodes the public user columns, selected in this order (``userColumns``):
    /// `u.object_id, u.username, u.email, u.email_verified, u.acl::text, u.created_at, u.updated_at,
    /// u.display_name, u.photo_url, u.custom_fields::text, u.disabled_at IS NOT NULL, u.disabled_reason`.
    static func user(_ row: PostgresRow, from column: Int = 0) throws(PostgresError) -> User {
        User(
            objectId: try row.decode(String.self, at: column), username: try row.decode(String.self, at: column + 1),
            email: try row.decode(String?.self, at: column + 2), emailVerified: try row.decode(Bool.self, at: column + 3),
            acl: ACL(jsonText: try row.decode(String.self, at: column + 4)),
            createdAt: try row.decode(Date.self, at: column + 5), updatedAt: try row.decode(Date.self, at: column + 6),
            displayName: try row.decode(String?.self, at: column + 7), photoURL: try row.decode(String?.self, at: column + 8),
            fields: customFields(json: try row.decode(String.self, at: column + 9)),
            disabled: try row.decode(Bool.self, at: column + 10), disabledReason: try row.decode(String?.self, at: column + 11))
    }

    /// The `custom_fields` object from its JSON text (`{}` without parsing: most users have none).
    /// Its values came through GraphQL input, whose nesting the document and request limits keep
    /// far below this parser's depth.
    static func customFields(json: String) -> JSONObject {
        guard json != "{}", let object = (try? JSON.parse(json, maxDepth: 512))?.objectValue else { return [:] }
        return object
    }

    /// `fields` as the `custom_fields` column's JSON.
    static func customFieldsJSON(_ fields: JSONObject) -> PostgresJSON {
        PostgresJSON(JSON.object(fields).serializedString())
    }

    /// Whether `name` logs an account in: some user's username or email (case-insensitively).
    func logInNameTaken(_ name: String) throws -> Bool {
        try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst(
                "SELECT 1 FROM users WHERE lower(username) = lower(\(name)) OR lower(email) = lower(\(name)) LIMIT 1") != nil
        }
    }

    /// A new user's username or email that already logs another account in.
    enum NameConflict: Error {
        case username
        case email
    }

    /// Inserts the user and its first session in one transaction. Its username and email must
    /// not log another account in (``NameConflict``): the unique indexes cover each column, and
    /// a lock per log-in name serialises the sign-ups that could shadow each other across them.
    /// `also` runs last in the same transaction (the verification mail of a sign-up).
    func insert(_ user: User, passwordHash: String?, session: NewSession?, also: (Transaction) throws -> Void = { _ in }) throws {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                let names = Set([user.username.lowercased()] + (user.email.map { [$0.lowercased()] } ?? [])).sorted()
                for name in names {
                    try tx.execute("SELECT pg_advisory_xact_lock(hashtext(\(name)))")
                }
                if try tx.queryFirst("SELECT 1 FROM users WHERE lower(email) = lower(\(user.username))") != nil {
                    throw NameConflict.username
                }
                if let email = user.email,
                    try tx.queryFirst("SELECT 1 FROM users WHERE lower(username) = lower(\(email))") != nil
                {
                    throw NameConflict.email
                }
                try tx.execute("""
                    INSERT INTO users (object_id, username, email, password_hash, email_verified, acl, created_at, updated_at,
                                       display_name, photo_url, custom_fields)
                    VALUES (\(user.objectId), \(user.username), \(user.email), \(passwordHash), \(user.emailVerified),
                            \(user.acl.jsonText)::jsonb, \(user.createdAt), \(user.updatedAt),
                            \(user.displayName), \(user.photoURL), \(Self.customFieldsJSON(user.fields)))
                    """)
                if let session { try Self.insertSession(session, userId: user.objectId, on: tx) }
                try also(tx)
            }
        }
    }

    /// What `logIn` learns in its one round trip: the account a name logs in (its username,
    /// else its email, both compared case-insensitively), this attempt counted against it.
    struct LogInAttempt {
        var credentials: Credentials
        var count: AttemptCount
        /// The account's sealed TOTP secret; nil when it has none.
        var sealedTOTPSecret: [UInt8]?
    }

    /// The account `name` logs in, with this attempt counted against it (``countAttempt``), in
    /// one statement.
    ///
    /// The counts live in `login_attempts` (and, with lockout, the user's row), written with
    /// `synchronous_commit` off: the commit waits for no disk flush and no standby, so an existing
    /// account's attempt costs about what an unknown name's (a plain read) does, and the counts
    /// still reach the WAL and the standbys (a crash or failover loses at most the last fraction of
    /// a second of them).
    func logInAttempt(name: String, attempt: Attempt) throws -> LogInAttempt? {
        try pool.withConnection(retry: .never) { connection in try connection.transaction { tx in
            try tx.execute("SET LOCAL synchronous_commit TO off")
            guard let row = try tx.queryFirst("""
                WITH attempt AS (\(attemptRow: attempt)), found AS (
                    SELECT \(sql: Self.userColumns), u.password_hash, u.lockout_until
                    FROM users u
                    WHERE lower(u.username) = lower(\(name)) OR lower(u.email) = lower(\(name))
                    ORDER BY (lower(u.username) = lower(\(name))) DESC
                    LIMIT 1 \(sql: Self.rowLock(attempt))
                ), \(sql: Self.countAttempt)
                SELECT found.*, \(sql: Self.attemptColumns),
                       (SELECT t.sealed_secret FROM user_totp t WHERE t.user_id = found.object_id)
                FROM found, judged
                """) else { return nil }
            let user = try Self.user(row)
            return LogInAttempt(
                credentials: Credentials(user: user, passwordHash: try row.decode(String?.self, at: Self.userColumnCount)),
                count: try Self.attemptCount(row, from: Self.userColumnCount + 2, userId: user.objectId, attempt: attempt),
                sealedTOTPSecret: try row.decode([UInt8]?.self, at: Self.userColumnCount + 7))
        } }
    }

    /// How long an installation's last session of a user keeps it known (the owner's exemption).
    static let installationMemory: TimeInterval = 30 * 24 * 3600

    /// The distinct kinds of the stored password hashes, as `gatehouse_password_hash_kind` cuts
    /// them (hashes of formats not verified here have none). One probe of its index per kind: each
    /// step of the recursion finds the least kind above the one before.
    func hashKindPrefixes() throws -> [String] {
        try pool.withConnection(retry: .once) { connection in
            try connection.query("""
                WITH RECURSIVE kinds (kind) AS (
                    (SELECT gatehouse_password_hash_kind(password_hash) FROM users
                     WHERE gatehouse_password_hash_kind(password_hash) IS NOT NULL ORDER BY 1 LIMIT 1)
                    UNION ALL
                    SELECT (SELECT gatehouse_password_hash_kind(u.password_hash) FROM users u
                            WHERE gatehouse_password_hash_kind(u.password_hash) > k.kind ORDER BY 1 LIMIT 1)
                    FROM kinds k WHERE k.kind IS NOT NULL
                )
                SELECT kind FROM kinds WHERE kind IS NOT NULL
                """).map { try $0.decode(String.self, at: 0) }
        }
    }

    /// How ``completeLogIn`` ended.
    enum Completion: Equatable {
        /// The session was made.
        case started
        /// None was made: the user was disabled since the log-in read it.
        case disabled
        /// None was made: the password checked is no longer the user's (a reset or change that
        /// ended the sessions committed meanwhile), or the user is gone.
        case passwordChanged
        /// None was made, nor the rehash written: the hash checked was replaced before it (by a
        /// reset or change, or by another log-in's rehash of the same password). `current` is
        /// the user's hash now, for the log-in to check its password against once more.
        case hashReplaced(current: String)
    }

    /// After a good password (`checkedHash`, the hash it was checked against; nil for a log-in
    /// without one): store a rehash if any, clear the failed attempts (the log-in's own lockout
    /// reservation among them) and lockout, unless `keepLockout` (the owner let in past a
    /// lockout, or a log-in without a password, leaves them for everyone else), and create the
    /// session, replacing the user's sessions with the same installation id; `session.created`
    /// goes into `events` with it (`request` is the log-in's). No session when the user was
    /// disabled, or its password changed, since the log-in read it (``startSessions``).
    func completeLogIn(
        userId: String, checkedHash: String?, rehash: String?, keepLockout: Bool = false, session: NewSession, now: Date,
        events: EventLog, request: AuthRequest
    ) throws -> Completion {
        try pool.withConnection(retry: .never) { connection in
            // Nothing to update, no installation's session to replace, no event: the insert alone.
            if rehash == nil, keepLockout, session.session.installationId == nil, !events.records(.sessionCreated) {
                if try Self.insertSession(session, userId: userId, checkedHash: checkedHash, on: connection) { return .started }
                return try Self.refusal(userId: userId, on: connection)
            }
            return try connection.transaction { tx -> Completion in
                if let rehash {
                    // Only over the hash checked: never over a password a reset set meanwhile.
                    let replaced = try tx.execute("""
                        UPDATE users SET password_hash = \(rehash), updated_at = \(now),
                            failed_login_count = CASE WHEN \(keepLockout) THEN failed_login_count ELSE 0 END,
                            lockout_until = CASE WHEN \(keepLockout) THEN lockout_until END
                        WHERE object_id = \(userId) AND password_hash = \(checkedHash)
                        """) == 1
                    if !replaced {
                        let current = try tx.queryFirst("SELECT password_hash FROM users WHERE object_id = \(userId)")?
                            .decode(String?.self, at: 0)
                        return current.map { .hashReplaced(current: $0) } ?? .passwordChanged
                    }
                } else if !keepLockout {
                    try tx.execute("""
                        UPDATE users SET failed_login_count = 0, lockout_until = NULL
                        WHERE object_id = \(userId) AND (failed_login_count <> 0 OR lockout_until IS NOT NULL)
                        """)
                }
                guard try Self.startSession(session, userId: userId, checkedHash: rehash ?? checkedHash, in: tx) else {
                    return try Self.refusal(userId: userId, on: tx)
                }
                try events.record(.sessionCreated(session.session, userId: userId, request: request), in: tx)
                return .started
            }
        }
    }

    /// Why ``startSessions`` made no session for the user: disabled, or its password changed (or it is gone).
    private static func refusal(userId: String, on connection: some PostgresQueryable) throws -> Completion {
        let disabled = try connection.queryFirst("SELECT disabled_at IS NOT NULL FROM users WHERE object_id = \(userId)")
        return try disabled?.decode(Bool.self, at: 0) == true ? .disabled : .passwordChanged
    }

    /// Starts the session in `tx`, replacing the user's session with the same installation id, if
    /// any: the user's row is locked first so that a concurrent log-in's new session is committed
    /// (and so visible to the delete) or not yet inserted.
    static func startSession(_ session: NewSession, userId: String, checkedHash: String?, in tx: Transaction) throws -> Bool {
        if session.session.installationId != nil {
            _ = try tx.queryFirst("SELECT 1 FROM users WHERE object_id = \(userId) FOR UPDATE")
        }
        return try insertSession(session, userId: userId, checkedHash: checkedHash, on: tx)
    }

    /// A session's `created_with` document (how it was made: Parse's `action` and `authProvider`,
    /// and the factors it was made with).
    static func createdWith(_ session: Session) -> String {
        String(decoding: JSON.object([
            "action": .string(session.action), "authProvider": .string(session.authProvider),
            "factors": .array(session.factors.map(JSON.string)),
        ]).serialized(), as: UTF8.self)
    }

    /// Inserts the session through ``startSessions``. A session with an installation id replaces
    /// the user's others from that installation: lock the user first (``startSession``). Whether
    /// it was made: not when the user was disabled or deleted meanwhile, or its password is no
    /// longer `checkedHash` (the hash a log-in by password checked).
    @discardableResult
    static func insertSession(_ new: NewSession, userId: String, checkedHash: String? = nil, on tx: some PostgresQueryable) throws -> Bool {
        let session = new.session
        return try tx.queryFirst("""
            WITH granted AS (
                SELECT \(session.objectId)::text AS session_id, \(new.tokenDigest)::bytea AS token_digest,
                       \(userId)::text AS user_id, \(session.installationId)::text AS installation_id,
                       \(createdWith(session))::text AS created_with, \(session.createdAt)::timestamptz AS created_at,
                       \(session.expiresAt)::timestamptz AS expires_at, \(session.userAgent)::text AS user_agent,
                       \(checkedHash)::text AS checked_hash
            ), \(sql: startSessions)
            SELECT EXISTS (SELECT 1 FROM added)
            """)?.decode(Bool.self, at: 0) ?? false
    }

    /// The tail of every statement that makes sessions. For each row of the statement's CTE
    /// `granted` (`session_id, token_digest, user_id, installation_id, created_with` as JSON text,
    /// `created_at, expires_at, user_agent, checked_hash`): deletes the user's sessions with the
    /// same installation id, inserts the session, and remembers its installation for the user
    /// until the session ends (the owner's exemption from the log-in limits). The delete sees the
    /// sessions committed before the statement began: a statement whose rows have installation ids
    /// runs after locking their users, and has no two rows with one installation id.
    ///
    /// Only for users that exist, are not disabled and, for a log-in by password, still have the
    /// password hash it checked (`checked_hash`; NULL for the others) (`live`), whose rows it
    /// key-share-locks (as the sessions' foreign key does anyway). A log-in checks these long
    /// before this statement (the hook, the second factor), and an operator's `disableUser` or a
    /// password reset or change in between ends the user's sessions. Those lock the row for
    /// update, which conflicts with that lock and with no ordinary update of the user. Either one
    /// of them locked first, and `live` waits for it and then sees the user disabled or its new
    /// password, so no session is made; or this statement locked first, and it waits for this
    /// commit and then ends the session with the others. (Without it the session would outlive
    /// the disabling, and work again after `enableUser`, or outlive the reset.) `added` returns the
    /// sessions made.
    static let startSessions: StaticString = """
        live AS (
            SELECT u.object_id FROM granted g JOIN users u ON u.object_id = g.user_id
            WHERE u.disabled_at IS NULL AND (g.checked_hash IS NULL OR g.checked_hash = u.password_hash)
            ORDER BY u.object_id FOR KEY SHARE OF u
        ), replaced AS (
            DELETE FROM sessions s USING granted g
            WHERE g.installation_id IS NOT NULL AND s.user_id = g.user_id AND s.installation_id = g.installation_id
              AND g.user_id IN (SELECT object_id FROM live)
        ), added AS (
            INSERT INTO sessions (object_id, token_digest, user_id, installation_id, created_with, expires_at,
                                  created_at, updated_at, last_used_at, user_agent)
            SELECT session_id, token_digest, user_id, installation_id, created_with::jsonb, expires_at,
                   created_at, created_at, created_at, user_agent
            FROM granted WHERE user_id IN (SELECT object_id FROM live)
            RETURNING object_id AS session_id, user_id, installation_id, expires_at
        ), known AS (
            INSERT INTO known_installations (user_id, installation_digest, session_ends_at)
            SELECT user_id, sha256(convert_to(installation_id, 'UTF8')), expires_at FROM added WHERE installation_id IS NOT NULL
            ON CONFLICT (user_id, installation_digest) DO UPDATE SET session_ends_at = excluded.session_ends_at
        )
        """

    /// `items` split into statements ("rounds") in which no two share a key of `keys` (nil keys
    /// never clash). Items with a key keep their order: each goes in a later round than the item
    /// before it with any of its keys.
    static func rounds<T>(_ items: [T], keys: (T) -> [String?]) -> [[T]] {
        var rounds: [[T]] = []
        var lastRound: [String: Int] = [:]
        for item in items {
            let itemKeys = keys(item).compactMap { $0 }
            let round = itemKeys.map { lastRound[$0].map { $0 + 1 } ?? 0 }.max() ?? 0
            if round == rounds.count { rounds.append([]) }
            rounds[round].append(item)
            for key in itemKeys { lastRound[key] = round }
        }
        return rounds
    }

    /// A session found by its token digest, and its user.
    struct StoredSession: Sendable {
        var session: Session
        var user: User
    }

    /// The sessions with these token digests and their users, by digest (digests with no
    /// session are absent): the viewer lookup, for many concurrent requests in one statement.
    ///
    /// One index lookup per digest, whatever the planner thinks of the tables: the `LIMIT 1`
    /// (the digest is unique) keeps the lateral subquery from being flattened into a join.
    /// Written as `token_digest = ANY($1)`, the generic plan may scan `sessions` and hash
    /// `users` instead (it does while the tables are small). A disabled user's sessions are
    /// absent: one started by a log-in that raced the disabling never answers.
    func sessions(digests: [[UInt8]]) throws -> [[UInt8]: StoredSession] {
        try pool.withConnection(retry: .once) { connection in try Self.sessions(digests: digests, on: connection) }
    }

    /// ``sessions(digests:)`` on `connection` (the primary's, or a standby's: ``StandbyReads``).
    static func sessions(digests: [[UInt8]], on connection: Connection) throws -> [[UInt8]: StoredSession] {
        let rows = try connection.query("""
            SELECT found.* FROM unnest(\(PostgresArray(digests))) AS wanted(digest) CROSS JOIN LATERAL (
                SELECT \(sql: Self.userColumns), s.token_digest, \(sql: Self.sessionColumns)
                FROM sessions s JOIN users u ON u.object_id = s.user_id
                WHERE s.token_digest = wanted.digest AND u.disabled_at IS NULL LIMIT 1) AS found
            """)
        var found: [[UInt8]: StoredSession] = [:]
        found.reserveCapacity(rows.count)
        for row in rows {
            found[try row.decode([UInt8].self, at: Self.userColumnCount)] = StoredSession(
                session: try Self.session(row, from: Self.userColumnCount + 1), user: try Self.user(row))
        }
        return found
    }
}
