import Foundation
import Mail
import Postgres
import Sodium
import Signatures

/// The account lifecycle (docs/accounts.md): password reset, email verification, changes,
/// deletion, reading a user. Each mail is added to the outbox in the transaction of the change
/// that causes it; link tokens are 256 random bits, stored only as SHA-256 digests. Owns the
/// accounts' store and the equal answer times of the link mails.
public final class AccountService: Sendable {
    let core: AuthCore
    /// `updateUser`'s `authData.mfa`, and `GATEHOUSE_MFA=required`.
    let secondFactors: SecondFactorService
    /// `updateUser`'s provider links.
    let providers: ProviderService
    /// Reset and verification tokens, account changes and deletion, with their mail.
    let accounts: AccountStore
    let mail: AccountMail
    /// Equal answer times for resetPassword and sendVerificationEmail, whether or not they send.
    let linkTiming = (reset: TimingEqualizer(), verify: TimingEqualizer())

    init(core: AuthCore, secondFactors: SecondFactorService, providers: ProviderService, pool: Pool) {
        self.core = core
        self.secondFactors = secondFactors
        self.providers = providers
        self.accounts = AccountStore(pool: pool)
        self.mail = AccountMail(core.configuration.accounts, linkBox: core.linkBox)
    }

    /// Sends a reset link to the user whose email this is (case-insensitively), if any, replacing
    /// the user's previous reset token; answers the same for an unknown email.
    public func resetPassword(email: String, request: AuthRequest) throws(AuthError) {
        try core.limitAddress(ClientNetwork.key(of: request.clientAddress))
        guard !email.isEmpty else { throw .emailMissing }
        guard email.utf8.count <= FieldLimits.emailBytes, !email.contains("\0") else { return }  // cannot be stored
        try sendLink(
            .resetPassword, to: email, unverifiedOnly: false, lifetime: core.configuration.accounts.resetTokenLifetime,
            request: request)
    }

    /// Sends a verification link to the address, if it is an existing user's unverified email;
    /// answers the same otherwise (Parse's 205 and -1 would tell who is registered).
    public func sendVerificationEmail(email: String, request: AuthRequest) throws(AuthError) {
        try core.limitAddress(ClientNetwork.key(of: request.clientAddress))
        guard !email.isEmpty else { throw .emailMissing }
        guard email.utf8.count <= FieldLimits.emailBytes, !email.contains("\0") else { return }
        try sendLink(
            .verifyEmail, to: email, unverifiedOnly: true, lifetime: core.configuration.accounts.verifyTokenLifetime,
            request: request)
    }

    /// The link mail of `kind` for the address, if it is an account's (and, `unverifiedOnly`,
    /// not yet verified). Answers that send nothing take as long as those that write the token and
    /// the message (``linkTiming``), so the time does not tell which addresses are registered.
    private func sendLink(_ kind: MailKind, to email: String, unverifiedOnly: Bool, lifetime: Int, request: AuthRequest) throws(AuthError) {
        let start = ContinuousClock.now
        let token = SecureRandom.linkToken()
        let time = core.timestamp()
        let newToken = AccountStore.NewToken(digest: SHA256.digest(token), expiresAt: time.addingTimeInterval(Double(lifetime)))
        let sent = try core.database { () throws in
            try accounts.sendLink(
                kind: kind.rawValue, email: email, unverifiedOnly: unverifiedOnly, token: newToken, context: mail.context(time)
            ) { user in
                mail.message(kind, to: user.email ?? email, about: user, request: request, token: token)
            }
        }
        let timing = kind == .resetPassword ? linkTiming.reset : linkTiming.verify
        timing.finish(since: start, fullWork: sent)
    }

    /// Sets a new password with a reset token: the token is used up (of two concurrent uses one
    /// wins), every session of the user ends, failed log-ins and lockout are cleared, the email
    /// counts as verified, and a "password changed" notice is sent. The token works only while
    /// the user's email is the address it was sent to. A reset that confirms an address not
    /// verified before also removes the linked providers and passkeys
    /// (``AccountStore/completeReset(digest:userId:passwordHash:context:notice:)``), and a second
    /// notice lists them.
    public func confirmResetPassword(username: String, password: String, token: String, request: AuthRequest) throws(AuthError) {
        try core.limitAddress(ClientNetwork.key(of: request.clientAddress))
        guard !username.isEmpty else { throw .linkUsernameMissing }
        guard !password.isEmpty else { throw .newPasswordMissing }
        guard !token.isEmpty else { throw .tokenMissing }
        if password.utf8.count > core.configuration.passwordPolicy.maximumBytes {
            throw .tooLong(field: "password", limit: "\(core.configuration.passwordPolicy.maximumBytes) bytes")
        }
        let digest = SHA256.digest(token)
        let time = core.timestamp()
        guard let (user, expiresAt) = try core.database({ () throws in try accounts.resetToken(digest: digest) }),
            Self.names(user, username)
        else { throw .invalidResetLink }
        guard expiresAt > time else { throw .resetLinkExpired }
        guard core.configuration.passwordPolicy.accepts(password) else { throw .weakPassword }
        if core.configuration.passwordPolicy.isCommon(password) { throw .commonPassword }
        let passwordHash = try core.hash(password)
        let updated = try core.database { () throws in
            try accounts.completeReset(
                digest: digest, userId: user.objectId, passwordHash: passwordHash, context: mail.context(time), events: core.events
            ) { user, removal in
                guard let email = user.email else { return [] }
                var messages = [mail.message(.passwordChanged, to: email, about: user, request: request, token: nil)]
                let removed = Self.signInChanges(removal)
                if !removed.isEmpty {
                    messages.append(
                        mail.message(.signInMethodsRemoved, to: email, about: user, request: request, token: nil, signInChanges: removed))
                }
                return messages
            }
        }
        guard updated != nil else { throw .invalidResetLink }
        core.sessionCache?.invalidate(userId: user.objectId)
    }

    /// Marks the user's email verified with a verification token. Repeating it with the same
    /// token succeeds again while the token has not expired.
    public func verifyEmail(username: String, token: String, request: AuthRequest) throws(AuthError) {
        try core.limitAddress(ClientNetwork.key(of: request.clientAddress))
        guard !username.isEmpty else { throw .linkUsernameMissing }
        guard !token.isEmpty else { throw .tokenMissing }
        let digest = SHA256.digest(token)
        let time = core.timestamp()
        guard let userId = try core.database({ () throws in try accounts.verifyEmail(digest: digest, name: username, now: time, events: core.events) }) else {
            throw .invalidVerificationLink
        }
        core.sessionCache?.invalidate(userId: userId)
    }

    /// Changes a user: its owner (`caller`) or the master key. A password change ends every other
    /// session of the user and keeps the caller's, forgets every installation but the caller's
    /// (the owner's exemption from the log-in limits), and makes a guest (`anonymous`) a regular user;
    /// an email change unverifies the address and voids the reset and verification links sent
    /// before. `displayName`, `photoURL` and declared fields are checked first
    /// (``UserFields/check(_:isMaster:)``: 119 for a `@serverOnly` or `@hidden` field without the
    /// master key, 142 past a rule) and made in the same transaction as the rest. A password
    /// change, an email change, and provider links and unlinks need a recent authentication
    /// (``AuthCore/checkRecentAuthentication(_:_:_:_:_:)``), so a stolen old session cannot add a
    /// way in; a user without a password (made by a provider) has none to give, so needs a
    /// recent session. `authData` links providers after checking them
    /// (``ProviderService/verifiedLinks(_:)``) and unlinks them, each change told to the account's
    /// email (its address before an email change in the same request); a provider linked to a
    /// guest ends its `anonymous` link, and an `anonymous` id cannot be linked to a user with
    /// another way in. Its `mfa` entry changes TOTP
    /// (``SecondFactorService/changeTOTP(_:current:storedHash:currentPassword:caller:request:)``)
    /// before the other changes are made, and the returned user's `authDataResponse` carries what
    /// that answers.
    public func updateUser(
        id: String, changes: UserChanges, currentPassword: String?, caller: SessionGrant?, request: AuthRequest
    ) throws(AuthError) -> User {
        let objectId = AuthCore.objectId(id, type: "_User")
        guard request.isMaster || caller != nil else { throw .cannotModifyUser(objectId: objectId) }
        if !request.isMaster, caller?.user.objectId != objectId { throw .insufficientAuth }
        var providerData = changes.authData
        let mfa = providerData["mfa"]
        providerData["mfa"] = nil
        // GATEHOUSE_MFA=required: a session without a second factor may only change TOTP (enrol).
        let totpOnly = mfa != nil && providerData.isEmpty && changes.username == nil && changes.email == nil
            && changes.password == nil && changes.emailVerified == nil && changes.acl == nil && changes.profile.isEmpty
        if !totpOnly { try secondFactors.requireSecondFactor(caller, request) }
        try FieldLimits.check(
            SignUpFields(username: changes.username, password: changes.password, email: changes.email, acl: changes.acl),
            request, maximumPasswordBytes: core.configuration.passwordPolicy.maximumBytes)
        let profile = try core.configuration.userFields.check(changes.profile, isMaster: request.isMaster)
        let (links, unlinks) = try providers.verifiedLinks(providerData)
        if changes.emailVerified != nil && !request.isMaster { throw .emailVerificationNotAllowed }
        if let username = changes.username, username.isEmpty || username.contains("\0") { throw .usernameMissing }
        if let password = changes.password {
            guard !password.isEmpty, core.configuration.passwordPolicy.accepts(password) else { throw .weakPassword }
            if core.configuration.passwordPolicy.isCommon(password) { throw .commonPassword }
        }
        if let email = changes.email, !AuthCore.isValidEmail(email) { throw .invalidEmail }
        guard let (current, storedHash) = try core.database({ () throws in try accounts.user(objectId: objectId) }) else {
            throw request.isMaster ? .objectNotFound : .insufficientAuth
        }
        let emailChange = changes.email.map { $0.lowercased() != current.email?.lowercased() } ?? false
        if changes.password != nil || emailChange || !links.isEmpty || !unlinks.isEmpty {
            try core.checkRecentAuthentication(caller, currentPassword, storedHash, current, request)
        }
        let authDataResponse = try mfa.flatMap { mfa throws(AuthError) in
            try secondFactors.changeTOTP(
                mfa, current: current, storedHash: storedHash, currentPassword: currentPassword, caller: caller, request: request)
        }
        let passwordHash = try changes.password.map { password throws(AuthError) in try core.hash(password) }
        let time = core.timestamp()
        let verifyToken = SecureRandom.linkToken()
        let verification = AccountStore.NewToken(
            digest: SHA256.digest(verifyToken),
            expiresAt: time.addingTimeInterval(Double(core.configuration.accounts.verifyTokenLifetime)))
        let change = AccountStore.Change(
            username: changes.username, email: changes.email, passwordHash: passwordHash,
            emailVerified: changes.emailVerified, acl: changes.acl,
            keepSession: caller?.user.objectId == objectId ? caller?.session.objectId : nil, links: links, unlinks: unlinks,
            profile: profile)
        let updated = try core.database { () throws in
            try AuthCore.identityConflicts { try AuthCore.namesTaken {
                try accounts.update(userId: objectId, change: change, context: mail.context(time), events: core.events) { old, new, signInChanges in
                    var messages: [OutboxStore.Message] = []
                    if !signInChanges.isEmpty, let email = old.email ?? new.email {
                        messages.append(mail.message(
                            .signInChanged, to: email, about: new, request: request, token: nil, signInChanges: signInChanges))
                    }
                    if passwordHash != nil, let email = new.email {
                        messages.append(mail.message(.passwordChanged, to: email, about: new, request: request, token: nil))
                    }
                    if emailChange, let oldEmail = old.email {
                        messages.append(mail.message(.emailChanged, to: oldEmail, about: new, request: request, token: nil))
                    }
                    if emailChange, core.configuration.accounts.verifyEmails != .off, let email = new.email {
                        messages.append(mail.message(.verifyEmail, to: email, about: new, request: request, token: verifyToken))
                    }
                    return (messages, verification)
                }
            } }
        }
        guard var updated else { throw request.isMaster ? .objectNotFound : .insufficientAuth }
        core.sessionCache?.invalidate(userId: objectId)
        updated.authDataResponse = authDataResponse
        return updated
    }

    /// Deletes a user with all their sessions, tokens and pending mail in one transaction, and
    /// sends the "account deleted" notice; returns the user as it was. The username and email are
    /// free again at once.
    public func deleteUser(id: String, currentPassword: String?, caller: SessionGrant?, request: AuthRequest) throws(AuthError) -> User {
        let objectId = AuthCore.objectId(id, type: "_User")
        guard request.isMaster || caller != nil else { throw .cannotDeleteUser }
        if !request.isMaster, caller?.user.objectId != objectId { throw .insufficientAuth }
        try secondFactors.requireSecondFactor(caller, request)
        guard let (current, storedHash) = try core.database({ () throws in try accounts.user(objectId: objectId) }) else {
            throw request.isMaster ? .objectNotFound : .insufficientAuth
        }
        try core.checkRecentAuthentication(caller, currentPassword, storedHash, current, request)
        let time = core.timestamp()
        let deleted = try core.database { () throws in
            try accounts.delete(userId: objectId, context: mail.context(time), events: core.events) { user in
                user.email.map { mail.message(.accountDeleted, to: $0, about: user, request: request, token: nil) }
            }
        }
        guard let deleted else { throw request.isMaster ? .objectNotFound : .insufficientAuth }
        core.sessionCache?.invalidate(userId: objectId)
        return deleted
    }

    /// The user `id` (a global id or an objectId), to its owner or the master key; 101 for
    /// anyone else and for unknown ids (users are private, as in Parse 7).
    public func user(id: String, caller: SessionGrant?, request: AuthRequest) throws(AuthError) -> User {
        let objectId = AuthCore.objectId(id, type: "_User")
        guard request.readsAsMaster || caller?.user.objectId == objectId else { throw .objectNotFound }
        try secondFactors.requireSecondFactor(caller, request)
        guard let (user, _) = try core.database({ () throws in try accounts.user(objectId: objectId) }) else { throw .objectNotFound }
        return user
    }

    /// The declared fields (``AuthConfiguration/userFields``) some users hold values of that the
    /// field's type does not take, with how many users hold them: a type changed since those
    /// values were stored. Start-up refuses such declarations.
    public func fieldsNotFittingStoredValues() throws(AuthError) -> [(field: String, users: Int)] {
        try core.database { () throws in try accounts.misfits(core.configuration.userFields) }
    }

    // MARK: Helpers

    /// What the notice of a reset that removed ways in lists; empty when it removed none.
    static func signInChanges(_ removal: AccountStore.ResetRemoval) -> [SignInChange] {
        guard removal.confirmedAddress, !removal.providers.isEmpty || removal.passkeys > 0 else { return [] }
        var changes = removal.providers.map { $0 == UserStore.anonymous ? SignInChange.guestAccessRemoved : .providerRemoved($0) }
        if removal.passkeys > 0 { changes.append(.passkeysRemoved(removal.passkeys)) }
        if removal.keptTOTP { changes.append(.twoStepVerificationKept) }
        return changes
    }

    /// Whether `name` is the user's username or email (ignoring case).
    static func names(_ user: User, _ name: String) -> Bool {
        user.username.lowercased() == name.lowercased() || user.email?.lowercased() == name.lowercased()
    }
}
