import Foundation
import Postgres

/// Users' TOTP second factors and recovery codes (`user_totp`, `user_recovery_codes`,
/// migration 6). Every code is used up by a conditional write, so of two concurrent uses of
/// one code exactly one finds its row to change.
struct TOTPStore: Sendable {
    let pool: Pool

    /// A user's enrolment: the sealed secret and the newest step whose code was accepted.
    struct Enrolment {
        var sealedSecret: [UInt8]
        var lastStep: Int64
    }

    /// The user's enrolment, if any.
    func enrolment(userId: String) throws -> Enrolment? {
        try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst("SELECT sealed_secret, last_step FROM user_totp WHERE user_id = \(userId)").map {
                Enrolment(sealedSecret: try $0.decode([UInt8].self, at: 0), lastStep: try $0.decode(Int64.self, at: 1))
            }
        }
    }

    /// Enrols the user (replacing an earlier enrolment and its recovery codes) with the code of
    /// `step` already used, and these recovery code digests. With `upgradeSession`, that session
    /// of the user now counts the second factor among its factors (it has just proved it). With
    /// `endingSessions`, those sessions of the user end in the same transaction.
    func enrol(
        userId: String, sealedSecret: [UInt8], step: Int64, recoveryDigests: [[UInt8]],
        upgradeSession: (objectId: String, factors: String)?, endingSessions: SessionStore.Ending?, now: Date,
        events: EventLog = EventLog()
    ) throws {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                try tx.execute("""
                    INSERT INTO user_totp (user_id, sealed_secret, last_step, created_at)
                    VALUES (\(userId), \(sealedSecret), \(step), \(now))
                    ON CONFLICT (user_id) DO UPDATE SET
                        sealed_secret = excluded.sealed_secret, last_step = excluded.last_step, created_at = excluded.created_at
                    """)
                try Self.replaceRecoveryCodes(userId: userId, digests: recoveryDigests, in: tx)
                if let upgradeSession {
                    try tx.execute("""
                        UPDATE sessions SET created_with = created_with || jsonb_build_object('factors', \(upgradeSession.factors)::jsonb)
                        WHERE object_id = \(upgradeSession.objectId) AND user_id = \(userId)
                        """)
                }
                var happened = [AuthEvent.mfa(enabled: true, userId: userId, at: now)]
                if let endingSessions {
                    let ended = try SessionStore.endSessions(endingSessions, userId: userId, now: now, in: tx)
                    happened += ended.map { .sessionEnded(sessionId: $0, userId: userId, reason: .revoked, at: now) }
                }
                try events.record(happened, in: tx)
            }
        }
    }

    /// Takes the code of `step`: true when the user is enrolled and no code of this step or a
    /// later one was accepted before (then none can be again).
    func takeStep(userId: String, step: Int64) throws -> Bool {
        try pool.withConnection(retry: .never) { connection in
            try connection.queryFirst(
                "UPDATE user_totp SET last_step = \(step) WHERE user_id = \(userId) AND last_step < \(step) RETURNING 1") != nil
        }
    }

    /// Uses up the recovery code with this digest: true when the user had it.
    func takeRecoveryCode(userId: String, digest: [UInt8]) throws -> Bool {
        try pool.withConnection(retry: .never) { connection in
            try connection.queryFirst(
                "DELETE FROM user_recovery_codes WHERE user_id = \(userId) AND code_digest = \(digest) RETURNING 1") != nil
        }
    }

    /// Replaces the user's recovery codes; false when the user is not enrolled.
    func replaceRecoveryCodes(userId: String, digests: [[UInt8]]) throws -> Bool {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                guard try tx.queryFirst("SELECT 1 FROM user_totp WHERE user_id = \(userId) FOR UPDATE") != nil else { return false }
                try Self.replaceRecoveryCodes(userId: userId, digests: digests, in: tx)
                return true
            }
        }
    }

    /// Removes the user's enrolment and recovery codes, with `mfa.disabled` in `events`; whether there was one.
    func remove(userId: String, now: Date = Date(), events: EventLog = EventLog()) throws -> Bool {
        let statement: PostgresQuery = "DELETE FROM user_totp WHERE user_id = \(userId) RETURNING 1"
        return try pool.withConnection(retry: .never) { connection in
            guard events.records(.mfaDisabled) else { return try connection.queryFirst(statement) != nil }
            return try connection.transaction { tx in
                guard try tx.queryFirst(statement) != nil else { return false }
                try events.record(.mfa(enabled: false, userId: userId, at: now), in: tx)
                return true
            }
        }
    }

    /// The second factors a user has, by factor name (`totp`, and `passkey` once per passkey that
    /// verified its user at registration and is not disabled; a passkey that proves possession
    /// alone is no second factor). The one place that tells whether a user has a second factor: a
    /// new kind adds its own `UNION ALL` branch here.
    func secondFactors(userId: String) throws -> [String] {
        try pool.withConnection(retry: .once) { connection in
            try connection.query("""
                SELECT 'totp' FROM user_totp WHERE user_id = \(userId)
                UNION ALL
                SELECT 'passkey' FROM passkeys WHERE user_id = \(userId) AND user_verified AND disabled_at IS NULL
                """).map { try $0.decode(String.self, at: 0) }
        }
    }

    private static func replaceRecoveryCodes(userId: String, digests: [[UInt8]], in tx: Transaction) throws {
        try tx.execute("DELETE FROM user_recovery_codes WHERE user_id = \(userId)")
        try tx.execute("""
            INSERT INTO user_recovery_codes (user_id, code_digest)
            SELECT \(userId), digest FROM unnest(\(PostgresArray(digests))) AS codes(digest)
            """)
    }
}
