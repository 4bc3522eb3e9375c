import Foundation
import JSON
import Postgres
import Providers
import Sodium

/// Third-party log-in (docs/providers.md): `logInWith`, the checks of `updateUser`'s links,
/// `User.authData`. Provider tokens are checked by ``ProviderRegistry`` and never stored: a user's
/// links keep only the provider's user id. Owns the registry and the batcher of linked users'
/// log-ins.
public final class ProviderService: Sendable {
    let core: AuthCore
    /// The code of users with TOTP, and `User.authData.mfa`.
    let secondFactors: SecondFactorService
    let users: UserStore
    /// The verification mail of a new user's email.
    let mail: AccountMail
    /// Third-party log-in (`logInWith`, linking); nil: none, every provider is unsupported.
    let providers: ProviderRegistry?
    /// Provider log-ins of linked users, coalesced across request threads: one statement finds
    /// the users and inserts the sessions of every log-in waiting.
    let providerLogIns: LookupBatcher<UserStore.ProviderLogIn, UserStore.LinkedUser>

    init(core: AuthCore, secondFactors: SecondFactorService, pool: Pool, providers: ProviderRegistry?) {
        self.core = core
        self.secondFactors = secondFactors
        let users = UserStore(pool: pool)
        self.users = users
        self.mail = AccountMail(core.configuration.accounts, linkBox: core.linkBox)
        self.providers = providers
        self.providerLogIns = core.batcher { [
            withholdingTOTP = core.configuration.mfa != .off,
            withholdingUnverified = core.configuration.accounts.verifyEmails == .required,
            withholdingAll = core.hooks?.points.contains(.beforeLogIn) ?? false,
            events = core.events
        ] in
            try users.logIn(
                $0, withholdingTOTP: withholdingTOTP, withholdingUnverified: withholdingUnverified, withholdingAll: withholdingAll,
                events: events)
        }
    }

    /// Logs in with a provider's `authData` (exactly one provider): the user its id is linked to
    /// gets a new session; an id linked to no one makes a new user with a random username and
    /// no password (`fields`: its ACL, email, profile fields and, with the master key,
    /// `emailVerified`, checked as at sign-up, written with the user), never linked to an existing
    /// account by email. Counts against the client address limit like signUp. Costs no password hash. A user with TOTP also needs its code
    /// beside the provider's data (`authData.mfa`, as at `logIn`), counted against the account's
    /// limit and lockout. `GATEHOUSE_VERIFY_EMAILS` applies as at signUp: a new user's email gets
    /// the verification mail (`on`, `required`), and with `required` a user whose email is not
    /// verified, new or linked, gets 205 and no session.
    public func logInWith(authData: JSONObject, fields: SignUpFields?, request: AuthRequest) throws(AuthError) -> SessionGrant {
        try FieldLimits.check(
            SignUpFields(email: fields?.email, acl: fields?.acl), request,
            maximumPasswordBytes: core.configuration.passwordPolicy.maximumBytes)
        let profile = try core.configuration.userFields.check(fields?.profile ?? [:], isMaster: request.isMaster)
        try core.limitAddress(ClientNetwork.key(of: request.clientAddress))
        var authData = authData
        let mfa = authData["mfa"]
        authData["mfa"] = nil
        guard authData.count == 1, mfa == nil || core.configuration.mfa != .off else { throw .unsupportedAuthentication }
        let provider = authData.keys[0]
        let providerUserId: String
        do { providerUserId = try verify(provider, authData.values[0]) } catch {
            core.noteFailedLogIn(error, userId: nil, authProvider: provider)
            throw error
        }
        let time = core.timestamp()
        if let grant = try logInLinked(provider, providerUserId, mfa: mfa, request, time) { return grant }

        if fields?.emailVerified != nil && !request.isMaster { throw .emailVerificationNotAllowed }
        let email = fields?.email
        if let email {
            guard AuthCore.isValidEmail(email) else { throw .invalidEmail }
            try core.database { () throws in
                if try users.logInNameTaken(email) { throw AuthError.emailTaken }
            }
        }
        let username = SecureRandom.string(length: 25, alphabet: Self.usernameAlphabet)
        try core.hooks?.check(.beforeSignUp, core.hookData(username: username, email: email, authProvider: provider, request: request))
        let objectId = SecureRandom.objectId()
        let user = try profile.applied(to: User(
            objectId: objectId, username: username, email: email,
            emailVerified: request.isMaster ? (fields?.emailVerified ?? false) : false,
            acl: (fields?.acl ?? ACL()).withOwner(objectId), createdAt: time, updatedAt: time))
        let (token, session) = core.newSession(action: "signup", authProvider: provider, request: request, now: time)
        let verification = core.configuration.accounts.verifyEmails != .off && email != nil && !user.emailVerified
        let sessionWithheld = core.withholdsSession(from: user)
        let verifyToken = SecureRandom.linkToken()
        let raced = try core.database { () throws in
            do {
                try AuthCore.namesTaken {
                    try users.insert(user, passwordHash: nil, session: sessionWithheld ? nil : session) { tx in
                        try UserStore.link(provider: provider, providerUserId: providerUserId, userId: objectId, now: time, in: tx)
                        try core.events.record(
                            [.userCreated(user, authProvider: provider, at: time)]
                                + (sessionWithheld ? [] : [.sessionCreated(session.session, userId: objectId, request: request)]),
                            in: tx)
                        try core.notices.recordDevice(userId: objectId, request: request, at: time, in: tx)
                        guard verification, let email else { return }
                        let mailed = mail.verification(to: email, about: user, request: request, token: verifyToken, at: time)
                        try AccountStore.send(mailed.message, token: mailed.token, email: email, context: mail.context(time), in: tx)
                    }
                }
                return false
            } catch is UserStore.IdentityTaken {
                return true
            }
        }
        if raced {
            // A concurrent logInWith with the same id made its user first: log in to that one.
            guard let grant = try logInLinked(provider, providerUserId, mfa: mfa, request, time) else {
                throw .internalError(detail: "a provider id's new user vanished")
            }
            return grant
        }
        if sessionWithheld { throw .emailNotVerified }
        return SessionGrant(sessionToken: token, user: user, session: session.session)
    }

    /// A new session of the user `providerUserId` of `provider` is linked to; nil when there is
    /// none. A user with TOTP needs its code in `mfa`
    /// (``SecondFactorService/checkSecondFactor(_:userId:sealedSecret:at:)``), and then, as every
    /// user, a verified email if `GATEHOUSE_VERIFY_EMAILS=required`
    /// (``AuthCore/requireVerifiedEmail(_:)``): the batch withholds the session of a user either
    /// may refuse, made here once both pass. The code is counted against the account first, as a
    /// log-in's is (``AuthCore/countedCheck(userId:request:isWrong:_:)``): past the per-account
    /// limit or while the account is locked no code is checked, and a wrong one is a failed
    /// log-in. A right one clears nothing: the failed log-ins and lockout count guesses, which a
    /// provider's token does not end.
    private func logInLinked(
        _ provider: String, _ providerUserId: String, mfa: JSON?, _ request: AuthRequest, _ time: Date
    ) throws(AuthError) -> SessionGrant? {
        let (token, session) = core.newSession(action: "login", authProvider: provider, request: request, now: time)
        let logIn = UserStore.ProviderLogIn(provider: provider, providerUserId: providerUserId, session: session, request: request)
        guard let linked = try core.database({ () throws in try providerLogIns.lookup(logIn) }) else { return nil }
        if linked.sessionStarted {
            core.notices.signedIn(linked.user, request: request, at: time)
            return SessionGrant(sessionToken: token, user: linked.user, session: session.session)
        }
        var withheld = session
        var recoveryCodeUsed = false
        if let sealedSecret = linked.withheldForTOTP {
            let code = try SecondFactorService.code(in: mfa)
            recoveryCodeUsed = try core.countedCheck(
                userId: linked.user.objectId, request: request, isWrong: SecondFactorService.isWrongCode
            ) { () throws(AuthError) in
                try secondFactors.checkSecondFactor(code, userId: linked.user.objectId, sealedSecret: sealedSecret, at: time)
            }
            withheld.session.factors.append("totp")
        }
        try core.requireEnabled(linked.user)
        try core.requireVerifiedEmail(linked.user)
        try core.hooks?.check(
            .beforeLogIn, core.hookData(linked.user, authProvider: provider, factors: withheld.session.factors, request: request))
        let completion = try core.database { () throws in
            try users.completeLogIn(
                userId: linked.user.objectId, checkedHash: nil, rehash: nil, keepLockout: true, session: withheld, now: time,
                events: core.events, request: request)
        }
        // Disabled since the check above, while the hook ran: no session was made.
        guard completion == .started else { throw AuthError.accountDisabled }
        if recoveryCodeUsed { core.notices.send(.recoveryCodeUsed, about: linked.user, request: request, at: time) }
        core.notices.signedIn(linked.user, request: request, at: time)
        return SessionGrant(sessionToken: token, user: linked.user, session: withheld.session)
    }

    /// The user's linked providers as `User.authData` shows them: `{"<provider>": {"id": "…"}}`,
    /// and `"mfa": {"status": "enabled"}` with TOTP (never its secret); nil when none.
    public func authData(userId: String) throws(AuthError) -> JSONObject? {
        let identities = try core.database { () throws in try users.identities(userId: userId) }
        var object = JSONObject()
        for identity in identities { object[identity.provider] = .object(["id": .string(identity.id)]) }
        if try secondFactors.hasTOTP(userId: userId) { object["mfa"] = ["status": "enabled"] }
        return object.isEmpty ? nil : object
    }

    /// updateUser's `authData`, checked: the provider ids to link (each provider's object verified,
    /// 252 for a provider not configured, 101 for a failed check) and the providers to unlink (null).
    func verifiedLinks(_ authData: JSONObject) throws(AuthError) -> (links: [String: String], unlinks: [String]) {
        var links: [String: String] = [:]
        var unlinks: [String] = []
        for (provider, value) in zip(authData.keys, authData.values) {
            switch value {
            case .null: unlinks.append(provider)
            default: links[provider] = try verify(provider, value)
            }
        }
        return (links, unlinks)
    }

    /// The provider's user id from its `authData` entry `value` (252 when the provider is not
    /// configured; 101 when it fails a check, whose detail goes to the log only).
    private func verify(_ provider: String, _ value: JSON) throws(AuthError) -> String {
        guard let providers, providers.isSupported(provider) else { throw .unsupportedAuthentication }
        do {
            return try providers.verify(provider, [provider: value])
        } catch {
            switch error {
            case .unsupported: throw .unsupportedAuthentication
            case .invalid(let detail):
                core.refused("invalid authData for provider \(provider): \(detail)")
                throw .invalidAuthData(provider: provider)
            }
        }
    }

    /// The alphabet of the random usernames of users a provider creates.
    static let usernameAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
}
