import Foundation
import JSON
import Sodium

/// Sign-up and log-in by password, with Parse's semantics and the contract's "better than
/// Parse" behaviour (contract: Hardening): equal work for every outcome, limits per network
/// and per account, lockout.
extension SessionService {
    /// Creates a user and its first session. Checks the field sizes first (142), then in
    /// Parse's order: 200, 201, 252, 119, 142, 202, 125, 203.
    public func signUp(_ fields: SignUpFields?, request: AuthRequest) throws(AuthError) -> SessionGrant {
        try FieldLimits.check(fields, request, maximumPasswordBytes: core.configuration.passwordPolicy.maximumBytes)
        try core.limitAddress(ClientNetwork.key(of: request.clientAddress))
        guard let fields, let username = fields.username, !username.isEmpty, !username.contains("\0") else {
            throw .usernameMissing
        }
        guard let password = fields.password, !password.isEmpty else { throw .passwordMissing }
        if fields.hasAuthData { throw .unsupportedAuthentication }
        if fields.emailVerified != nil && !request.isMaster { throw .emailVerificationNotAllowed }
        guard core.configuration.passwordPolicy.accepts(password) else { throw .weakPassword }
        if core.configuration.passwordPolicy.isCommon(password) { throw .commonPassword }
        let email = fields.email
        // A log-in name means one account: a username may not be another user's email, nor an
        // email another user's username.
        try core.database { () throws in
            if try users.logInNameTaken(username) { throw AuthError.usernameTaken }
        }
        if let email {
            guard AuthCore.isValidEmail(email) else { throw .invalidEmail }
            try core.database { () throws in
                if try users.logInNameTaken(email) { throw AuthError.emailTaken }
            }
        }
        let passwordHash = try core.hash(password)
        let time = core.timestamp()
        let objectId = SecureRandom.objectId()
        let user = User(
            objectId: objectId, username: username, email: email,
            emailVerified: request.isMaster ? (fields.emailVerified ?? false) : false,
            acl: (fields.acl ?? ACL()).withOwner(objectId), createdAt: time, updatedAt: time)
        let (token, session) = core.newSession(action: "signup", request: request, now: time)
        // GATEHOUSE_VERIFY_EMAILS on/required: the verification mail goes with the new user;
        // required: no session until the address is verified.
        let verification = core.configuration.accounts.verifyEmails != .off && email != nil
        let sessionWithheld = core.configuration.accounts.verifyEmails == .required && email != nil
        let verifyToken = SecureRandom.linkToken()
        try core.database { () throws in
            try AuthCore.namesTaken {
                try users.insert(user, passwordHash: passwordHash, session: sessionWithheld ? nil : session) { tx in
                    guard verification, let email else { return }
                    try AccountStore.send(
                        mail.message(.verifyEmail, to: email, about: user, request: request, token: verifyToken),
                        token: AccountStore.NewToken(
                            digest: SHA256.digest(verifyToken),
                            expiresAt: time.addingTimeInterval(Double(core.configuration.accounts.verifyTokenLifetime))),
                        email: email, context: mail.context(time), in: tx)
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
    /// for users with TOTP (``SecondFactorService/checkSecondFactor(_:userId:sealedSecret:at:)``).
    public func logIn(
        username: String, password: String, hasAuthData: Bool, mfa: JSON? = nil, request: AuthRequest
    ) throws(AuthError) -> SessionGrant {
        try FieldLimits.check(request)
        let network = ClientNetwork.key(of: request.clientAddress)
        try core.limitAddress(network)
        guard !username.isEmpty else { throw .logInUsernameMissing }
        guard !password.isEmpty else { throw .logInPasswordMissing }
        if hasAuthData || (mfa != nil && core.configuration.mfa == .off) { throw .unsupportedAuthentication }
        let time = core.timestamp()
        let policy = core.configuration.rateLimits
        let window = Double(max(1, policy.accountWindow))
        let windowEnd = Date(timeIntervalSince1970: ((time.timeIntervalSince1970 / window).rounded(.down) + 1) * window)
        let found: UserStore.LogInAttempt?
        if username.contains("\0") || username.utf8.count > FieldLimits.logInNameBytes {
            found = nil  // cannot be stored, so cannot exist
        } else {
            found = try core.database { () throws in
                try users.logInAttempt(
                    name: username, network: network, windowEnd: windowEnd, limit: policy.perAccount,
                    installation: request.installationId.map { SHA256.digest($0) },
                    knownSince: time.addingTimeInterval(-UserStore.installationMemory))
            }
        }
        // Before any password work.
        guard let found else {
            let name = SHA256.hexDigest(username.lowercased())
            if let wait = core.nameLimiter.attempt([
                (RateLimiter.Key("name:\(name)@\(network)"), policy.perAccount),
                (RateLimiter.Key("name:\(name)"), policy.perAccount * Self.networkCeiling),
            ]) {
                throw .rateLimited(retryAfter: wait)
            }
            _ = try core.verify(password, nil)
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
        let verdict = try core.verify(password, credentials.passwordHash)
        if refusal == nil, let until = lockedUntil {
            refusal = .accountLocked(minutes: max(1, Int((until.timeIntervalSince(time) / 60).rounded(.up))))
        }
        // The owner's exemption: the right password from a known installation; anything else
        // gets the refusal it would have had without one.
        if let refusal, !(verdict.isValid && found.installationKnown) { throw refusal }
        guard verdict.isValid else {
            if let lockout = core.configuration.lockout {
                // Off the answer's path, so that a wrong password for an existing user takes the
                // time an unknown name does (contract, Hardening: equal work for every outcome).
                let until = time.addingTimeInterval(Double(lockout.durationMinutes) * 60)
                lockoutBookkeeping.run { [users, log = core.log] in
                    do {
                        try users.recordFailedLogIn(userId: credentials.user.objectId, lockout: lockout, lockUntil: until)
                    } catch {
                        log("failed log-in not recorded for lockout: \(error)")
                    }
                }
            }
            throw .invalidCredentials
        }
        var factors = ["password"]
        if core.configuration.mfa != .off, let sealedSecret = found.sealedTOTPSecret {
            try secondFactors.checkSecondFactor(mfa, userId: credentials.user.objectId, sealedSecret: sealedSecret, at: time)
            factors.append("totp")
        }
        // GATEHOUSE_VERIFY_EMAILS=required: the right password, but no session for an unverified email.
        try core.requireVerifiedEmail(credentials.user)
        // Outdated argon2id parameters or an imported bcrypt hash: replace it now.
        let rehash = verdict.needsRehash ? try core.hash(password) : nil
        let (token, session) = core.newSession(action: "login", factors: factors, request: request, now: time)
        try core.database { () throws in
            try users.completeLogIn(
                userId: credentials.user.objectId, rehash: rehash, keepLockout: lockedUntil != nil, session: session, now: time)
        }
        var user = credentials.user
        if rehash != nil { user.updatedAt = time }
        return SessionGrant(sessionToken: token, user: user, session: session.session)
    }

    /// The per-account ceiling over all networks, in multiples of the per-account limit.
    static let networkCeiling = 10
}
