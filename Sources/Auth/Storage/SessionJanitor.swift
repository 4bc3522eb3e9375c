import Foundation
import Postgres

/// Deletes expired sessions (and, with an idle timeout, idle ones) in bounded batches, so that no
/// statement holds many row locks or runs long, and several instances can clean up at once
/// (`FOR UPDATE SKIP LOCKED`); likewise the log-in counts of windows that have ended, the
/// installations whose last session ended more than 30 days ago, reset and verification tokens
/// expired for a day, mail requests older than the hour the mail limit counts, and sent or given-up mail older than ``SessionJanitor/mailRetention`` (pending mail
/// stays until delivered or given up), and the OAuth provider's expired codes and the grants they
/// leave with neither a code nor a refresh token.
public struct SessionJanitor: Sendable {
    /// What one cleanup did.
    public struct Report: Sendable, Equatable {
        /// Sessions deleted.
        public var deleted: Int
        /// DELETE statements run on sessions.
        public var batches: Int
        /// Log-in counts of ended windows and installations no longer known, deleted.
        public var limitRowsDeleted: Int
        /// Expired account tokens and old sent or failed outbox rows, deleted.
        public var accountRowsDeleted: Int
        /// OAuth codes past their life and grants left with neither a code nor a refresh token, deleted.
        public var oauthRowsDeleted: Int

        /// A report.
        public init(deleted: Int, batches: Int, limitRowsDeleted: Int = 0, accountRowsDeleted: Int = 0, oauthRowsDeleted: Int = 0) {
            self.deleted = deleted
            self.batches = batches
            self.limitRowsDeleted = limitRowsDeleted
            self.accountRowsDeleted = accountRowsDeleted
            self.oauthRowsDeleted = oauthRowsDeleted
        }
    }

    /// Seconds a sent or given-up message is kept: an operator may want to look back a few days.
    public static let mailRetention: TimeInterval = 7 * 86400

    /// Seconds a delivered or given-up webhook delivery is kept after its event: the 3 days of
    /// retries, then 7 days to look back at.
    public static let webhookRetention: TimeInterval = 10 * 86400

    /// Seconds an expired reset or verification token is kept, to be answered as expired.
    public static let expiredLinkMemory: TimeInterval = 86400

    /// The pool the janitor borrows a connection from, once per batch.
    public let pool: Pool
    /// Most rows deleted per statement.
    public let batchSize: Int
    /// Seconds of non-use after which a session has expired (`GATEHOUSE_SESSION_IDLE_TIMEOUT`); 0: never.
    public let idleTimeout: Int

    /// A janitor deleting at most `batchSize` rows per statement.
    public init(pool: Pool, batchSize: Int = 1000, idleTimeout: Int = 0) {
        precondition(batchSize > 0 && idleTimeout >= 0)
        self.pool = pool
        self.batchSize = batchSize
        self.idleTimeout = idleTimeout
    }

    /// Deletes sessions that expired before `now` or (with an idle timeout) were last used that
    /// long before it, log-in counts of windows that ended before `now`, installations not known
    /// since 30 days before `now`, account tokens that expired ``expiredLinkMemory`` before `now`,
    /// mail requests of more than an hour ago and sent or given-up mail created ``mailRetention``
    /// before `now`, and OAuth codes that expired, and grants made, ``OAuthStore/staleAfter``
    /// before `now` (a grant only once it has neither a code nor a refresh token: an exchange that
    /// never came, or a grant without `offline_access` whose access tokens have all expired).
    @discardableResult
    public func deleteExpired(now: Date = Date()) throws -> Report {
        var sessions = try deleteInBatches("""
            DELETE FROM sessions WHERE object_id IN (
                SELECT object_id FROM sessions WHERE expires_at < \(now)
                ORDER BY expires_at LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
            """)
        if idleTimeout > 0 {
            // As SessionService ends an idle session: its installation stays known from now.
            let idle = try deleteInBatches("""
                WITH ended AS (
                    DELETE FROM sessions WHERE object_id IN (
                        SELECT object_id FROM sessions WHERE last_used_at <= \(now.addingTimeInterval(-Double(idleTimeout)))
                        ORDER BY last_used_at LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
                    RETURNING token_digest, user_id, installation_id, least(expires_at, \(now)) AS ends_at, false AS live, object_id),
                \(sql: SessionStore.endedSessions)
                """)
            sessions.deleted += idle.deleted
            sessions.batches += idle.batches
        }
        let attempts = try deleteInBatches("""
            DELETE FROM login_attempts WHERE ctid IN (
                SELECT ctid FROM login_attempts WHERE expires_at < \(now) LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
            """)
        let installations = try deleteInBatches("""
            DELETE FROM known_installations WHERE (user_id, installation_digest) IN (
                SELECT user_id, installation_digest FROM known_installations
                WHERE session_ends_at < \(now.addingTimeInterval(-UserStore.installationMemory))
                LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
            """)
        // An expired link is kept a day, so that it is answered as expired rather than unknown.
        let tokens = try deleteInBatches("""
            DELETE FROM account_tokens WHERE token_digest IN (
                SELECT token_digest FROM account_tokens WHERE expires_at < \(now.addingTimeInterval(-Self.expiredLinkMemory))
                LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
            """)
        // The hourly mail limit counts the last hour's requests only.
        let requests = try deleteInBatches("""
            DELETE FROM mail_requests WHERE ctid IN (
                SELECT ctid FROM mail_requests WHERE created_at < \(now.addingTimeInterval(-3600))
                LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
            """)
        let mail = try deleteInBatches("""
            DELETE FROM mail_outbox WHERE id IN (
                SELECT id FROM mail_outbox WHERE created_at < \(now.addingTimeInterval(-Self.mailRetention)) AND state <> 'pending'
                LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
            """)
        let webhooks = try deleteInBatches("""
            DELETE FROM webhook_outbox WHERE id IN (
                SELECT id FROM webhook_outbox WHERE created_at < \(now.addingTimeInterval(-Self.webhookRetention)) AND state <> 'pending'
                LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
            """)
        // OAuth: codes past their life and the grants left with nothing (OAuthStore.staleAfter).
        let staleOAuth = now.addingTimeInterval(-OAuthStore.staleAfter)
        let codes = try deleteInBatches("""
            DELETE FROM oauth_codes WHERE code_digest IN (
                SELECT code_digest FROM oauth_codes WHERE expires_at < \(staleOAuth)
                LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
            """)
        let grants = try deleteInBatches("""
            DELETE FROM oauth_grants WHERE grant_id IN (
                SELECT g.grant_id FROM oauth_grants g WHERE g.created_at < \(staleOAuth)
                  AND NOT EXISTS (SELECT 1 FROM oauth_codes c WHERE c.grant_id = g.grant_id)
                  AND NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens r WHERE r.grant_id = g.grant_id)
                LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
            """)
        return Report(
            deleted: sessions.deleted, batches: sessions.batches, limitRowsDeleted: attempts.deleted + installations.deleted,
            accountRowsDeleted: tokens.deleted + requests.deleted + mail.deleted + webhooks.deleted,
            oauthRowsDeleted: codes.deleted + grants.deleted)
    }

    /// Runs `statement` until it deletes fewer than `batchSize` rows.
    private func deleteInBatches(_ statement: PostgresQuery) throws -> (deleted: Int, batches: Int) {
        var deleted = 0, batches = 0
        while true {
            let count = try pool.withConnection(retry: .once) { connection in try connection.execute(statement) }
            deleted += count
            batches += 1
            if count < batchSize { return (deleted, batches) }
        }
    }
}
