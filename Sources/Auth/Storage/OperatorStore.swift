import Foundation
import Postgres

/// What operators do to a user beside reading it: disable and enable the account and end its
/// sessions. Ending sessions deletes their rows, whose trigger tells every instance's session
/// cache; disabling also changes `disabled_at`, whose trigger drops the user's cached sessions.
struct OperatorStore: Sendable {
    let pool: Pool
    /// Where each change is recorded (webhooks, the audit log), in its transaction.
    let events: EventLog

    /// Marks the user disabled (keeping the first time it was, with the latest reason), ends all
    /// of its sessions and forgets its installations, and runs `also` (the notice) in the same
    /// transaction; the user as it is now, nil when there is no such user.
    func disable(userId: String, reason: String?, now: Date, also: (User, Transaction) throws -> Void) throws -> User? {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                // Locked for update first: a log-in's session waits for this, or this for it
                // (``UserStore/startSessions``), so none is made after the sessions end below.
                guard let row = try tx.queryFirst("""
                    WITH locked AS (SELECT object_id FROM users WHERE object_id = \(userId) FOR UPDATE)
                    UPDATE users u SET disabled_at = coalesce(u.disabled_at, \(now)), disabled_reason = \(reason)
                    FROM locked WHERE u.object_id = locked.object_id
                    RETURNING \(sql: UserStore.userColumns)
                    """) else { return nil }
                let user = try UserStore.user(row)
                let ended = try SessionStore.endSessions(SessionStore.Ending(keeping: nil), userId: userId, now: now, in: tx)
                try events.record(
                    [.userDisabled(userId: userId, reason: reason, at: now)]
                        + ended.map { .sessionEnded(sessionId: $0, userId: userId, reason: .revoked, at: now) },
                    in: tx)
                try also(user, tx)
                return user
            }
        }
    }

    /// Clears the user's disabled mark and reason; the user, nil when there is no such user.
    func enable(userId: String, now: Date) throws -> User? {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                guard let row = try tx.queryFirst("""
                    UPDATE users u SET disabled_at = NULL, disabled_reason = NULL
                    WHERE u.object_id = \(userId)
                    RETURNING \(sql: UserStore.userColumns)
                    """) else { return nil }
                try events.record(.userEnabled(userId: userId, at: now), in: tx)
                return try UserStore.user(row)
            }
        }
    }

    /// Ends every session of the user and forgets its installations; how many of the sessions
    /// were live, nil when there is no such user.
    func endSessions(userId: String, now: Date, idleCutoff: Date) throws -> Int? {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                guard try tx.queryFirst("SELECT 1 FROM users WHERE object_id = \(userId) FOR UPDATE") != nil else { return nil }
                try SessionStore.forgetInstallations(userId: userId, keeping: nil, on: tx)
                let ended = try tx.query("""
                    DELETE FROM sessions WHERE user_id = \(userId)
                    RETURNING object_id, expires_at > \(now) AND last_used_at > \(idleCutoff) AS live
                    """).map { (sessionId: try $0.decode(String.self, at: 0), live: try $0.decode(Bool.self, at: 1)) }
                try events.record(ended.map { .sessionEnded(sessionId: $0.sessionId, userId: userId, reason: .revoked, at: now) }, in: tx)
                return ended.count { $0.live }
            }
        }
    }

    /// Starts `session` for the user unless it is disabled (locking its row, so that a disabling
    /// committed meanwhile is seen); the user, nil when there is no such user.
    func startSession(_ session: UserStore.NewSession, userId: String, reason: String?, request: AuthRequest) throws -> User? {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                guard let row = try tx.queryFirst(
                    "SELECT \(sql: UserStore.userColumns) FROM users u WHERE u.object_id = \(userId) FOR UPDATE")
                else { return nil }
                let user = try UserStore.user(row)
                if !user.disabled {
                    try UserStore.insertSession(session, userId: userId, on: tx)
                    try events.record(
                        .sessionCreated(session.session, userId: userId, request: request),
                        .sessionImpersonated(sessionId: session.session.objectId, userId: userId, reason: reason, at: session.session.createdAt),
                        in: tx)
                }
                return user
            }
        }
    }
}
