import Foundation
import Postgres

/// The sessions a user can see and end, and their use: statements on the sessions table beyond
/// creating a session (``UserStore``) and looking one up by token (``UserStore/sessions(digests:)``).
///
/// A session is live while `expires_at` is after now and `last_used_at` after the idle cutoff
/// (now minus the idle timeout; `Date.distantPast` when there is none). Every deletion returns the
/// ended tokens' digests for the caller to drop from this instance's cache; the table's trigger
/// tells the other instances. A log-out or expiry keeps the ended sessions' installations known
/// (``endedSessions``, ``UserStore/installationMemory``); a revoke forgets them: an installation id
/// is the secret behind the owner's exemption from the log-in limits, and a device the user cut
/// off keeps no exemption.
struct SessionStore: Sendable {
    let pool: Pool

    /// The rest of a statement that starts with `WITH ended AS (DELETE FROM sessions … RETURNING
    /// token_digest, user_id, installation_id, ends_at, live, object_id)`: the ended sessions'
    /// installations stay known until the session's end (now, or its expiry if earlier), and it
    /// yields each ended session (``EndedSession``).
    static let endedSessions: StaticString = """
        remembered AS (
            UPDATE known_installations k SET session_ends_at = ended.ends_at
            FROM ended
            WHERE ended.installation_id IS NOT NULL AND k.user_id = ended.user_id
              AND k.installation_digest = sha256(convert_to(ended.installation_id, 'UTF8')))
        SELECT token_digest, live, object_id, user_id FROM ended
        """

    /// A session a statement ended (a row of ``endedSessions``).
    struct EndedSession {
        var digest: [UInt8]
        /// Whether it was live (as the statement's RETURNING list computed it).
        var live: Bool
        var objectId: String
        var userId: String
    }

    /// Decodes the rows of ``endedSessions``.
    private static func ended(_ rows: PostgresResult) throws -> [EndedSession] {
        try rows.map {
            EndedSession(
                digest: try $0.decode([UInt8].self, at: 0), live: try $0.decode(Bool.self, at: 1),
                objectId: try $0.decode(String.self, at: 2), userId: try $0.decode(String.self, at: 3))
        }
    }

    /// The user's live sessions, newest first.
    func liveSessions(userId: String, now: Date, idleCutoff: Date) throws -> [Session] {
        try pool.withConnection(retry: .once) { connection in
            try connection.query("""
                SELECT \(sql: UserStore.sessionColumns) FROM sessions s
                WHERE s.user_id = \(userId) AND s.expires_at > \(now) AND s.last_used_at > \(idleCutoff)
                ORDER BY s.created_at DESC, s.object_id
                """).map { try UserStore.session($0, from: 0) }
        }
    }

    /// The user's live session `objectId`, if any.
    func liveSession(objectId: String, userId: String, now: Date, idleCutoff: Date) throws -> Session? {
        try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst("""
                SELECT \(sql: UserStore.sessionColumns) FROM sessions s
                WHERE s.object_id = \(objectId) AND s.user_id = \(userId)
                  AND s.expires_at > \(now) AND s.last_used_at > \(idleCutoff)
                """).map { try UserStore.session($0, from: 0) }
        }
    }

    /// Deletes the session with this token digest (a log-out), with its `session.ended` in
    /// `events`; the digest if there was one.
    @discardableResult
    func delete(digest: [UInt8], now: Date, events: EventLog = EventLog()) throws -> [UInt8]? {
        let statement: PostgresQuery = """
            WITH ended AS (
                DELETE FROM sessions WHERE token_digest = \(digest)
                RETURNING token_digest, user_id, installation_id, least(expires_at, \(now)) AS ends_at, true AS live, object_id),
            \(sql: Self.endedSessions)
            """
        return try pool.withConnection(retry: .never) { connection in
            guard events.records(.sessionEnded) else { return try Self.ended(connection.query(statement)).first?.digest }
            return try connection.transaction { tx in
                let ended = try Self.ended(tx.query(statement))
                try events.record(ended.map { .sessionEnded(sessionId: $0.objectId, userId: $0.userId, reason: .logout, at: now) }, in: tx)
                return ended.first?.digest
            }
        }
    }

    /// Revokes the user's live session `objectId` and forgets its installation, with its
    /// `session.ended` in `events`; its token's digest, nil when there was none.
    func delete(objectId: String, userId: String, now: Date, idleCutoff: Date, events: EventLog = EventLog()) throws -> [UInt8]? {
        let statement: PostgresQuery = """
            WITH ended AS (
                DELETE FROM sessions
                WHERE object_id = \(objectId) AND user_id = \(userId)
                  AND expires_at > \(now) AND last_used_at > \(idleCutoff)
                RETURNING token_digest, user_id, installation_id
            ), forgotten AS (
                DELETE FROM known_installations k USING ended
                WHERE ended.installation_id IS NOT NULL AND k.user_id = ended.user_id
                  AND k.installation_digest = sha256(convert_to(ended.installation_id, 'UTF8')))
            SELECT token_digest FROM ended
            """
        return try pool.withConnection(retry: .never) { connection in
            guard events.records(.sessionEnded) else {
                return try connection.queryFirst(statement).map { try $0.decode([UInt8].self, at: 0) }
            }
            return try connection.transaction { tx in
                let digest = try tx.queryFirst(statement).map { try $0.decode([UInt8].self, at: 0) }
                if digest != nil {
                    try events.record(.sessionEnded(sessionId: objectId, userId: userId, reason: .revoked, at: now), in: tx)
                }
                return digest
            }
        }
    }

    /// Revokes every session of the user but `keeping` (expired and idle ones too) and forgets
    /// every installation of the user but that session's (``forgetInstallations(userId:keeping:on:)``),
    /// with a `session.ended` in `events` for each live one; the ended sessions.
    func deleteOthers(
        userId: String, keeping objectId: String, now: Date, idleCutoff: Date, events: EventLog = EventLog()
    ) throws -> [EndedSession] {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                try Self.forgetInstallations(userId: userId, keeping: objectId, on: tx)
                let ended = try Self.ended(tx.query("""
                    WITH ended AS (
                        DELETE FROM sessions WHERE user_id = \(userId) AND object_id <> \(objectId)
                        RETURNING token_digest, user_id, installation_id, least(expires_at, \(now)) AS ends_at,
                                  (expires_at > \(now) AND last_used_at > \(idleCutoff)) AS live, object_id),
                    \(sql: Self.endedSessions)
                    """))
                try events.record(
                    ended.filter(\.live).map { .sessionEnded(sessionId: $0.objectId, userId: userId, reason: .revoked, at: now) }, in: tx)
                return ended
            }
        }
    }

    /// Forgets every installation of the user but that of its session `keeping` (nil: all of
    /// them), whether or not its session is still live: after a revoke of all other sessions or a
    /// password change, no other device keeps the owner's exemption.
    static func forgetInstallations(userId: String, keeping objectId: String?, on tx: some PostgresQueryable) throws {
        try tx.execute("""
            DELETE FROM known_installations k
            WHERE k.user_id = \(userId)
              AND NOT EXISTS (SELECT 1 FROM sessions s
                              WHERE s.object_id = \(objectId) AND s.user_id = k.user_id AND s.installation_id IS NOT NULL
                                AND sha256(convert_to(s.installation_id, 'UTF8')) = k.installation_digest)
            """)
    }

    /// The sessions a change of the user's ends in its own transaction (``endSessions(_:userId:now:in:)``):
    /// all of them but `keeping` (nil: all).
    struct Ending: Sendable {
        var keeping: String?
    }

    /// In `tx`, ends the user's sessions that `ending` names and forgets every installation of the
    /// user but the kept session's (``forgetInstallations(userId:keeping:on:)``), as a revoke of
    /// the other sessions does: a password change or a second factor required of the account cuts
    /// the other devices off, and none keeps the owner's exemption. The caller drops the user's
    /// sessions from this instance's cache after the commit.
    /// Returns the ended sessions' objectIds (for their `session.ended` events).
    @discardableResult
    static func endSessions(_ ending: Ending, userId: String, now: Date, in tx: some PostgresQueryable) throws -> [String] {
        try forgetInstallations(userId: userId, keeping: ending.keeping, on: tx)
        return try ended(tx.query("""
            WITH ended AS (
                DELETE FROM sessions WHERE user_id = \(userId) AND object_id IS DISTINCT FROM \(ending.keeping)
                RETURNING token_digest, user_id, installation_id, least(expires_at, \(now)) AS ends_at, true AS live, object_id),
            \(sql: endedSessions)
            """)).map(\.objectId)
    }

    /// Sets `last_used_at` of each session (by objectId) to its time of use, unless it is already
    /// within `resolution` seconds of it (another instance wrote it, or an earlier use): the
    /// sessions' use, many in one statement. Returns the rows written.
    func recordUse(_ uses: [(objectId: String, at: Date)], resolution: TimeInterval) throws -> Int {
        try pool.withConnection(retry: .once) { connection in
            try connection.execute("""
                UPDATE sessions s SET last_used_at = u.at
                FROM unnest(\(PostgresArray(uses.map(\.objectId))), \(PostgresArray(uses.map(\.at)))) AS u(object_id, at)
                WHERE s.object_id = u.object_id AND s.last_used_at <= u.at - \(resolution) * interval '1 second'
                """)
        }
    }
}
