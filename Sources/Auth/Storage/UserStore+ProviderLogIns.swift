import Foundation
import Postgres

/// Provider log-ins of users already linked, many per statement: the identity lookup and the
/// new session's insert are one statement for every log-in waiting (see ``ProviderService`` and
/// ``LookupBatcher``), so a busy server pays one round trip and one commit for dozens of them.
extension UserStore {
    /// A log-in waiting for its batch: the provider id to find and the session to give its user.
    /// Equal and hashed by the new session's id, unique to each log-in.
    struct ProviderLogIn: Hashable, Sendable {
        var provider: String
        var providerUserId: String
        var session: NewSession
        /// The log-in's request (its `session.created` event).
        var request: AuthRequest

        static func == (a: Self, b: Self) -> Bool { a.session.session.objectId == b.session.session.objectId }
        func hash(into hasher: inout Hasher) { hasher.combine(session.session.objectId) }
    }

    /// The user a log-in's provider id is linked to. `withheldForTOTP`: the user has TOTP, so no
    /// session was made; it holds the sealed secret to check the log-in's code with.
    /// `sessionStarted`: the log-in's session was inserted (false: withheld, for TOTP, for an
    /// unverified email, or because an operator disabled the user, whose `disabled` says so).
    struct LinkedUser: Sendable {
        var user: User
        var withheldForTOTP: [UInt8]?
        var sessionStarted: Bool
    }

    /// For each log-in whose provider id is linked to a user, inserts its session (replacing the
    /// user's sessions with the same installation id) and returns the user; log-ins of ids linked
    /// to no one are absent and insert nothing. With `withholdingTOTP` (second factors on), a user
    /// with TOTP gets no session here: the caller checks the code first. With
    /// `withholdingUnverified` (`GATEHOUSE_VERIFY_EMAILS=required`), neither does a user whose
    /// email is not verified: the caller refuses it after any code.
    ///
    /// Log-ins from one installation go into separate statements, in order, so that each replaces
    /// the one before. With `withholdingAll` (a `beforeLogIn` hook), no log-in gets a session
    /// here: the caller calls the hook first. The sessions started go into `events` in the
    /// statement's transaction.
    ///
    /// A batch with installation ids first locks its users, as `completeLogIn`
    /// does, so that a concurrent log-in's session is committed before this one's delete looks for
    /// it. A user deleted while its log-in waits fails the statement (its session's foreign key):
    /// the batch then runs again and finds that user no longer.
    func logIn(
        _ logIns: [ProviderLogIn], withholdingTOTP: Bool, withholdingUnverified: Bool, withholdingAll: Bool = false,
        events: EventLog = EventLog()
    ) throws -> [ProviderLogIn: LinkedUser] {
        var found: [ProviderLogIn: LinkedUser] = [:]
        for round in Self.rounds(logIns, keys: { [$0.session.session.installationId] }) {
            for attempt in 1...3 {
                do {
                    for (logIn, user) in try run(round, withholdingTOTP, withholdingUnverified, withholdingAll, events) {
                        found[logIn] = user
                    }
                    break
                } catch let error as PostgresError where error.sqlState == SQLState.foreignKeyViolation && attempt < 3 {
                    continue
                }
            }
        }
        return found
    }

    private func run(
        _ logIns: [ProviderLogIn], _ withholdingTOTP: Bool, _ withholdingUnverified: Bool, _ withholdingAll: Bool, _ events: EventLog
    ) throws -> [(ProviderLogIn, LinkedUser)] {
        let recording = !withholdingAll && events.records(.sessionCreated)
        let replacing = logIns.contains { $0.session.session.installationId != nil }
        return try pool.withConnection(retry: .never) { connection in
            guard recording || replacing else {
                return try Self.insertSessions(logIns, withholdingTOTP, withholdingUnverified, withholdingAll, on: connection)
            }
            return try connection.transaction { tx in
                // Only an installation's replaced session needs its user locked; the events need
                // no lock of the users (``EventLog/record(_:in:)`` orders a user's events itself).
                if replacing {
                    try tx.execute("""
                        SELECT 1 FROM unnest(\(PostgresArray(logIns.map(\.provider))), \(PostgresArray(logIns.map(\.providerUserId))))
                            AS wanted(provider, provider_user_id)
                        JOIN user_identities i ON i.provider = wanted.provider AND i.provider_user_id = wanted.provider_user_id
                        JOIN users u ON u.object_id = i.user_id
                        ORDER BY u.object_id FOR UPDATE OF u
                        """)
                }
                let found = try Self.insertSessions(logIns, withholdingTOTP, withholdingUnverified, withholdingAll, on: tx)
                try events.record(
                    found.filter(\.1.sessionStarted).map { AuthEvent.sessionCreated($0.0.session.session, userId: $0.1.user.objectId, request: $0.0.request) },
                    in: tx)
                return found
            }
        }
    }

    /// The one statement: finds each log-in's user, deletes the sessions its installation had,
    /// inserts its session and remembers its installation, and returns the users found.
    private static func insertSessions(
        _ logIns: [ProviderLogIn], _ withholdingTOTP: Bool, _ withholdingUnverified: Bool, _ withholdingAll: Bool,
        on connection: some PostgresQueryable
    ) throws -> [(ProviderLogIn, LinkedUser)] {
        let sessions = logIns.map(\.session.session)
        let rows = try connection.query("""
            WITH wanted AS (
                SELECT * FROM unnest(
                    \(PostgresArray(logIns.map(\.provider))), \(PostgresArray(logIns.map(\.providerUserId))),
                    \(PostgresArray(sessions.map(\.objectId))), \(PostgresArray(logIns.map(\.session.tokenDigest))),
                    \(PostgresArray(sessions.map(\.installationId))), \(PostgresArray(sessions.map(createdWith(_:)))),
                    \(PostgresArray(sessions.map(\.createdAt))), \(PostgresArray(sessions.map(\.expiresAt))),
                    \(PostgresArray(sessions.map(\.userAgent)))
                ) WITH ORDINALITY AS w(provider, provider_user_id, session_id, token_digest, installation_id, created_with,
                                       created_at, expires_at, user_agent, n)
            ), found AS (
                SELECT w.*, u.object_id AS user_id, u.username, u.email, u.email_verified, u.acl::text AS acl,
                       u.created_at AS user_created_at, u.updated_at AS user_updated_at,
                       u.display_name, u.photo_url, u.custom_fields::text AS custom_fields,
                       u.disabled_at IS NOT NULL AS disabled, u.disabled_reason,
                       CASE WHEN \(withholdingTOTP) THEN t.sealed_secret END AS withheld,
                       (\(withholdingUnverified) AND u.email IS NOT NULL AND NOT u.email_verified) AS unverified,
                       NULL::text AS checked_hash
                FROM wanted w
                JOIN user_identities i ON i.provider = w.provider AND i.provider_user_id = w.provider_user_id
                JOIN users u ON u.object_id = i.user_id
                LEFT JOIN user_totp t ON t.user_id = u.object_id
            ), granted AS (
                SELECT * FROM found WHERE withheld IS NULL AND NOT unverified AND NOT disabled AND NOT \(withholdingAll)
            ), \(sql: startSessions)
            SELECT n, user_id, username, email, email_verified, acl, user_created_at, user_updated_at,
                   display_name, photo_url, custom_fields,
                   -- granted, yet no session: disabled since the statement's snapshot (startSessions' lock)
                   disabled OR (session_id IN (SELECT session_id FROM granted) AND session_id NOT IN (SELECT session_id FROM added)),
                   disabled_reason, withheld, session_id IN (SELECT session_id FROM added)
            FROM found
            """)
        return try rows.map { row in
            (logIns[Int(try row.decode(Int64.self, at: 0)) - 1],
             LinkedUser(
                user: try user(row, from: 1), withheldForTOTP: try row.decode([UInt8]?.self, at: 1 + userColumnCount),
                sessionStarted: try row.decode(Bool.self, at: 2 + userColumnCount)))
        }
    }
}
