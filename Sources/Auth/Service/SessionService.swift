import Foundation
import Postgres
import Sodium
import Signatures

/// Sessions: sign-up, log-in and log-out, the viewer lookup (the session cache first, then a
/// batched read, from the standby when it is current), sessions' `lastUsedAt` and idle timeout,
/// and the sessions a user can list and end. Owns the sessions' store, the viewer's lookup
/// batcher and the recorder of session uses. Every method but `viewer(token:completion:)`
/// blocks its caller: database calls and password hashing run to completion.
public final class SessionService: Sendable {
    let core: AuthCore
    /// The `logIn` code check of users with TOTP, and `GATEHOUSE_MFA=required`.
    let secondFactors: SecondFactorService
    let users: UserStore
    let sessionStore: SessionStore
    /// The verification mail a sign-up sends.
    let mail: AccountMail
    /// Writes sessions' `lastUsedAt` off the requests' path (see `noteUse`).
    let sessionUse: SessionUseRecorder
    /// Viewer lookups that miss the cache, coalesced across request threads.
    private let sessionLookups: LookupBatcher<[UInt8], UserStore.StoredSession>
    /// The standby those lookups go to when it is current (`GATEHOUSE_READ_DATABASE_URL`); nil: the primary.
    public let standbyReads: StandbyReads?

    init(
        core: AuthCore, secondFactors: SecondFactorService, pool: Pool, readPool: Pool?,
        onStandbyChange: @escaping @Sendable (StandbyReads.Event) -> Void
    ) {
        self.core = core
        self.secondFactors = secondFactors
        let users = UserStore(pool: pool)
        self.users = users
        let sessionStore = SessionStore(pool: pool)
        self.sessionStore = sessionStore
        self.mail = AccountMail(core.configuration.accounts, linkBox: core.linkBox)
        self.sessionUse = SessionUseRecorder(
            write: { [interval = Self.useInterval(core.configuration)] in try sessionStore.recordUse($0, resolution: interval) },
            log: core.log)
        let standbyReads = readPool.map { StandbyReads(primary: users, standby: $0, report: onStandbyChange) }
        self.standbyReads = standbyReads
        self.sessionLookups = core.batcher { try standbyReads?.sessions(digests: $0) ?? users.sessions(digests: $0) }
    }

    /// Deletes the session of `token`; without a token, or with an unknown one, does nothing.
    public func logOut(token: String?) throws(AuthError) {
        guard let token, !token.isEmpty else { return }
        let digest = SHA256.digest(token)
        try core.database { () throws in try sessionStore.delete(digest: digest, now: core.timestamp(), events: core.events) }
        // Other instances hear of it through the database's notification.
        core.sessionCache?.invalidate(digest: digest)
    }

    /// The session of `token` and its user (209 when there is none or it expired); blocks
    /// while the session is looked up.
    public func viewer(token: String?) throws(AuthError) -> SessionGrant {
        let (token, digest) = try digest(of: token)
        if let grant = cachedGrant(token, digest) { return grant }
        let generation = core.sessionCache?.generation ?? 0
        let found = try core.database { () throws in try sessionLookups.lookup(digest) }
        return try grant(token, digest, found, generation: generation)
    }

    /// `viewer(token:)` without blocking the caller: `completion` runs at once when the session
    /// cache (or a missing token) answers, else on a session-lookup thread once the lookup,
    /// batched with other requests', is done.
    public func viewer(token: String?, completion: @escaping @Sendable (Result<SessionGrant, AuthError>) -> Void) {
        guard let token, !token.isEmpty else { return completion(.failure(.invalidSession)) }
        let digest = SHA256.digest(token)
        if let grant = cachedGrant(token, digest) { return completion(.success(grant)) }
        let generation = core.sessionCache?.generation ?? 0
        sessionLookups.lookup(digest) { [self] found in
            completion(Result { () throws(AuthError) in
                try grant(token, digest, try core.database { () throws in try found.get() }, generation: generation)
            })
        }
    }

    /// The live session of `token`, read from the primary database (neither the cache nor a
    /// standby, which may not have heard yet that it ended); nil when there is none, or it has
    /// expired or been idle past the timeout. Not a use of the session. For introspection, which
    /// must see a session that ended on any instance as ended at once.
    func liveGrant(token: String) throws(AuthError) -> SessionGrant? {
        let digest = SHA256.digest(token)
        guard let found = try core.database({ () throws in try users.sessions(digests: [digest])[digest] }),
            isLive(found.session, at: core.timestamp())
        else { return nil }
        return SessionGrant(sessionToken: token, user: found.user, session: found.session)
    }

    /// The grant for a looked-up session (209 when none, or expired or idle: then it is deleted).
    /// Counts as a use of the session (`noteUse`).
    func grant(
        _ token: String, _ digest: [UInt8], _ found: UserStore.StoredSession?, generation: UInt64
    ) throws(AuthError) -> SessionGrant {
        guard let found else { throw .invalidSession }
        let time = core.timestamp()
        guard isLive(found.session, at: time) else {
            _ = try? sessionStore.delete(digest: digest, now: time)
            core.sessionCache?.invalidate(digest: digest)
            throw .sessionExpired
        }
        var session = found.session
        noteUse(&session, at: time)
        core.sessionCache?.store(digest, user: found.user, session: session, ifGeneration: generation)
        return SessionGrant(sessionToken: token, user: found.user, session: session)
    }

    /// The cached grant for `digest`, if the cache has a live one (a cached session that looks
    /// idle is asked of the database: another instance may have recorded a later use). Counts
    /// as a use of the session (`noteUse`).
    func cachedGrant(_ token: String, _ digest: [UInt8]) -> SessionGrant? {
        let time = core.timestamp()
        guard let cached = core.sessionCache?.lookup(digest), isLive(cached.session, at: time) else { return nil }
        var session = cached.session
        if noteUse(&session, at: time) { core.sessionCache?.noteUse(digest, at: time) }
        return SessionGrant(sessionToken: token, user: cached.user, session: session)
    }

    /// Whether `session` has neither expired nor been idle for the idle timeout at `time`.
    func isLive(_ session: Session, at time: Date) -> Bool {
        session.expiresAt > time && session.lastUsedAt > idleCutoff(at: time)
    }

    /// Sessions last used at or before this are idle-expired (`Date.distantPast` without an idle timeout).
    func idleCutoff(at time: Date) -> Date {
        let timeout = core.configuration.accounts.sessionIdleTimeout
        return timeout > 0 ? time.addingTimeInterval(-Double(timeout)) : .distantPast
    }

    /// Notes a use of `session` at `time`: when its `lastUsedAt` is ``useInterval(_:)`` or more
    /// behind, sets it to `time` and has it written off the request's path; true when it did.
    /// Other instances' caches keep their copy until their TTL: the table's trigger does not
    /// announce `last_used_at`, and the write's condition makes a second instance's write a no-op.
    @discardableResult
    private func noteUse(_ session: inout Session, at time: Date) -> Bool {
        guard time.timeIntervalSince(session.lastUsedAt) >= Self.useInterval(core.configuration) else { return false }
        session.lastUsedAt = time
        sessionUse.record(objectId: session.objectId, at: time)
        return true
    }

    /// How far `lastUsedAt` may lag the last use: ``Session/lastUseResolution``, or half the
    /// idle timeout when that is shorter, so that a session in use never looks idle.
    static func useInterval(_ configuration: AuthConfiguration) -> TimeInterval {
        let timeout = configuration.accounts.sessionIdleTimeout
        return timeout > 0 ? min(Session.lastUseResolution, Double(timeout) / 2) : Session.lastUseResolution
    }

    /// The token (209 when missing or empty) and its SHA-256 digest, the sessions' key.
    func digest(of token: String?) throws(AuthError) -> (String, [UInt8]) {
        guard let token, !token.isEmpty else { throw .invalidSession }
        return (token, SHA256.digest(token))
    }
}
