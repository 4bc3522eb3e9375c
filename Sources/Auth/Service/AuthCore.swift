import Foundation
import JSON
import Postgres
import Sodium
import Signatures

/// What every feature service shares: the configuration, the database error funnel
/// (``database(_:)``), password hashing and the kinds of stored hash, the rate limiters, the
/// session cache, the clock, the logs, new sessions, the counting of attempts at credentials for
/// the per-account limit and lockout, and the recent authentication check. Owns no feature's
/// store: only the users table's lockout counts and hash kinds, which every way of proving a
/// password or second factor touches.
public final class AuthCore: Sendable {
    /// The policies every feature reads.
    public let configuration: AuthConfiguration
    /// Lockout counts and the kinds of stored hash.
    let users: UserStore
    let hashing: PasswordHashingPool
    /// The kinds of stored hash a failed log-in verifies one of each (see `refreshHashKinds()`).
    public let hashKinds: HashKinds
    /// signUp, logIn, link-mail and `currentPassword` attempts per client network.
    let addressLimiter: RateLimiter
    /// logIn attempts for names that match no account (an account's are counted in the database).
    let nameLimiter: RateLimiter
    /// Recently seen sessions (nil: every viewer asks the database).
    public let sessionCache: SessionCache?
    /// Batches each lookup batcher may run at once (``batcher(_:)``).
    let lookupBatches: Int
    let now: @Sendable () -> Date
    /// Reports internal errors' details (never shown to clients).
    let log: @Sendable (String) -> Void
    /// Says why a credential was refused (a provider token, a passkey), which the client is told
    /// only in the contract's one message: for operators, not an error of the server.
    let refused: @Sendable (String) -> Void
    /// Seals the links of mail in the outbox (``AuthService/Options/linkBox``).
    let linkBox: SecretBox?
    /// Where every change of the event catalogue is recorded, in its transaction.
    public let events: EventLog
    /// The hooks that may refuse a sign-up or log-in (nil: none).
    let hooks: AuthHooks?
    /// The mail that tells users of changes to their account's security.
    let notices: SecurityNotices

    init(pool: Pool, hashing: PasswordHashingPool, options: AuthService.Options) {
        let configuration = options.configuration
        self.configuration = configuration
        self.users = UserStore(pool: pool)
        self.hashing = hashing
        self.hashKinds = HashKinds(current: hashing.hasher.cost)
        let now = options.now
        let seconds: @Sendable () -> Double = { now().timeIntervalSince1970 }
        self.addressLimiter = RateLimiter(
            window: configuration.rateLimits.addressWindow, capacity: options.limiterCapacity, now: seconds)
        self.nameLimiter = RateLimiter(
            window: configuration.rateLimits.accountWindow, capacity: options.limiterCapacity, now: seconds)
        self.sessionCache = options.sessionCache
        self.lookupBatches = max(1, options.sessionLookupBatches)
        self.now = now
        self.log = options.log
        self.refused = options.refused ?? options.log
        self.linkBox = options.linkBox
        self.events = options.events
        self.hooks = options.hooks
        self.notices = SecurityNotices(pool: pool, configuration: configuration, linkBox: options.linkBox, log: options.log)
    }

    /// Whether `key` is the configured master key (constant-time compared).
    public func isMasterKey(_ key: String?) -> Bool {
        guard let key, !key.isEmpty, let masterKey = configuration.masterKey else { return false }
        return ConstantTime.equals(key, masterKey)
    }

    /// Which master key `key` is (each compared in constant time); nil when neither.
    public func masterKey(_ key: String?) -> MasterKey? {
        if isMasterKey(key) { return .master }
        guard let key, !key.isEmpty, let readOnly = configuration.readOnlyMasterKey else { return nil }
        return ConstantTime.equals(key, readOnly) ? .readOnly : nil
    }

    /// Reads the kinds of password hash stored in the users table into ``hashKinds``, so that
    /// kinds no account has any more stop costing failed log-ins work. Run at start and then
    /// periodically; a kind met by a log-in in between is added at once.
    public func refreshHashKinds() throws(AuthError) {
        let prefixes = try database { () throws in try users.hashKindPrefixes() }
        hashKinds.replace(withPrefixes: prefixes)
    }

    // MARK: Limits

    /// Counts a signUp or logIn attempt against the client's network (``ClientNetwork``).
    func limitAddress(_ network: String) throws(AuthError) {
        if let wait = addressLimiter.attempt([(RateLimiter.Key(network), configuration.rateLimits.perAddress)]) {
            throw .rateLimited(retryAfter: wait)
        }
    }

    /// The per-account ceiling over all networks, in multiples of the per-account limit.
    static let networkCeiling = 10

    /// The parameters of an attempt at `time` from `network` (``UserStore/Attempt``);
    /// `installation` is the installation id's digest at `logIn`, nil elsewhere.
    func attempt(network: String, installation: [UInt8]?, at time: Date) -> UserStore.Attempt {
        let policy = configuration.rateLimits
        let window = Double(max(1, policy.accountWindow))
        return UserStore.Attempt(
            network: network,
            windowEnd: Date(timeIntervalSince1970: ((time.timeIntervalSince1970 / window).rounded(.down) + 1) * window),
            perAccount: policy.perAccount, ceiling: Self.networkCeiling, installation: installation,
            knownSince: time.addingTimeInterval(-UserStore.installationMemory),
            lockout: configuration.lockout.map { ($0.threshold, time.addingTimeInterval(Double($0.durationMinutes) * 60)) },
            now: time)
    }

    /// What a counted attempt is refused with before its check, if anything: 155 past the
    /// per-account limit, else the lockout message while the account is locked.
    func refusal(_ count: UserStore.AttemptCount, _ attempt: UserStore.Attempt) -> AuthError? {
        if count.limited {
            return .rateLimited(retryAfter: max(1, Int(attempt.windowEnd.timeIntervalSince(attempt.now).rounded(.up))))
        }
        if let until = count.lockedUntil {
            // At most the lockout's duration: a lock a concurrent attempt started a moment after
            // this one's `now` ends that moment more than the duration after it.
            let minutes = Int((until.timeIntervalSince(attempt.now) / 60).rounded(.up))
            return .accountLocked(minutes: max(1, min(minutes, configuration.lockout?.durationMinutes ?? minutes)))
        }
        return nil
    }

    /// Gives back the attempt's lockout reservation, if it took one (``UserStore/releaseAttempt(_:threshold:)``):
    /// for an attempt that ended without a wrong credential and without a session. A failure is
    /// logged, not thrown: the attempt's own answer stands.
    func release(_ count: UserStore.AttemptCount) {
        guard let reservation = count.reservation, let lockout = configuration.lockout else { return }
        _ = try? database { () throws in try users.releaseAttempt(reservation, threshold: lockout.threshold) }
    }

    /// After a wrong credential whose attempt started a lockout (it took the threshold-th
    /// reservation, and the lock now stays): records `user.locked`. The lock itself was written
    /// when the attempt was counted, before its check could tell whether it would stay.
    func noteWrongCredential(_ count: UserStore.AttemptCount) {
        guard let reservation = count.reservation, let until = reservation.startedLock, events.records(.userLocked) else { return }
        let event = AuthEvent.locked(userId: reservation.userId, until: until, at: timestamp())
        _ = try? database { () throws in try users.pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx in try events.record(event, in: tx) }
        } }
    }

    /// Records a refused log-in as `session.failed` (audit log only; nothing without it) when
    /// `error` is a refusal the audit log names (``failureReason(_:)``). Every refused password
    /// log-in records one, the unknown name's too, so the record costs both the same. A failure
    /// to record is logged, not thrown: the log-in's own answer stands.
    func noteFailedLogIn(_ error: AuthError, userId: String?, authProvider: String) {
        guard let reason = Self.failureReason(error), events.records(.sessionFailed) else { return }
        let event = AuthEvent.logInFailed(reason, userId: userId, authProvider: authProvider, at: timestamp())
        do {
            try database { () throws in try users.pool.withConnection(retry: .never) { connection in
                try connection.transaction { tx in
                    // The refusal does not wait for the entry's WAL flush: a crash may lose the last
                    // few failures' entries (never a seal's consistency: the seal's own commit, later,
                    // flushes the WAL before it), where waiting would make every wrong password cost
                    // a disk flush. Both go with the COMMIT: `BEGIN` and one round trip.
                    tx.executeWithCommit("SET LOCAL synchronous_commit TO off")
                    try events.record(event, in: tx)
                }
            } }
        } catch {
            log("recording a failed log-in: \(error)")
        }
    }

    /// The `session.failed` reason of a log-in's refusal; nil for answers that are not a failed
    /// attempt (a missing field, a second factor not yet sent, an unverified email).
    static func failureReason(_ error: AuthError) -> AuthEvent.FailureReason? {
        switch error {
        case .invalidCredentials: .password
        case .invalidMFAToken, .invalidRecoveryCode: .mfa
        case .invalidPasskey: .passkey
        case .invalidAuthData: .provider
        case .accountLocked: .locked
        case .accountDisabled: .disabled
        case .rateLimited: .rateLimited
        default: nil
        }
    }

    /// The `data` of a `beforeSignUp` hook's call.
    func hookData(username: String, email: String?, authProvider: String, request: AuthRequest) -> JSONObject {
        [
            "username": .string(username), "email": email.map(JSON.string) ?? .null, "authProvider": .string(authProvider),
            "ip": .string(request.clientAddress), "userAgent": request.userAgent.map(JSON.string) ?? .null,
        ]
    }

    /// The `data` of a `beforeLogIn` hook's call.
    func hookData(_ user: User, authProvider: String, factors: [String], request: AuthRequest) -> JSONObject {
        [
            "userId": .string(user.objectId), "username": .string(user.username), "email": user.email.map(JSON.string) ?? .null,
            "authProvider": .string(authProvider), "factors": .array(factors.map(JSON.string)),
            "ip": .string(request.clientAddress), "userAgent": request.userAgent.map(JSON.string) ?? .null,
        ]
    }

    /// Runs `check`, a check of one of the user's credentials outside `logIn` (a TOTP or recovery
    /// code, a `currentPassword`), counted before it against the account as a log-in attempt is
    /// (contract: a wrong one counts as a failed log-in): refused with 155 past the per-account
    /// limit and with the lockout message while the account is locked, before any work. `check`
    /// throwing an error that `isWrong` says is a wrong credential counts as a failed log-in; any
    /// other outcome gives the count for lockout back. No installation is exempt: the owner's
    /// exemption is for the password typed at `logIn`, never for guesses at a code.
    func countedCheck<T>(
        userId: String, request: AuthRequest, isWrong: (AuthError) -> Bool, _ check: () throws(AuthError) -> T
    ) throws(AuthError) -> T {
        let attempt = attempt(network: ClientNetwork.key(of: request.clientAddress), installation: nil, at: timestamp())
        // Neither limit nor lockout: nothing to count.
        if attempt.perAccount == 0 && attempt.lockout == nil { return try check() }
        guard let count = try database({ () throws in try users.accountAttempt(userId: userId, attempt: attempt) }) else {
            throw .objectNotFound  // deleted meanwhile
        }
        if let refusal = refusal(count, attempt) { throw refusal }
        do {
            let result = try check()
            release(count)
            return result
        } catch {
            if !isWrong(error) { release(count) } else { noteWrongCredential(count) }
            throw error
        }
    }

    /// Password and email changes and deletion: the master key, a session created within
    /// `GATEHOUSE_RECENT_AUTH` seconds, or the right `currentPassword`. A given `currentPassword`
    /// must be right even within the window, and is checked as a log-in's password is: counted
    /// against the client address and the account first (``countedCheck(userId:request:isWrong:_:)``),
    /// a wrong one a failed log-in.
    func checkRecentAuthentication(
        _ caller: SessionGrant?, _ currentPassword: String?, _ storedHash: String?, _ user: User, _ request: AuthRequest
    ) throws(AuthError) {
        if request.isMaster { return }
        if let currentPassword, !currentPassword.isEmpty {
            // Each check costs a password hash: the address limit keeps sessions, which guests get
            // for free, from keeping the hashing workers busy.
            try limitAddress(ClientNetwork.key(of: request.clientAddress))
            try countedCheck(userId: user.objectId, request: request, isWrong: { $0 == .invalidCredentials }) { () throws(AuthError) in
                guard try verify(currentPassword, storedHash).isValid else { throw .invalidCredentials }
            }
            return
        }
        let window = configuration.accounts.recentAuthentication
        guard window > 0 else { return }
        guard let caller, caller.session.createdAt.addingTimeInterval(Double(window)) >= now() else {
            throw .recentLoginRequired
        }
    }

    /// Whether `GATEHOUSE_VERIFY_EMAILS=required` withholds a session from `user`: it has an email
    /// that is not verified (users without an email are not affected).
    func withholdsSession(from user: User) -> Bool {
        configuration.accounts.verifyEmails == .required && user.email != nil && !user.emailVerified
    }

    /// 205 `User email is not verified.` when ``withholdsSession(from:)``: checked after every
    /// successful authentication (password and its second factor, provider, passkey) and before
    /// the session is made, so no kind of log-in gets past the rule.
    func requireVerifiedEmail(_ user: User) throws(AuthError) {
        if withholdsSession(from: user) { throw .emailNotVerified }
    }

    /// 101 `This account has been disabled.` for a user an operator disabled: checked after every
    /// successful authentication (password and its second factor, provider, passkey), so that a
    /// wrong credential answers as it does for anyone and the message tells nothing to someone
    /// who does not hold the credential.
    func requireEnabled(_ user: User) throws(AuthError) {
        if user.disabled { throw .accountDisabled }
    }

    // MARK: Sessions and time

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

    /// A batcher of database lookups with the shared sizes: up to 64 keys a batch, at most
    /// ``lookupBatches`` at once, a second one only behind a full one; a stuck database fails
    /// the callers queued behind the batch that found it.
    func batcher<Key, Value>(_ run: @escaping LookupBatcher<Key, Value>.Run) -> LookupBatcher<Key, Value> {
        LookupBatcher(
            maxBatchSize: 64, maxConcurrentBatches: lookupBatches, concurrentBatchThreshold: 64,
            failsQueued: Self.databaseStuck, run: run)
    }

    /// No connection in time (or none to be had), or statement_timeout: the database is stuck, and
    /// a batch's callers queued behind the one that found it so fail with it.
    private static func databaseStuck(_ error: any Error) -> Bool {
        guard let error = error as? PostgresError else { return false }
        return error.kind == .databaseUnavailable || error.sqlState == "57014"
    }

    // MARK: Passwords

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

    // MARK: Errors

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

    /// ``UserStore/IdentityTaken``, ``AccountStore/LastWayToLogIn`` and
    /// ``AccountStore/GuestIdOfRegularUser`` as 208, 142 and 142.
    static func identityConflicts<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch is UserStore.IdentityTaken {
            throw AuthError.authAlreadyUsed
        } catch is AccountStore.LastWayToLogIn {
            throw AuthError.lastWayToLogIn
        } catch is AccountStore.GuestIdOfRegularUser {
            throw AuthError.guestIdOfRegularUser
        }
    }

    // MARK: Input

    /// `something@something` on one line, as Parse checks (`/^.+@.+$/`).
    static func isValidEmail(_ email: String) -> Bool {
        let characters = Array(email)
        let lineBreaks: Set<Character> = ["\n", "\r", "\r\n", "\u{2028}", "\u{2029}", "\0"]
        guard characters.count >= 3, !characters.contains(where: lineBreaks.contains) else { return false }
        return characters[1..<(characters.count - 1)].contains("@")
    }

    /// The objectId of `id`: a Relay global id of `type`, else `id` itself.
    static func objectId(_ id: String, type: String) -> String {
        GlobalID.decode(id, type: type) ?? id
    }
}
