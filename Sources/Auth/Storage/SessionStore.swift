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

    /// Revokes the user's live session `objectId` and forgets its installation; its token's
    /// digest, nil when there was none.
    func delete(objectId: String, userId: String, now: Date, idleCutoff: Date) throws -> [UInt8]? {
        try pool.withConnection(retry: .never) { connection in
            try connection.queryFirst("""
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
                """).map { try $0.decode([UInt8].self, at: 0) }
        }
    }

    /// Revokes every session of the user but `keeping` (expired and idle ones too) and forgets
    /// every installation of the user but that session's (``forgetInstallations(userId:keeping:on:)``);
    /// the ended tokens' digests, each with whether its session was still live.
    func deleteOthers(userId: String, keeping objectId: String, now: Date, idleCutoff: Date) throws -> [(digest: [UInt8], live: Bool)] {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                try Self.forgetInstallations(userId: userId, keeping: objectId, on: tx)
                return try Self.ended(tx.query("""
                    WITH ended AS (
                        DELETE FROM sessions WHERE user_id = \(userId) AND object_id <> \(objectId)
                        RETURNING token_digest, user_id, installation_id, least(expires_at, \(now)) AS ends_at,
                                  (expires_at > \(now) AND last_used_at > \(idleCutoff)) AS live),
                    \(sql: Self.endedSessions)
                    """))
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
    static func endSessions(_ ending: Ending, userId: String, now: Date, in tx: some PostgresQueryable) throws {
        try forgetInstallations(userId: userId, keeping: ending.keeping, on: tx)
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
