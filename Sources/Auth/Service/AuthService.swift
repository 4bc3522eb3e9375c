import Foundation
import Postgres
import Sodium

/// Sign-up, log-in, log-out and the viewer lookup, with Parse's semantics and the
/// contract's "better than Parse" behaviour. Every method but `viewer(token:completion:)`
/// blocks its caller: database calls and password hashing run to completion.
public final class AuthService: Sendable {
    public let configuration: AuthConfiguration
    private let store: UserStore
    /// Viewer lookups that miss the cache, coalesced across request threads.
    private let sessionLookups: LookupBatcher<[UInt8], UserStore.StoredSession>
    private let hashing: PasswordHashingPool
    /// The kinds of stored hash a failed log-in verifies one of each (see `refreshHashKinds()`).
    public let hashKinds: HashKinds
    private let limiter: RateLimiter
    /// Recently seen sessions (nil: every viewer asks the database).
    public let sessionCache: SessionCache?
    private let now: @Sendable () -> Date
    /// Reports internal errors' details (never shown to clients).
    private let log: @Sendable (String) -> Void

    public init(
        pool: Pool, hashing: PasswordHashingPool, configuration: AuthConfiguration = AuthConfiguration(),
        limiter: RateLimiter = RateLimiter(), sessionCache: SessionCache? = nil,
        sessionLookupBatches: Int = AuthService.defaultSessionLookupBatches,
        now: @escaping @Sendable () -> Date = { Date() }, log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.configuration = configuration
        let store = UserStore(pool: pool)
        self.store = store
        self.sessionLookups = LookupBatcher(
            maxBatchSize: 64, maxConcurrentBatches: max(1, sessionLookupBatches), concurrentBatchThreshold: 64,
            failsQueued: { error in
                // No connection in time (or none to be had), or statement_timeout: the database is stuck.
                guard let error = error as? PostgresError else { return false }
                return error.kind == .databaseUnavailable || error.sqlState == "57014"
            },
            run: { try store.sessions(digests: $0) })
        self.hashing = hashing
        self.hashKinds = HashKinds(current: hashing.hasher.cost)
        self.limiter = limiter
        self.sessionCache = sessionCache
        self.now = now
        self.log = log
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
        try limit(address: request.clientAddress)
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
        let (token, session) = newSession(action: "signup", installationId: request.installationId, now: time)
        try database { () throws in
            do {
                try store.insert(user, passwordHash: passwordHash, session: session)
            } catch let error as PostgresError where error.isUniqueViolation(constraint: AuthMigrations.Constraint.usernameUnique) {
                throw AuthError.usernameTaken  // a concurrent sign-up won the race
            } catch let error as PostgresError where error.isUniqueViolation(constraint: AuthMigrations.Constraint.emailUnique) {
                throw AuthError.emailTaken
            } catch UserStore.NameConflict.username {
                throw AuthError.usernameTaken
            } catch UserStore.NameConflict.email {
                throw AuthError.emailTaken
            }
        }
        return SessionGrant(sessionToken: token, user: user, expiresAt: session.expiresAt)
    }

    /// Logs in by username, or by email when no username matches (case-insensitive),
    /// and creates a session. Unknown users and wrong passwords take the same time
    /// and get the same error.
    public func logIn(username: String, password: String, hasAuthData: Bool, request: AuthRequest) throws(AuthError) -> SessionGrant {
        try FieldLimits.check(request)
        try limit(address: request.clientAddress)
        guard !username.isEmpty else { throw .logInUsernameMissing }
        guard !password.isEmpty else { throw .logInPasswordMissing }
        if hasAuthData { throw .unsupportedAuthentication }
        let found: UserStore.Credentials?
        if username.contains("\0") || username.utf8.count > FieldLimits.logInNameBytes {
            found = nil  // cannot be stored, so cannot exist
        } else {
            found = try database { () throws in try store.credentials(forLogIn: username) }
        }
        // Counted against the account itself, so its username and its email share one budget;
        // a name that matches no account is counted as that name. Before any password work.
        if let wait = limiter.attempt(
            found.map { "account-id:" + $0.user.objectId } ?? "account-name:" + username.lowercased(),
            limit: configuration.rateLimits.perAccount, window: configuration.rateLimits.accountWindow)
        {
            throw .rateLimited(retryAfter: wait)
        }
        guard let credentials = found else {
            _ = try verify(password, nil)
            throw .invalidCredentials
        }
        let time = timestamp()
        let locked = credentials.lockoutUntil.map { $0 > time } ?? false
        let verdict = try verify(password, credentials.passwordHash)
        if locked, let until = credentials.lockoutUntil {
            throw .accountLocked(minutes: max(1, Int((until.timeIntervalSince(time) / 60).rounded(.up))))
        }
        guard verdict.isValid else {
            if let lockout = configuration.lockout {
                let until = time.addingTimeInterval(Double(lockout.durationMinutes) * 60)
                try database { () throws in
                    try store.recordFailedLogIn(userId: credentials.user.objectId, lockout: lockout, lockUntil: until)
                }
            }
            throw .invalidCredentials
        }
        // Outdated argon2id parameters or an imported bcrypt hash: replace it now.
        let rehash = verdict.needsRehash ? try hash(password) : nil
        let (token, session) = newSession(action: "login", installationId: request.installationId, now: time)
        try database { () throws in
            try store.completeLogIn(userId: credentials.user.objectId, rehash: rehash, session: session, now: time)
        }
        var user = credentials.user
        if rehash != nil { user.updatedAt = time }
        return SessionGrant(sessionToken: token, user: user, expiresAt: session.expiresAt)
    }

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
        try database { () throws in try store.deleteSession(digest: digest) }
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

    /// The grant for a looked-up session (209 when none, or expired: then it is deleted).
    private func grant(
        _ token: String, _ digest: [UInt8], _ found: UserStore.StoredSession?, generation: UInt64
    ) throws(AuthError) -> SessionGrant {
        guard let found else { throw .invalidSession }
        if found.expiresAt <= now() {
            _ = try? store.deleteSession(digest: digest)
            sessionCache?.invalidate(digest: digest)
            throw .sessionExpired
        }
        sessionCache?.store(digest, user: found.user, expiresAt: found.expiresAt, ifGeneration: generation)
        return SessionGrant(sessionToken: token, user: found.user, expiresAt: found.expiresAt)
    }

    private func cachedGrant(_ token: String, _ digest: [UInt8]) -> SessionGrant? {
        guard let cached = sessionCache?.lookup(digest), cached.expiresAt > now() else { return nil }
        return SessionGrant(sessionToken: token, user: cached.user, expiresAt: cached.expiresAt)
    }

    /// The token (209 when missing or empty) and its SHA-256 digest, the sessions' key.
    private func digest(of token: String?) throws(AuthError) -> (String, [UInt8]) {
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

    private func limit(address: String) throws(AuthError) {
        let policy = configuration.rateLimits
        if let wait = limiter.attempt("address:" + address, limit: policy.perAddress, window: policy.addressWindow) {
            throw .rateLimited(retryAfter: wait)
        }
    }

    /// Now, to the millisecond (what responses show and the database keeps).
    private func timestamp() -> Date {
        Date(timeIntervalSince1970: (now().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    private func newSession(action: String, installationId: String?, now time: Date) -> (String, UserStore.NewSession) {
        let token = SecureRandom.sessionToken()
        let session = UserStore.NewSession(
            objectId: SecureRandom.objectId(), tokenDigest: SHA256.digest(token),
            installationId: installationId.flatMap { $0.isEmpty ? nil : $0 }, action: action,
            expiresAt: time.addingTimeInterval(Double(configuration.sessionLength)))
        return (token, session)
    }

    private func hash(_ password: String) throws(AuthError) -> String {
        do {
            return try hashing.hash(password)
        } catch {
            throw hashingError(error)
        }
    }

    /// Checks a log-in's password against its account's hash (nil: no such account) and, unless
    /// it matches, against a dummy of every other kind of stored hash: unknown names, wrong
    /// passwords and hashes of any kind all cost the same work.
    private func verify(_ password: String, _ hash: String?) throws(AuthError) -> VerifyResult {
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
    private func database<T>(_ body: () throws -> T) throws(AuthError) -> T {
        do {
            return try body()
        } catch let error as AuthError {
            throw error
        } catch let error as PostgresError {
            // 57014: the statement timeout fired (the database is overloaded or a lock is held):
            // as unavailable as a full pool, and worth a retry (make faults saw "Internal server error").
            if error.kind == .databaseUnavailable || error.isConnectionFailure || error.sqlState == "57014" {
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
