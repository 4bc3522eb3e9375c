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

    /// What a log-in's first statement found: whether its challenge was taken and for whom, and
    /// the passkey of its credential id with its user.
    struct LogInLookup {
        /// The user the challenge was given to (`.some(nil)`: none named); nil when the challenge
        /// was not given out, was used or expired.
        var challengeUser: String??
        var passkey: StoredPasskey?
        var user: User?
    }

    /// What a log-in's check decided, to be written in its transaction.
    enum LogInDecision {
        /// Move the passkey's counter from `previous` to `signCount` (compare-and-set) and, if it
        /// moved, insert the session.
        case logIn(passkeyId: String, previous: UInt32, signCount: UInt32, userId: String, session: UserStore.NewSession)
        /// Disable the passkey: its counter suggests a cloned authenticator.
        case disable(passkeyId: String)
        /// Write nothing more.
        case refuse
    }

    /// A passkey log-in's reads and writes in one transaction, so they cost one commit: takes
    /// (deletes) the unexpired log-in challenge with `challengeDigest` (of two concurrent takes of
    /// one challenge, exactly one finds it) and, in the same statement, reads the passkey with
    /// `credentialId` and its user; lets `decide` check the assertion against them; then writes
    /// what it decided. It commits whatever was decided, so a refused assertion's challenge stays
    /// used. Whether a session was inserted (a concurrent log-in may have moved the counter first).
    func logIn(
        challengeDigest: [UInt8], credentialId: [UInt8], now: Date, decide: (LogInLookup) -> LogInDecision
    ) throws -> Bool {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                let row = try tx.queryFirst("""
                    WITH taken AS (
                        DELETE FROM webauthn_challenges
                        WHERE digest = \(challengeDigest) AND purpose = \(Purpose.authentication.rawValue) AND expires_at > \(now)
                        RETURNING user_id)
                    SELECT t.taken, t.user_id, \(sql: Self.prefixedColumns), \(sql: UserStore.userColumns)
                    FROM (SELECT count(*) > 0 AS taken, max(user_id) AS user_id FROM taken) t
                    LEFT JOIN passkeys p ON p.credential_id = \(credentialId)
                    LEFT JOIN users u ON u.object_id = p.user_id
                    """)
                var found = LogInLookup()
                if let row {
                    let known = try row.decode(String?.self, at: 11) != nil
                    found = LogInLookup(
                        challengeUser: try row.decode(Bool.self, at: 0) ? .some(try row.decode(String?.self, at: 1)) : nil,
                        passkey: known ? try Self.passkey(row, from: 2) : nil, user: known ? try UserStore.user(row, from: 11) : nil)
                }
                switch decide(found) {
                case .logIn(let passkeyId, let previous, let signCount, let userId, let session):
                    guard try tx.execute("""
                        UPDATE passkeys SET sign_count = \(Int64(signCount)), last_used_at = \(now)
                        WHERE object_id = \(passkeyId) AND sign_count = \(Int64(previous)) AND disabled_at IS NULL
                        """) == 1
                    else { return false }
                    try UserStore.startSession(session, userId: userId, now: now, in: tx)
                    return true
                case .disable(let passkeyId):
                    try tx.execute("UPDATE passkeys SET disabled_at = \(now) WHERE object_id = \(passkeyId) AND disabled_at IS NULL")
                    return false
                case .refuse:
                    return false
                }
            }
        }
    }

    /// The user whose username or email is `name` (ignoring case), if any.
    func user(logInName name: String) throws -> User? {
        try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst("""
                SELECT u.object_id, u.username, u.email, u.email_verified, u.acl::text, u.created_at, u.updated_at
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

    /// Stores a new passkey; ``CredentialTaken`` when its credential id is registered already.
    func insert(_ passkey: Passkey, userId: String, credentialId: [UInt8], publicKey: [UInt8], signCount: UInt32) throws {
        do {
            try pool.withConnection(retry: .never) { connection in
                try connection.execute("""
                    INSERT INTO passkeys (object_id, credential_id, user_id, public_key, sign_count, name, created_at)
                    VALUES (\(passkey.objectId), \(credentialId), \(userId), \(publicKey), \(Int64(signCount)),
                            \(passkey.name), \(passkey.createdAt))
                    """)
            }
        } catch let error as PostgresError where error.isUniqueViolation(constraint: AuthMigrations.Constraint.passkeyCredentialIdUnique) {
            throw CredentialTaken()
        }
    }

    /// Removes the user's passkey; whether there was one. ``AccountStore/LastWayToLogIn`` (and
    /// nothing removed) when the user would be left with no way to log in.
    func remove(objectId: String, userId: String) throws -> Bool {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                // Serialise with other removals of this user's ways to log in.
                _ = try tx.queryFirst("SELECT 1 FROM users WHERE object_id = \(userId) FOR UPDATE")
                guard try tx.queryFirst("DELETE FROM passkeys WHERE object_id = \(objectId) AND user_id = \(userId) RETURNING 1") != nil else {
                    return false
                }
                guard try UserStore.hasWayToLogIn(userId: userId, in: tx) else { throw AccountStore.LastWayToLogIn() }
                return true
            }
        }
    }
}
