import Foundation
import JSON
import Mail
import Locking
import Postgres
import Providers
import Sodium

/// Sign-up, log-in, log-out and the viewer lookup, with Parse's semantics and the
/// contract's "better than Parse" behaviour. Every method but `viewer(token:completion:)`
/// blocks its caller: database calls and password hashing run to completion.
public final class AuthService: Sendable {
    public let configuration: AuthConfiguration
    let store: UserStore
    let sessionStore: SessionStore
    /// Reset and verification tokens, account changes and deletion, with their mail.
    let accounts: AccountStore
    /// Writes sessions' `lastUsedAt` off the requests' path (see `noteUse`).
    let sessionUse: SessionUseRecorder
    /// Viewer lookups that miss the cache, coalesced across request threads.
    private let sessionLookups: LookupBatcher<[UInt8], UserStore.StoredSession>
    /// The standby those lookups go to when it is current (`GATEHOUSE_READ_DATABASE_URL`); nil: the primary.
    public let standbyReads: StandbyReads?
    /// Provider log-ins of linked users, coalesced likewise: one statement finds the users and
    /// inserts the sessions of every log-in waiting.
    let providerLogIns: LookupBatcher<UserStore.ProviderLogIn, UserStore.LinkedUser>
    /// Passkey log-ins, coalesced likewise in their two statements: challenges taken and passkeys
    /// read, then (after each signature is checked) counters moved and sessions started.
    let passkeyLookups: LookupBatcher<PasskeyStore.LogIn, PasskeyStore.LogInLookup>
    let passkeyLogIns: LookupBatcher<PasskeyStore.CounterMove, Bool>
    let hashing: PasswordHashingPool
    /// The kinds of stored hash a failed log-in verifies one of each (see `refreshHashKinds()`).
    public let hashKinds: HashKinds
    /// signUp and logIn attempts per client network.
    let addressLimiter: RateLimiter
    /// logIn attempts for names that match no account (an account's are counted in the database).
    let nameLimiter: RateLimiter
    /// Records failed log-ins for lockout after the answer is decided (see `logIn`): one thread,
    /// given work no faster than passwords are checked.
    let lockoutBookkeeping = WorkerThreads(name: "gh-lockout", maxThreads: 1)
    /// Equal answer times for resetPassword and sendVerificationEmail, whether or not they send.
    let linkTiming = (reset: TimingEqualizer(), verify: TimingEqualizer())
    /// Recently seen sessions (nil: every viewer asks the database).
    public let sessionCache: SessionCache?
    /// Third-party log-in (`logInWith`, linking); nil: none, every provider is unsupported.
    let providers: ProviderRegistry?
    /// Users' TOTP enrolments and recovery codes.
    let totp: TOTPStore
    /// Seals TOTP secrets (a key from `GATEHOUSE_SECRET_KEY`); nil: enrolment fails with an internal error.
    let totpBox: SecretBox?
    let now: @Sendable () -> Date
    /// Reports internal errors' details (never shown to clients).
    let log: @Sendable (String) -> Void
    /// Says why a credential was refused (a provider token, a passkey), which the client is told
    /// only in the contract's one message: for operators, not an error of the server.
    let refused: @Sendable (String) -> Void

    public init(
        pool: Pool, hashing: PasswordHashingPool, configuration: AuthConfiguration = AuthConfiguration(),
        limiterCapacity: Int = RateLimiter.defaultCapacity, sessionCache: SessionCache? = nil,
        providers: ProviderRegistry? = nil, sessionLookupBatches: Int = AuthService.defaultSessionLookupBatches,
        totpBox: SecretBox? = nil, readPool: Pool? = nil,
        onStandbyChange: @escaping @Sendable (StandbyReads.Event) -> Void = { _ in }, now: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void = { _ in }, refused: (@Sendable (String) -> Void)? = nil
    ) {
        self.configuration = configuration
        let store = UserStore(pool: pool)
        self.store = store
        let sessionStore = SessionStore(pool: pool)
        self.sessionStore = sessionStore
        self.accounts = AccountStore(pool: pool)
        self.sessionUse = SessionUseRecorder(
            write: { [interval = Self.useInterval(configuration)] in try sessionStore.recordUse($0, resolution: interval) },
            log: log)
        let standbyReads = readPool.map { StandbyReads(primary: store, standby: $0, report: onStandbyChange) }
        self.standbyReads = standbyReads
        self.sessionLookups = LookupBatcher(
            maxBatchSize: 64, maxConcurrentBatches: max(1, sessionLookupBatches), concurrentBatchThreshold: 64,
            failsQueued: Self.databaseStuck,
            run: { try standbyReads?.sessions(digests: $0) ?? store.sessions(digests: $0) })
        self.providerLogIns = LookupBatcher(
            maxBatchSize: 64, maxConcurrentBatches: max(1, sessionLookupBatches), concurrentBatchThreshold: 64,
            failsQueued: Self.databaseStuck, run: { [withholdingTOTP = configuration.mfa != .off] in
                try store.logIn($0, withholdingTOTP: withholdingTOTP)
            })
        let passkeys = PasskeyStore(pool: pool)
        self.passkeyLookups = LookupBatcher(
            maxBatchSize: 64, maxConcurrentBatches: max(1, sessionLookupBatches), concurrentBatchThreshold: 64,
            failsQueued: Self.databaseStuck, run: { try passkeys.take($0, now: now()) })
        self.passkeyLogIns = LookupBatcher(
            maxBatchSize: 64, maxConcurrentBatches: max(1, sessionLookupBatches), concurrentBatchThreshold: 64,
            failsQueued: Self.databaseStuck, run: { Dictionary(uniqueKeysWithValues: try passkeys.logIn($0).map { ($0, true) }) })
        self.hashing = hashing
        self.hashKinds = HashKinds(current: hashing.hasher.cost)
        let seconds: @Sendable () -> Double = { now().timeIntervalSince1970 }
        self.addressLimiter = RateLimiter(window: configuration.rateLimits.addressWindow, capacity: limiterCapacity, now: seconds)
        self.nameLimiter = RateLimiter(window: configuration.rateLimits.accountWindow, capacity: limiterCapacity, now: seconds)
        self.sessionCache = sessionCache
        self.providers = providers
        self.totp = TOTPStore(pool: pool)
        self.totpBox = totpBox
        self.now = now
        self.log = log
        self.refused = refused ?? log
    }

    /// No connection in time (or none to be had), or statement_timeout: the database is stuck, and
    /// a batch's callers queued behind the one that found it so fail with it.
    private static func databaseStuck(_ error: any Error) -> Bool {
        guard let error = error as? PostgresError else { return false }
        return error.kind == .databaseUnavailable || error.sqlState == "57014"
    }

    /// Viewer lookups that may run at once (each for up to 64 tokens): the cores, at least 2.
    /// Fewer, fuller batches cost the database less per lookup; more of them cut the wait. A
    /// second one starts only when a full batch waits behind the one running.
    public static var defaultSessionLookupBatches: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }

    /// Whether `key` is the configured master key (constant-time compared).
    public func isMasterKey(_ key: String?) -> Bool {
        guard let key, !key.isEmpty, let masterKey = configuration.masterKey else { return false }
        return ConstantTime.equals(key, masterKey)
    }

    // MARK: Operations

    /// Creates a user and its first session. Checks the field sizes first (142), then in
    /// Parse's order: 200, 201, 252, 119, 142, 202, 125, 203.
    public func signUp(_ fields: SignUpFields?, request: AuthRequest) throws(AuthError) -> SessionGrant {
        try FieldLimits.check(fields, request, maximumPasswordBytes: configuration.passwordPolicy.maximumBytes)
        try limitAddress(ClientNetwork.key(of: request.clientAddress))
        guard let fields, let username = fields.username, !username.isEmpty, !username.contains("\0") else {
            throw .usernameMissing
        }
        guard let password = fields.password, !password.isEmpty else { throw .passwordMissing }
        if fields.hasAuthData { throw .unsupportedAuthentication }
        if fields.emailVerified != nil && !request.isMaster { throw .emailVerificationNotAllowed }
        guard configuration.passwordPolicy.accepts(password) else { throw .weakPassword }
        if configuration.passwordPolicy.isCommon(password) { throw .commonPassword }
        let email = fields.email
        // A log-in name means one account: a username may not be another user's email, nor an
        // email another user's username.
        try database { () throws in
            if try store.logInNameTaken(username) { throw AuthError.usernameTaken }
        }
        if let email {
            guard Self.isValidEmail(email) else { throw .invalidEmail }
            try database { () throws in
                if try store.logInNameTaken(email) { throw AuthError.emailTaken }
            }
        }
        let passwordHash = try hash(password)
        let time = timestamp()
        let objectId = SecureRandom.objectId()
        let user = User(
            objectId: objectId, username: username, email: email,
            emailVerified: request.isMaster ? (fields.emailVerified ?? false) : false,
            acl: (fields.acl ?? ACL()).withOwner(objectId), createdAt: time, updatedAt: time)
        let (token, session) = newSession(action: "signup", request: request, now: time)
        // GATEHOUSE_VERIFY_EMAILS on/required: the verification mail goes with the new user;
        // required: no session until the address is verified.
        let verification = configuration.accounts.verifyEmails != .off && email != nil
        let sessionWithheld = configuration.accounts.verifyEmails == .required && email != nil
        let verifyToken = SecureRandom.linkToken()
        try database { () throws in
            try Self.namesTaken {
                try store.insert(user, passwordHash: passwordHash, session: sessionWithheld ? nil : session) { tx in
                    guard verification, let email else { return }
                    try AccountStore.send(
                        mail(.verifyEmail, to: email, about: user, request: request, token: verifyToken),
                        token: AccountStore.NewToken(
                            digest: SHA256.digest(verifyToken),
                            expiresAt: time.addingTimeInterval(Double(configuration.accounts.verifyTokenLifetime))),
                        email: email, context: mailContext(time), in: tx)
                }
            }
        }
        if sessionWithheld { throw .emailNotVerified }
        return SessionGrant(sessionToken: token, user: user, session: session.session)
    }

    /// Logs in by username, or by email when no username matches (case-insensitive),
    /// and creates a session. Unknown users and wrong passwords take the same time
    /// and get the same error.
    ///
    /// Limits (contract, Hardening): per client network (`limitAddress`), then per account and
    /// network, with a ceiling over all networks of ten times that: an account's counts are kept
    /// in the database, counted in the round trip that finds the account, and a name that matches
    /// no account is counted the same way in memory, so the limit does not tell which names exist.
    /// The right password with an installation id that had a session of the account in the last
    /// 30 days is let in past the per-account limit and lockout.
    ///
    /// `mfa` is `authData.mfa` (`{token}`: a TOTP or recovery code), checked after the password
    /// for users with TOTP (``checkSecondFactor(_:userId:sealedSecret:at:)``).
    public func logIn(
        username: String, password: String, hasAuthData: Bool, mfa: JSON? = nil, request: AuthRequest
    ) throws(AuthError) -> SessionGrant {
        try FieldLimits.check(request)
        let network = ClientNetwork.key(of: request.clientAddress)
        try limitAddress(network)
        guard !username.isEmpty else { throw .logInUsernameMissing }
        guard !password.isEmpty else { throw .logInPasswordMissing }
        if hasAuthData || (mfa != nil && configuration.mfa == .off) { throw .unsupportedAuthentication }
        let time = timestamp()
        let policy = configuration.rateLimits
        let window = Double(max(1, policy.accountWindow))
        let windowEnd = Date(timeIntervalSince1970: ((time.timeIntervalSince1970 / window).rounded(.down) + 1) * window)
        let found: UserStore.LogInAttempt?
        if username.contains("\0") || username.utf8.count > FieldLimits.logInNameBytes {
            found = nil  // cannot be stored, so cannot exist
        } else {
            found = try database { () throws in
                try store.logInAttempt(
                    name: username, network: network, windowEnd: windowEnd, limit: policy.perAccount,
                    installation: request.installationId.map { SHA256.digest($0) },
                    knownSince: time.addingTimeInterval(-UserStore.installationMemory))
            }
        }
        // Before any password work.
        guard let found else {
            let name = SHA256.hexDigest(username.lowercased())
            if let wait = nameLimiter.attempt([
                (RateLimiter.Key("name:\(name)@\(network)"), policy.perAccount),
                (RateLimiter.Key("name:\(name)"), policy.perAccount * Self.networkCeiling),
            ]) {
                throw .rateLimited(retryAfter: wait)
            }
            _ = try verify(password, nil)
            throw .invalidCredentials
        }
        let credentials = found.credentials
        var refusal: AuthError? = nil
        if policy.perAccount > 0
            && (found.fromNetwork > policy.perAccount
                || found.fromNetwork + found.fromOtherNetworks > policy.perAccount * Self.networkCeiling)
        {
            let limited = AuthError.rateLimited(retryAfter: max(1, Int(windowEnd.timeIntervalSince(time).rounded(.up))))
            // No password work, unless the owner's installation may be let in.
            guard found.installationKnown else { throw limited }
            refusal = limited
        }
        let lockedUntil = credentials.lockoutUntil.flatMap { $0 > time ? $0 : nil }
        let verdict = try verify(password, credentials.passwordHash)
        if refusal == nil, let until = lockedUntil {
            refusal = .accountLocked(minutes: max(1, Int((until.timeIntervalSince(time) / 60).rounded(.up))))
        }
        // The owner's exemption: the right password from a known installation; anything else
        // gets the refusal it would have had without one.
        if let refusal, !(verdict.isValid && found.installationKnown) { throw refusal }
        guard verdict.isValid else {
            if let lockout = configuration.lockout {
                // Off the answer's path, so that a wrong password for an existing user takes the
                // time an unknown name does (contract, Hardening: equal work for every outcome).
                let until = time.addingTimeInterval(Double(lockout.durationMinutes) * 60)
                lockoutBookkeeping.run { [store, log] in
                    do {
                        try store.recordFailedLogIn(userId: credentials.user.objectId, lockout: lockout, lockUntil: until)
                    } catch {
                        log("failed log-in not recorded for lockout: \(error)")
                    }
                }
            }
            throw .invalidCredentials
        }
        var factors = ["password"]
        if configuration.mfa != .off, let sealedSecret = found.sealedTOTPSecret {
            try checkSecondFactor(mfa, userId: credentials.user.objectId, sealedSecret: sealedSecret, at: time)
            factors.append("totp")
        }
        // GATEHOUSE_VERIFY_EMAILS=required: the right password, but no session for an unverified email.
        if configuration.accounts.verifyEmails == .required, credentials.user.email != nil, !credentials.user.emailVerified {
            throw .emailNotVerified
        }
        // Outdated argon2id parameters or an imported bcrypt hash: replace it now.
        let rehash = verdict.needsRehash ? try hash(password) : nil
        let (token, session) = newSession(action: "login", factors: factors, request: request, now: time)
        try database { () throws in
            try store.completeLogIn(
                userId: credentials.user.objectId, rehash: rehash, keepLockout: lockedUntil != nil, session: session, now: time)
        }
        var user = credentials.user
        if rehash != nil { user.updatedAt = time }
        return SessionGrant(sessionToken: token, user: user, session: session.session)
    }

    /// Runs a write that gives a user a username or email, turning a name another account has
    /// (a unique index, or ``UserStore/NameConflict``, when a concurrent write won the race or the
    /// name is the other column of another account) into 202 or 203.
    static func namesTaken<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError where error.isUniqueViolation(constraint: AuthMigrations.Constraint.usernameUnique) {
            throw AuthError.usernameTaken
        } catch let error as PostgresError where error.isUniqueViolation(constraint: AuthMigrations.Constraint.emailUnique) {
            throw AuthError.emailTaken
        } catch UserStore.NameConflict.username {
            throw AuthError.usernameTaken
        } catch UserStore.NameConflict.email {
            throw AuthError.emailTaken
        }
    }

    /// The per-account ceiling over all networks, in multiples of the per-account limit.
    static let networkCeiling = 10

    /// Reads the kinds of password hash stored in the users table into ``hashKinds``, so that
    /// kinds no account has any more stop costing failed log-ins work. Run at start and then
    /// periodically; a kind met by a log-in in between is added at once.
    public func refreshHashKinds() throws(AuthError) {
        let prefixes = try database { () throws in try store.hashKindPrefixes(pattern: HashKinds.sqlPrefixPattern) }
        hashKinds.replace(withPrefixes: prefixes)
    }

    /// Deletes the session of `token`; without a token, or with an unknown one, does nothing.
    public func logOut(token: String?) throws(AuthError) {
        guard let token, !token.isEmpty else { return }
        let digest = SHA256.digest(token)
        try database { () throws in try sessionStore.delete(digest: digest, now: now()) }
        // Other instances hear of it through the database's notification.
        sessionCache?.invalidate(digest: digest)
    }

    /// The session of `token` and its user (209 when there is none or it expired); blocks
    /// while the session is looked up.
    public func viewer(token: String?) throws(AuthError) -> SessionGrant {
        let (token, digest) = try digest(of: token)
        if let grant = cachedGrant(token, digest) { return grant }
        let generation = sessionCache?.generation ?? 0
        let found = try database { () throws in try sessionLookups.lookup(digest) }
        return try grant(token, digest, found, generation: generation)
    }

    /// `viewer(token:)` without blocking the caller: `completion` runs at once when the session
    /// cache (or a missing token) answers, else on a session-lookup thread once the lookup,
    /// batched with other requests', is done.
    public func viewer(token: String?, completion: @escaping @Sendable (Result<SessionGrant, AuthError>) -> Void) {
        guard let token, !token.isEmpty else { return completion(.failure(.invalidSession)) }
        let digest = SHA256.digest(token)
        if let grant = cachedGrant(token, digest) { return completion(.success(grant)) }
        let generation = sessionCache?.generation ?? 0
        sessionLookups.lookup(digest) { [self] found in
            completion(Result { () throws(AuthError) in
                try grant(token, digest, try database { () throws in try found.get() }, generation: generation)
            })
        }
    }

    /// The grant for a looked-up session (209 when none, or expired or idle: then it is deleted).
    /// Counts as a use of the session (`noteUse`).
    func grant(
        _ token: String, _ digest: [UInt8], _ found: UserStore.StoredSession?, generation: UInt64
    ) throws(AuthError) -> SessionGrant {
        guard let found else { throw .invalidSession }
        let time = timestamp()
        guard isLive(found.session, at: time) else {
            _ = try? sessionStore.delete(digest: digest, now: time)
            sessionCache?.invalidate(digest: digest)
            throw .sessionExpired
        }
        var session = found.session
        noteUse(&session, at: time)
        sessionCache?.store(digest, user: found.user, session: session, ifGeneration: generation)
        return SessionGrant(sessionToken: token, user: found.user, session: session)
    }

    /// The cached grant for `digest`, if the cache has a live one (a cached session that looks
    /// idle is asked of the database: another instance may have recorded a later use). Counts
    /// as a use of the session (`noteUse`).
    func cachedGrant(_ token: String, _ digest: [UInt8]) -> SessionGrant? {
        let time = timestamp()
        guard let cached = sessionCache?.lookup(digest), isLive(cached.session, at: time) else { return nil }
        var session = cached.session
        if noteUse(&session, at: time) { sessionCache?.noteUse(digest, at: time) }
        return SessionGrant(sessionToken: token, user: cached.user, session: session)
    }

    /// Whether `session` has neither expired nor been idle for the idle timeout at `time`.
    func isLive(_ session: Session, at time: Date) -> Bool {
        session.expiresAt > time && session.lastUsedAt > idleCutoff(at: time)
    }

    /// Sessions last used at or before this are idle-expired (`Date.distantPast` without an idle timeout).
    func idleCutoff(at time: Date) -> Date {
        let timeout = configuration.accounts.sessionIdleTimeout
        return timeout > 0 ? time.addingTimeInterval(-Double(timeout)) : .distantPast
    }

    /// Notes a use of `session` at `time`: when its `lastUsedAt` is ``useInterval(_:)`` or more
    /// behind, sets it to `time` and has it written off the request's path; true when it did.
    /// Other instances' caches keep their copy until their TTL: the table's trigger does not
    /// announce `last_used_at`, and the write's condition makes a second instance's write a no-op.
    @discardableResult
    private func noteUse(_ session: inout Session, at time: Date) -> Bool {
        guard time.timeIntervalSince(session.lastUsedAt) >= Self.useInterval(configuration) else { return false }
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

    // MARK: Helpers

    /// `something@something` on one line, as Parse checks (`/^.+@.+$/`).
    static func isValidEmail(_ email: String) -> Bool {
        let characters = Array(email)
        let lineBreaks: Set<Character> = ["\n", "\r", "\r\n", "\u{2028}", "\u{2029}", "\0"]
        guard characters.count >= 3, !characters.contains(where: lineBreaks.contains) else { return false }
        return characters[1..<(characters.count - 1)].contains("@")
    }

    /// Counts a signUp or logIn attempt against the client's network (``ClientNetwork``).
    func limitAddress(_ network: String) throws(AuthError) {
        if let wait = addressLimiter.attempt([(RateLimiter.Key(network), configuration.rateLimits.perAddress)]) {
            throw .rateLimited(retryAfter: wait)
        }
    }

    /// Now, to the millisecond (what responses show and the database keeps).
    func timestamp() -> Date {
        Date(timeIntervalSince1970: (now().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    /// A new session and its token; `factors` (`createdWith.factors`) default to `[authProvider]`.
    func newSession(
        action: String, authProvider: String = "password", factors: [String]? = nil, request: AuthRequest, now time: Date
    ) -> (String, UserStore.NewSession) {
        let token = SecureRandom.sessionToken()
        let session = Session(
            objectId: SecureRandom.objectId(), createdAt: time, updatedAt: time,
            expiresAt: time.addingTimeInterval(Double(configuration.sessionLength)), lastUsedAt: time,
            installationId: request.installationId.flatMap { $0.isEmpty ? nil : $0 }, action: action,
            authProvider: authProvider, userAgent: request.userAgent.map { String($0.prefix(Session.userAgentLimit)) },
            factors: factors)
        return (token, UserStore.NewSession(session: session, tokenDigest: SHA256.digest(token)))
    }

    func hash(_ password: String) throws(AuthError) -> String {
        do {
            return try hashing.hash(password)
        } catch {
            throw hashingError(error)
        }
    }

    /// Checks a log-in's password against its account's hash (nil: no such account) and, unless
    /// it matches, against a dummy of every other kind of stored hash: unknown names, wrong
    /// passwords and hashes of any kind all cost the same work.
    func verify(_ password: String, _ hash: String?) throws(AuthError) -> VerifyResult {
        if let hash { hashKinds.insert(kindOf: hash) }
        do {
            return try hashing.verify(password, against: hash, kinds: hashKinds)
        } catch {
            throw hashingError(error)
        }
    }

    private func hashingError(_ error: HashingPoolError) -> AuthError {
        switch error {
        case .busy: return .busy
        case .shutDown: return .internalError(detail: "the password hashing pool is shut down")
        case .hashingFailed(let failure):
            log("password hashing failed: \(failure)")
            return .internalError(detail: "password hashing failed")
        }
    }

    /// Runs a store call, turning database failures into domain errors: unavailable
    /// when the database cannot be reached, internal otherwise (detail logged).
    @discardableResult
    func database<T>(_ body: () throws -> T) throws(AuthError) -> T {
        do {
            return try body()
        } catch let error as AuthError {
            throw error
        } catch let error as PostgresError {
            // Unreachable, lost, or read-only (a standby during a failover): HTTP 503, retry later.
            // 57014: the statement timeout fired (the database is overloaded or a lock is held):
            // as unavailable as a full pool, and worth a retry.
            if error.isUnavailable || error.sqlState == SQLState.queryCanceled {
                log("database unavailable: \(error)")
                throw .databaseUnavailable
            }
            log("database error: \(error)")
            throw .internalError(detail: String(describing: error))
        } catch {
            log("unexpected error: \(error)")
            throw .internalError(detail: String(describing: error))
        }
    }
}
