import Foundation
import Postgres

/// The sessions a user can see and end, and their use: statements on the sessions table beyond
/// creating a session (``UserStore``) and looking one up by token (``UserStore/sessions(digests:)``).
///
/// A session is live while `expires_at` is after now and `last_used_at` after the idle cutoff
/// (now minus the idle timeout; `Date.distantPast` when there is none). Every deletion goes
/// through ``endedSessions``, which keeps the ended sessions' installations known
/// (``UserStore/installationMemory``) and returns the ended tokens' digests for the caller to drop
/// from this instance's cache; the table's trigger tells the other instances.
struct SessionStore: Sendable {
    let pool: Pool

    /// The rest of a statement that starts with `WITH ended AS (DELETE FROM sessions … RETURNING
    /// \(sql: endedColumns))`: the ended sessions' installations stay known until the session's
    /// end (now, or its expiry if earlier), and it yields each ended token's digest and whether
    /// that session was live (as the RETURNING list computed it).
    static let endedSessions: StaticString = """
        remembered AS (
            UPDATE known_installations k SET session_ends_at = ended.ends_at
            FROM ended
            WHERE ended.installation_id IS NOT NULL AND k.user_id = ended.user_id
              AND k.installation_digest = sha256(convert_to(ended.installation_id, 'UTF8')))
        SELECT token_digest, live FROM ended
        """

    /// Decodes a row of ``endedSessions``: the ended token's digest and whether it was live.
    private static func ended(_ rows: PostgresResult) throws -> [(digest: [UInt8], live: Bool)] {
        try rows.map { (try $0.decode([UInt8].self, at: 0), try $0.decode(Bool.self, at: 1)) }
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

    /// Deletes the session with this token digest; the digest if there was one.
    @discardableResult
    func delete(digest: [UInt8], now: Date) throws -> [UInt8]? {
        try pool.withConnection(retry: .never) { connection in
            try Self.ended(connection.query("""
                WITH ended AS (
                    DELETE FROM sessions WHERE token_digest = \(digest)
                    RETURNING token_digest, user_id, installation_id, least(expires_at, \(now)) AS ends_at, true AS live),
                \(sql: Self.endedSessions)
                """)).first?.digest
        }
    }

    /// Deletes the user's live session `objectId`; its token's digest, nil when there was none.
    func delete(objectId: String, userId: String, now: Date, idleCutoff: Date) throws -> [UInt8]? {
        try pool.withConnection(retry: .never) { connection in
            try Self.ended(connection.query("""
                WITH ended AS (
                    DELETE FROM sessions
                    WHERE object_id = \(objectId) AND user_id = \(userId)
                      AND expires_at > \(now) AND last_used_at > \(idleCutoff)
                    RETURNING token_digest, user_id, installation_id, least(expires_at, \(now)) AS ends_at, true AS live),
                \(sql: Self.endedSessions)
                """)).first?.digest
        }
    }

    /// Deletes every session of the user but `keeping` (expired and idle ones too); the ended
    /// tokens' digests, each with whether its session was still live.
    func deleteOthers(userId: String, keeping objectId: String, now: Date, idleCutoff: Date) throws -> [(digest: [UInt8], live: Bool)] {
        try pool.withConnection(retry: .never) { connection in
            try Self.ended(connection.query("""
                WITH ended AS (
                    DELETE FROM sessions WHERE user_id = \(userId) AND object_id <> \(objectId)
                    RETURNING token_digest, user_id, installation_id, least(expires_at, \(now)) AS ends_at,
                              (expires_at > \(now) AND last_used_at > \(idleCutoff)) AS live),
                \(sql: Self.endedSessions)
                """))
        }
    }

    /// The sessions a change of the user's ends in its own transaction (``endSessions(_:userId:now:in:)``):
    /// all of them but `keeping` (nil: all).
    struct Ending: Sendable {
        var keeping: String?
    }

    /// In `tx`, ends the user's sessions that `ending` names, as a log-out ends one. The caller
    /// drops the user's sessions from this instance's cache after the commit.
    static func endSessions(_ ending: Ending, userId: String, now: Date, in tx: some PostgresQueryable) throws {
        _ = try tx.query("""
            WITH ended AS (
                DELETE FROM sessions WHERE user_id = \(userId) AND object_id IS DISTINCT FROM \(ending.keeping)
                RETURNING token_digest, user_id, installation_id, least(expires_at, \(now)) AS ends_at, true AS live),
            \(sql: endedSessions)
            """)
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
