import Foundation
import JSON
import Postgres

/// The OAuth provider's tables (migration 15): registered clients, grants with their codes and
/// refresh tokens, and consents. Codes and tokens are looked up by their SHA-256 digest. A grant
/// belongs to a session and goes with it (ON DELETE CASCADE), so every way a session ends ends its
/// grants in the same statement; a password change also ends the grants of the session it keeps
/// (``endGrants(userId:in:)``).
struct OAuthStore: Sendable {
    let pool: Pool
    /// Where a session that a reused refresh token ends is recorded (`session.ended`, revoked).
    var events = EventLog()

    // MARK: Clients

    /// The registered client `clientId`, if any.
    func client(id clientId: String) throws -> OAuthClient? {
        try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst("""
                SELECT client_id, secret_digest, redirect_uris::text, name FROM oauth_clients WHERE client_id = \(clientId)
                """).map(Self.client)
        }
    }

    /// Every registered client, oldest first.
    func clients() throws -> [(client: OAuthClient, createdAt: Date)] {
        try pool.withConnection(retry: .once) { connection in
            try connection.query("""
                SELECT client_id, secret_digest, redirect_uris::text, name, created_at FROM oauth_clients ORDER BY created_at, client_id
                """).map { (try Self.client($0), try $0.decode(Date.self, at: 4)) }
        }
    }

    private static func client(_ row: PostgresRow) throws -> OAuthClient {
        let uris = (try? JSON.parse(try row.decode(String.self, at: 2)))?.arrayValue?.compactMap(\.stringValue) ?? []
        return OAuthClient(
            clientId: try row.decode(String.self, at: 0), secretDigest: try row.decode([UInt8]?.self, at: 1), redirectURIs: uris,
            name: try row.decode(String.self, at: 3), scopes: OAuthPolicy.knownScopes, firstParty: false, registered: true)
    }

    /// Stores a registered client.
    func register(_ client: OAuthClient, at time: Date) throws {
        let uris = PostgresJSON(JSON.array(client.redirectURIs.map(JSON.string)).serializedString())
        try pool.withConnection(retry: .never) { connection in
            _ = try connection.execute("""
                INSERT INTO oauth_clients (client_id, secret_digest, redirect_uris, name, created_at)
                VALUES (\(client.clientId), \(client.secretDigest), \(uris), \(client.name), \(time))
                """)
        }
    }

    /// Deletes the registered client `clientId` with every grant it holds and every user's
    /// consent to it, in one transaction; whether there was such a client.
    func deleteClient(id clientId: String) throws -> Bool {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                guard try tx.execute("DELETE FROM oauth_clients WHERE client_id = \(clientId)") > 0 else { return false }
                try tx.execute("DELETE FROM oauth_grants WHERE client_id = \(clientId)")
                try tx.execute("DELETE FROM oauth_consents WHERE client_id = \(clientId)")
                return true
            }
        }
    }

    // MARK: Grants

    /// What a code or refresh token was issued for: its grant, the user and the session.
    struct GrantRecord: Sendable {
        var grantId: String
        var clientId: String
        var scopes: [String]
        var resource: String?
        var user: User
        var session: Session
        /// The authorization request's `nonce` (codes only).
        var nonce: String?
    }

    /// `g` (grant) columns, then the user's (as ``UserStore/userColumns``) and the session's.
    private static let grantColumns: StaticString = """
        g.grant_id, g.client_id, g.scopes, g.resource,
        u.object_id, u.username, u.email, u.email_verified, u.acl::text, u.created_at, u.updated_at,
        u.display_name, u.photo_url, u.custom_fields::text, u.disabled_at IS NOT NULL, u.disabled_reason,
        s.object_id, s.created_at, s.updated_at, s.expires_at, s.last_used_at, s.installation_id,
        s.created_with->>'action', s.created_with->>'authProvider', s.user_agent, (s.created_with->'factors')::text
        """

    /// The grant of ``grantColumns`` at `column` on.
    private static func grant(_ row: PostgresRow, from column: Int = 0, nonce: String? = nil) throws -> GrantRecord {
        GrantRecord(
            grantId: try row.decode(String.self, at: column), clientId: try row.decode(String.self, at: column + 1),
            scopes: try row.decode(String.self, at: column + 2).split(separator: " ").map(String.init),
            resource: try row.decode(String?.self, at: column + 3), user: try UserStore.user(row, from: column + 4),
            session: try UserStore.session(row, from: column + 4 + UserStore.userColumnCount), nonce: nonce)
    }

    /// A new code: its digest and what the authorization request bound it to.
    struct NewCode: Sendable {
        var digest: [UInt8]
        var grantId: String
        var clientId: String
        var userId: String
        var sessionId: String
        var scopes: [String]
        var resource: String?
        var redirectURI: String
        var challenge: String
        var nonce: String?
        var expiresAt: Date
        /// Scopes to record as consented for the user and client (nil: none to record).
        var consent: [String]?
        /// The notice to send when the consent is the user's first to this client (nil: none).
        var consentNotice: OutboxStore.Message?
    }

    /// Stores a code and its grant, and the consent it carries, in one transaction; a consent that
    /// is the user's first to the client adds its notice to the outbox (within `mail`'s hourly
    /// share). False when the session ended meanwhile (the grant's reference to it fails).
    func insert(_ code: NewCode, at time: Date, mail: AccountStore.MailContext) throws -> Bool {
        do {
            return try pool.withConnection(retry: .never) { connection in
                try connection.transaction { tx in
                    let scopes = code.scopes.joined(separator: " ")
                    guard try tx.queryFirst("""
                        INSERT INTO oauth_grants (grant_id, client_id, user_id, session_id, scopes, resource, created_at)
                        SELECT \(code.grantId), \(code.clientId), s.user_id, s.object_id, \(scopes), \(code.resource), \(time)
                        FROM sessions s WHERE s.object_id = \(code.sessionId) AND s.user_id = \(code.userId)
                        RETURNING 1
                        """) != nil else { return false }
                    try tx.execute("""
                        INSERT INTO oauth_codes (code_digest, grant_id, redirect_uri, code_challenge, nonce, expires_at)
                        VALUES (\(code.digest), \(code.grantId), \(code.redirectURI), \(code.challenge), \(code.nonce), \(code.expiresAt))
                        """)
                    try Self.deleteStaleCodes(userId: code.userId, before: time.addingTimeInterval(-Self.staleAfter), in: tx)
                    if let consent = code.consent {
                        // xmax is 0 on a row this statement inserted, not on one it updated.
                        let first = try tx.queryFirst("""
                            INSERT INTO oauth_consents (user_id, client_id, scopes, granted_at)
                            VALUES (\(code.userId), \(code.clientId), \(consent.joined(separator: " ")), \(time))
                            ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at
                            RETURNING xmax = 0
                            """).map { try $0.decode(Bool.self, at: 0) } ?? false
                        if first, let notice = code.consentNotice { try AccountStore.send(notice, context: mail, in: tx) }
                    }
                    return true
                }
            }
        } catch let error as PostgresError where error.sqlState == "23503" {
            return false  // the session went between the select and the insert
        }
    }

    /// What presenting a code found.
    enum Redemption: Sendable {
        /// No such code, or expired, or for another client, redirect URI or verifier.
        case refused(String)
        /// Used before: its grant, and everything issued from it, is gone.
        case reused
        /// Its session has ended, expired or gone idle.
        case sessionEnded
        /// Good: the code is used up; `refreshDigest` (if the decision gave one) is stored.
        case issued(GrantRecord)
    }

    /// Redeems the code with this digest for `clientId` at `redirectURI` with the S256 challenge of
    /// the presented verifier, in one transaction: a code presented twice ends its grant (OAuth 2.1
    /// §4.1.3: what the first use issued is revoked); one for another client, URI or verifier, or
    /// expired, is refused and stays as it is. `refreshToken` decides, from the grant, the digest of
    /// the refresh token to issue with it (nil: none).
    func redeem(
        digest: [UInt8], clientId: String, redirectURI: String, challenge: String, now: Date, idleCutoff: Date,
        refreshToken: (GrantRecord) -> [UInt8]?
    ) throws -> Redemption {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                guard let row = try tx.queryFirst("""
                    SELECT \(sql: Self.grantColumns), c.redirect_uri, c.code_challenge, c.nonce, c.expires_at, c.used_at
                    FROM oauth_codes c JOIN oauth_grants g ON g.grant_id = c.grant_id
                    JOIN users u ON u.object_id = g.user_id JOIN sessions s ON s.object_id = g.session_id
                    WHERE c.code_digest = \(digest)
                    FOR UPDATE OF c
                    """) else { return .refused("The code is unknown, or its grant has ended.") }
                let base = 4 + UserStore.userColumnCount + 10
                let record = try Self.grant(row, nonce: try row.decode(String?.self, at: base + 2))
                guard record.clientId == clientId else { return .refused("The code was issued to another client.") }
                if try row.decode(Date?.self, at: base + 4) != nil {
                    try tx.execute("DELETE FROM oauth_grants WHERE grant_id = \(record.grantId)")
                    return .reused
                }
                guard try row.decode(Date.self, at: base + 3) > now else { return .refused("The code has expired.") }
                guard try row.decode(String.self, at: base) == redirectURI else {
                    return .refused("redirect_uri is not the one the code was issued for.")
                }
                guard try row.decode(String.self, at: base + 1) == challenge else {
                    return .refused("code_verifier does not match the code_challenge.")
                }
                guard record.session.expiresAt > now, record.session.lastUsedAt > idleCutoff else { return .sessionEnded }
                try tx.execute("UPDATE oauth_codes SET used_at = \(now) WHERE code_digest = \(digest)")
                if let refresh = refreshToken(record) {
                    try tx.execute("""
                        INSERT INTO oauth_refresh_tokens (token_digest, grant_id, created_at) VALUES (\(refresh), \(record.grantId), \(now))
                        """)
                }
                return .issued(record)
            }
        }
    }

    /// What presenting a refresh token found.
    enum Rotation: Sendable {
        case unknown
        /// Issued to another client.
        case wrongClient
        /// Used before: the session it came from, and with it every grant of that session, has
        /// ended; the session token's digest, for the session cache.
        case reused(sessionTokenDigest: [UInt8]?)
        case sessionEnded
        /// Good: the token is used up and `next` stored in its place.
        case rotated(GrantRecord)
    }

    /// A refresh token presented at the token endpoint, waiting for its batch (``rotate(_:useResolution:)``):
    /// its digest, the client presenting it, the digest of the token to issue in its place, and
    /// the request's time and idle cutoff. Equal and hashed by `next`, unique to each request.
    struct RefreshRotation: Hashable, Sendable {
        var digest: [UInt8]
        var clientId: String
        var next: [UInt8]
        var now: Date
        var idleCutoff: Date

        static func == (a: Self, b: Self) -> Bool { a.next == b.next }
        func hash(into hasher: inout Hasher) { hasher.combine(next) }
    }

    /// Exchanges each presented refresh token for its `next`, for every request waiting in one
    /// statement (and commit), without a transaction around it. A token's row is claimed by an
    /// update that checks it is still unused on the row's latest version, so of two presentations
    /// of one token, in one batch or in two concurrent ones, exactly one rotates and the other is
    /// a reuse (within a batch the earlier request rotates). A reuse ends the session its grant
    /// came from (and so the whole chain), forgetting the session's installation as a revoke does:
    /// a second statement, run only when a batch has a reuse. A rotation counts as a use of the
    /// session. A grant ended while its batch ran fails the statement (a foreign key, or a deadlock
    /// with the cascade): the batch then runs again and finds that token no longer.
    func rotate(_ rotations: [RefreshRotation], useResolution: Double) throws -> [RefreshRotation: Rotation] {
        for attempt in 1...3 {
            do {
                return try rotateOnce(rotations, useResolution: useResolution)
            } catch let error as PostgresError
                where (error.sqlState == SQLState.foreignKeyViolation || error.sqlState == SQLState.deadlockDetected) && attempt < 3 {
                continue
            }
        }
        preconditionFailure("unreachable: the third attempt returns or throws")
    }

    /// What the rotating statement decided for a request, before the update's recheck.
    private enum RotationState: String {
        case wrongClient = "wrong_client", reused, sessionEnded = "session_ended", rotate
    }

    private func rotateOnce(_ rotations: [RefreshRotation], useResolution: Double) throws -> [RefreshRotation: Rotation] {
        // Columns: whether it rotated, then found's: n (1), next, now, state (4), the token's digest
        // and use, the grant's client and id, the session's id (9), expiry and last use, then
        // ``grantColumns`` (12).
        let rows = try pool.withConnection(retry: .never) { connection in
            try connection.query("""
                WITH wanted AS (
                    SELECT * FROM unnest(
                        \(PostgresArray(rotations.map(\.digest))), \(PostgresArray(rotations.map(\.clientId))),
                        \(PostgresArray(rotations.map(\.next))), \(PostgresArray(rotations.map(\.now))),
                        \(PostgresArray(rotations.map(\.idleCutoff)))
                    ) WITH ORDINALITY AS w(digest, client_id, next, now, idle_cutoff, n)
                ), found AS (
                    SELECT w.n, w.next, w.now,
                        CASE WHEN f.grant_client_id <> w.client_id THEN 'wrong_client'
                             WHEN f.token_used_at IS NOT NULL
                               OR row_number() OVER (PARTITION BY w.digest, f.grant_client_id = w.client_id ORDER BY w.n) > 1
                               THEN 'reused'
                             WHEN f.session_expires_at <= w.now OR f.session_last_used_at <= w.idle_cutoff THEN 'session_ended'
                             ELSE 'rotate' END AS state,
                        f.*
                    FROM wanted w CROSS JOIN LATERAL (
                        SELECT r.token_digest, r.used_at AS token_used_at, g.client_id AS grant_client_id,
                               g.grant_id AS found_grant_id, s.object_id AS found_session_id,
                               s.expires_at AS session_expires_at, s.last_used_at AS session_last_used_at,
                               \(sql: Self.grantColumns)
                        FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.grant_id = r.grant_id
                        JOIN users u ON u.object_id = g.user_id JOIN sessions s ON s.object_id = g.session_id
                        WHERE r.token_digest = w.digest LIMIT 1) AS f
                ), rotated AS (
                    UPDATE oauth_refresh_tokens r SET used_at = found.now FROM found
                    WHERE found.state = 'rotate' AND r.token_digest = found.token_digest AND r.used_at IS NULL
                    RETURNING found.n, found.next, found.found_grant_id, found.found_session_id, found.now
                ), inserted AS (
                    INSERT INTO oauth_refresh_tokens (token_digest, grant_id, created_at)
                    SELECT next, found_grant_id, now FROM rotated
                ), touched AS (
                    UPDATE sessions s SET last_used_at = t.now
                    FROM (SELECT found_session_id, max(now) AS now FROM rotated GROUP BY found_session_id) t
                    WHERE s.object_id = t.found_session_id AND s.last_used_at <= t.now - \(useResolution) * interval '1 second'
                )
                SELECT rotated.n IS NOT NULL, found.* FROM found LEFT JOIN rotated ON rotated.n = found.n
                """)
        }
        var outcomes: [RefreshRotation: Rotation] = [:]
        outcomes.reserveCapacity(rotations.count)
        for rotation in rotations { outcomes[rotation] = .unknown }
        var reusedSessions: [String: [RefreshRotation]] = [:]
        for row in rows {
            let rotation = rotations[Int(try row.decode(Int64.self, at: 1)) - 1]
            if try row.decode(Bool.self, at: 0) {
                outcomes[rotation] = .rotated(try Self.grant(row, from: 12))
                continue
            }
            switch RotationState(rawValue: try row.decode(String.self, at: 4)) ?? .reused {
            case .wrongClient: outcomes[rotation] = .wrongClient
            case .sessionEnded: outcomes[rotation] = .sessionEnded
            // `rotate` without the update: claimed by another request between this statement's
            // snapshot and its update, so a reuse.
            case .reused, .rotate: reusedSessions[try row.decode(String.self, at: 9), default: []].append(rotation)
            }
        }
        guard !reusedSessions.isEmpty else { return outcomes }
        let now = rotations.map(\.now).max() ?? Date()
        let ended = try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                let ended = try tx.query("""
                    WITH ended AS (
                        DELETE FROM sessions WHERE object_id = ANY(\(PostgresArray(Array(reusedSessions.keys))))
                        RETURNING object_id, token_digest, user_id, installation_id
                    ), forgotten AS (
                        DELETE FROM known_installations k USING ended
                        WHERE ended.installation_id IS NOT NULL AND k.user_id = ended.user_id
                          AND k.installation_digest = sha256(convert_to(ended.installation_id, 'UTF8')))
                    SELECT object_id, token_digest, user_id FROM ended
                    """)
                try events.record(
                    try ended.map { row in
                        .sessionEnded(
                            sessionId: try row.decode(String.self, at: 0), userId: try row.decode(String.self, at: 2),
                            reason: .revoked, at: now)
                    },
                    in: tx)
                return ended
            }
        }
        var digests: [String: [UInt8]] = [:]
        for row in ended { digests[try row.decode(String.self, at: 0)] = try row.decode([UInt8].self, at: 1) }
        for (sessionId, reuses) in reusedSessions {
            for rotation in reuses { outcomes[rotation] = .reused(sessionTokenDigest: digests[sessionId]) }
        }
        return outcomes
    }

    /// The grant `grantId` while it and its session live (for userinfo and introspection).
    func liveGrant(id grantId: String, now: Date, idleCutoff: Date) throws -> GrantRecord? {
        try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst("""
                SELECT \(sql: Self.grantColumns)
                FROM oauth_grants g JOIN users u ON u.object_id = g.user_id JOIN sessions s ON s.object_id = g.session_id
                WHERE g.grant_id = \(grantId) AND s.expires_at > \(now) AND s.last_used_at > \(idleCutoff)
                """).map { try Self.grant($0) }
        }
    }

    /// Ends the grant of the refresh token with this digest, if it is `clientId`'s; whether there was one.
    func revokeRefreshToken(digest: [UInt8], clientId: String) throws -> Bool {
        try pool.withConnection(retry: .never) { connection in
            try connection.execute("""
                DELETE FROM oauth_grants g USING oauth_refresh_tokens r
                WHERE r.token_digest = \(digest) AND g.grant_id = r.grant_id AND g.client_id = \(clientId)
                """) > 0
        }
    }

    /// Ends grant `grantId` if it is `clientId`'s.
    func revokeGrant(id grantId: String, clientId: String) throws -> Bool {
        try pool.withConnection(retry: .never) { connection in
            try connection.execute("DELETE FROM oauth_grants WHERE grant_id = \(grantId) AND client_id = \(clientId)") > 0
        }
    }

    /// In `tx`, ends every grant of the user and forgets the user's consents: a password change or
    /// reset leaves no app holding a refresh token that the old password got it, whichever session
    /// it came from, nor an app that whoever knew the old password let in getting a code again
    /// without the user being asked. (First-party clients have no consents to forget.)
    static func endGrants(userId: String, in tx: some PostgresQueryable) throws {
        try tx.execute("DELETE FROM oauth_grants WHERE user_id = \(userId)")
        try tx.execute("DELETE FROM oauth_consents WHERE user_id = \(userId)")
    }

    // MARK: Consents and the user's apps

    /// The scopes the user has consented to for `clientId`.
    func consentedScopes(userId: String, clientId: String) throws -> [String] {
        try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst(
                "SELECT scopes FROM oauth_consents WHERE user_id = \(userId) AND client_id = \(clientId)"
            ).map { try $0.decode(String.self, at: 0).split(separator: " ").map(String.init) } ?? []
        }
    }

    /// The clients the user has authorized: consented to, or holding a grant of (a first-party
    /// client asks no consent), with the scopes and the latest time, newest first.
    func authorizedApps(userId: String) throws -> [(clientId: String, scopes: [String], grantedAt: Date)] {
        try pool.withConnection(retry: .once) { connection in
            try connection.query("""
                SELECT client_id, string_agg(DISTINCT scope, ' ' ORDER BY scope), max(at) FROM (
                    SELECT client_id, unnest(string_to_array(scopes, ' ')) AS scope, granted_at AS at
                    FROM oauth_consents WHERE user_id = \(userId)
                    UNION ALL
                    SELECT client_id, unnest(string_to_array(scopes, ' ')), created_at FROM oauth_grants WHERE user_id = \(userId)
                ) a
                GROUP BY client_id ORDER BY max(at) DESC, client_id
                """).map {
                (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1).split(separator: " ").map(String.init),
                 try $0.decode(Date.self, at: 2))
            }
        }
    }

    /// Forgets the user's consent to `clientId` and ends every grant the client holds of the user's,
    /// in one transaction; whether there was anything.
    func revokeApp(userId: String, clientId: String) throws -> Bool {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in
                let consents = try tx.execute("DELETE FROM oauth_consents WHERE user_id = \(userId) AND client_id = \(clientId)")
                let grants = try tx.execute("DELETE FROM oauth_grants WHERE user_id = \(userId) AND client_id = \(clientId)")
                return consents + grants > 0
            }
        }
    }

    /// Seconds after which an expired code, and a grant left with neither a code nor a refresh
    /// token, is deleted: past the code's life and the longest access token of it.
    static let staleAfter = Double(OAuthPolicy.codeLifetime + AccessTokenPolicy.lifetimes.upperBound)

    /// In `tx`, deletes the user's codes that expired before `cutoff`, and the user's grants made
    /// before it that are left with neither a code nor a refresh token (an exchange that never came,
    /// or a grant without `offline_access` whose access tokens have all expired): each new code
    /// clears what its user's earlier ones left.
    static func deleteStaleCodes(userId: String, before cutoff: Date, in tx: some PostgresQueryable) throws {
        try tx.execute("""
            DELETE FROM oauth_codes c USING oauth_grants g
            WHERE g.user_id = \(userId) AND c.grant_id = g.grant_id AND c.expires_at < \(cutoff)
            """)
        try tx.execute("""
            DELETE FROM oauth_grants g WHERE g.user_id = \(userId) AND g.created_at < \(cutoff)
              AND NOT EXISTS (SELECT 1 FROM oauth_codes c WHERE c.grant_id = g.grant_id)
              AND NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens r WHERE r.grant_id = g.grant_id)
            """)
    }
}
