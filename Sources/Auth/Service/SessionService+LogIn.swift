import Foundation
import JSON
import Sodium
import Signatures

/// Sign-up and log-in by password, with Parse's semantics and the contract's "better than
/// Parse" behaviour (docs/operations.md, security notes): equal work for every outcome, limits per network
/// and per account, lockout.
extension SessionService {
    /// Creates a user and its first session. Checks the field sizes first (142), then the
    /// profile's fields (``UserFields/check(_:isMaster:)``: 119, 142), then in Parse's order: 200,
    /// 201, 252, 119, 142, 202, 125, 203.
    public func signUp(_ fields: SignUpFields?, request: AuthRequest) throws(AuthError) -> SessionGrant {
        try FieldLimits.check(fields, request, maximumPasswordBytes: core.configuration.passwordPolicy.maximumBytes)
        let profile = try core.configuration.userFields.check(fields?.profile ?? [:], isMaster: request.isMaster)
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
        // The hook runs once the input is valid, between the database's checks and the hash:
        // it holds neither a connection nor a hashing worker.
        try core.hooks?.check(.beforeSignUp, core.hookData(username: username, email: email, authProvider: "password", request: request))
        let passwordHash = try core.hash(password)
        let time = core.timestamp()
        let objectId = SecureRandom.objectId()
        let user = try profile.applied(to: User(
            objectId: objectId, username: username, email: email,
            emailVerified: request.isMaster ? (fields.emailVerified ?? false) : false,
            acl: (fields.acl ?? ACL()).withOwner(objectId), createdAt: time, updatedAt: time))
        let (token, session) = core.newSession(action: "signup", request: request, now: time)
        // GATEHOUSE_VERIFY_EMAILS on/required: the verification mail goes with the new user;
        // required: no session until the address is verified.
        let verification = core.configuration.accounts.verifyEmails != .off && email != nil
        let sessionWithheld = core.configuration.accounts.verifyEmails == .required && email != nil
        let verifyToken = SecureRandom.linkToken()
        try core.database { () throws in
            try AuthCore.namesTaken {
                try users.insert(user, passwordHash: passwordHash, session: sessionWithheld ? nil : session) { tx in
                    try core.events.record(
                        [.userCreated(user, authProvider: "password", at: time)]
                            + (sessionWithheld ? [] : [.sessionCreated(session.session, userId: objectId, request: request)]),
                        in: tx)
                    try core.notices.recordDevice(userId: objectId, request: request, at: time, in: tx)
                    guard verification, let email else { return }
                    let mailed = mail.verification(to: email, about: user, request: request, token: verifyToken, at: time)
                    try AccountStore.send(mailed.message, token: mailed.token, email: email, context: mail.context(time), in: tx)
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
    /// Limits (docs/api.md, limits): per client network (`limitAddress`), then per account and
    /// network, with a ceiling over all networks of ten times that: an account's counts are kept
    /// in the database, counted in the round trip that finds the account, and a name that matches
    /// no account is counted the same way in memory, so the limit does not tell which names exist.
    /// Lockout is counted in that round trip too, before the password is checked
    /// (``UserStore/countAttempt``): parallel guesses cannot all be checked before one is counted.
    /// The right password with an installation id that had a session of the account in the last
    /// 30 days is let in past the per-account limit and lockout.
    ///
    /// `mfa` is `authData.mfa` (`{token}`: a TOTP or recovery code), checked after the password
    /// for users with TOTP (``SecondFactorService/checkSecondFactor(_:userId:sealedSecret:at:)``),
    /// within the same attempt: a wrong code is a failed log-in. The owner's exemption covers the
    /// password, not the code: an installation id is a value the device sends, not a factor, so
    /// past the limit or lockout no code is checked, known installation or not.
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
        let attempt = core.attempt(network: network, installation: request.installationId.map { SHA256.digest($0) }, at: time)
        let found: UserStore.LogInAttempt?
        if username.contains("\0") || username.utf8.count > FieldLimits.logInNameBytes {
            found = nil  // cannot be stored, so cannot exist
        } else {
            found = try core.database { () throws in try users.logInAttempt(name: username, attempt: attempt) }
        }
        // Before any password work.
        guard let found else {
            let name = SHA256.hexDigest(username.lowercased())
            let limit = core.configuration.rateLimits.perAccount
            if let wait = core.nameLimiter.attempt([
                (RateLimiter.Key("name:\(name)@\(network)"), limit),
                (RateLimiter.Key("name:\(name)"), limit * AuthCore.networkCeiling),
            ]) {
                core.noteFailedLogIn(.rateLimited(retryAfter: wait), userId: nil, authProvider: "password")
                throw .rateLimited(retryAfter: wait)
            }
            _ = try core.verify(password, nil)
            core.noteFailedLogIn(.invalidCredentials, userId: nil, authProvider: "password")
            throw .invalidCredentials
        }
        let credentials = found.credentials
        let count = found.count
        let refusal = core.refusal(count, attempt)
        // Past the limit no password work, unless the owner's installation may be let in.
        if count.limited && !count.installationKnown, let refusal {
            core.noteFailedLogIn(refusal, userId: credentials.user.objectId, authProvider: "password")
            throw refusal
        }
        // A wrong credential keeps the attempt's lockout reservation; every other end but a new
        // session gives it back.
        var wrong = false
        do throws(AuthError) {
            let verdict = try core.verify(password, credentials.passwordHash)
            wrong = !verdict.isValid
            // The owner's exemption: the right password from a known installation; anything else
            // gets the refusal it would have had without one.
            if let refusal, !(verdict.isValid && count.installationKnown) { throw refusal }
            guard verdict.isValid else { throw .invalidCredentials }
            var factors = ["password"]
            var recoveryCodeUsed = false
            if core.configuration.mfa != .off, let sealedSecret = found.sealedTOTPSecret {
                if let refusal { throw refusal }
                let code = try SecondFactorService.code(in: mfa)
                do {
                    recoveryCodeUsed = try secondFactors.checkSecondFactor(
                        code, userId: credentials.user.objectId, sealedSecret: sealedSecret, at: time)
                } catch {
                    wrong = SecondFactorService.isWrongCode(error)
                    throw error
                }
                factors.append("totp")
            }
            try core.requireEnabled(credentials.user)
            // GATEHOUSE_VERIFY_EMAILS=required: the right password, but no session for an unverified email.
            try core.requireVerifiedEmail(credentials.user)
            // Every credential and factor is right: the hook may still say no, before anything
            // is written and holding neither a connection nor a hashing worker.
            try core.hooks?.check(.beforeLogIn, core.hookData(credentials.user, authProvider: "password", factors: factors, request: request))
            // Outdated argon2id parameters or an imported bcrypt hash: replace it now.
            let rehash = verdict.needsRehash ? try core.hash(password) : nil
            let (token, session) = core.newSession(action: "login", factors: factors, request: request, now: time)
            func complete(_ checkedHash: String?, _ rehash: String?) throws(AuthError) -> UserStore.Completion {
                try core.database { () throws in
                    try users.completeLogIn(
                        userId: credentials.user.objectId, checkedHash: checkedHash, rehash: rehash,
                        keepLockout: count.lockedUntil != nil, session: session, now: time, events: core.events, request: request)
                }
            }
            var completion = try complete(credentials.passwordHash, rehash)
            if case .hashReplaced(let current) = completion {
                // Replaced before this log-in's rehash: by another log-in's rehash of the same
                // password (a session then), or by a reset or change (none).
                guard try core.verify(password, current).isValid else { throw AuthError.invalidCredentials }
                completion = try complete(current, nil)
            }
            // Disabled, or its password reset or changed, since the checks above (while the hook or the
            // second factor ran): no session was made.
            switch completion {
            case .started: break
            case .disabled: throw AuthError.accountDisabled
            case .passwordChanged, .hashReplaced: throw AuthError.invalidCredentials
            }
            var user = credentials.user
            if rehash != nil { user.updatedAt = time }
            if recoveryCodeUsed { core.notices.send(.recoveryCodeUsed, about: user, request: request, at: time) }
            core.notices.signedIn(user, request: request, at: time)
            return SessionGrant(sessionToken: token, user: user, session: session.session)
        } catch {
            if !wrong { core.release(count) } else { core.noteWrongCredential(count) }
            core.noteFailedLogIn(error, userId: credentials.user.objectId, authProvider: "password")
            throw error
        }
    }
}
