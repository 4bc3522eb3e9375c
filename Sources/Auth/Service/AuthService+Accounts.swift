import Foundation
import Mail
import Postgres
import Sodium

/// The account lifecycle (contract: accounts.md): password reset, email verification, changes,
/// deletion, reading a user. Each mail is added to the outbox in the transaction of the change
/// that causes it; link tokens are 256 random bits, stored only as SHA-256 digests.
extension AuthService {
    /// Sends a reset link to the user whose email this is (case-insensitively), if any, replacing
    /// the user's previous reset token; answers the same for an unknown email.
    public func resetPassword(email: String, request: AuthRequest) throws(AuthError) {
        try limitAddress(ClientNetwork.key(of: request.clientAddress))
        guard !email.isEmpty else { throw .emailMissing }
        guard email.utf8.count <= FieldLimits.emailBytes, !email.contains("\0") else { return }  // cannot be stored
        try sendLink(.resetPassword, to: email, unverifiedOnly: false, lifetime: configuration.accounts.resetTokenLifetime, request: request)
    }

    /// Sends a verification link to the address, if it is an existing user's unverified email;
    /// answers the same otherwise (Parse's 205 and -1 would tell who is registered).
    public func sendVerificationEmail(email: String, request: AuthRequest) throws(AuthError) {
        try limitAddress(ClientNetwork.key(of: request.clientAddress))
        guard !email.isEmpty else { throw .emailMissing }
        guard email.utf8.count <= FieldLimits.emailBytes, !email.contains("\0") else { return }
        try sendLink(.verifyEmail, to: email, unverifiedOnly: true, lifetime: configuration.accounts.verifyTokenLifetime, request: request)
    }

    /// The link mail of `kind` for the address, if it is an account's (and, `unverifiedOnly`,
    /// not yet verified). Answers that send nothing take as long as those that write the token and
    /// the message (``linkTiming``), so the time does not tell which addresses are registered.
    private func sendLink(_ kind: MailKind, to email: String, unverifiedOnly: Bool, lifetime: Int, request: AuthRequest) throws(AuthError) {
        let start = ContinuousClock.now
        let token = SecureRandom.linkToken()
        let time = timestamp()
        let newToken = AccountStore.NewToken(digest: SHA256.digest(token), expiresAt: time.addingTimeInterval(Double(lifetime)))
        let sent = try database { () throws in
            try accounts.sendLink(
                kind: kind.rawValue, email: email, unverifiedOnly: unverifiedOnly, token: newToken, context: mailContext(time)
            ) { user in
                mail(kind, to: user.email ?? email, about: user, request: request, token: token)
            }
        }
        let timing = kind == .resetPassword ? linkTiming.reset : linkTiming.verify
        timing.finish(since: start, fullWork: sent)
    }

    /// Sets a new password with a reset token: the token is used up (of two concurrent uses one
    /// wins), every session of the user ends, failed log-ins and lockout are cleared, the email
    /// counts as verified, and a "password changed" notice is sent.
    public func confirmResetPassword(username: String, password: String, token: String, request: AuthRequest) throws(AuthError) {
        try limitAddress(ClientNetwork.key(of: request.clientAddress))
        guard !username.isEmpty else { throw .linkUsernameMissing }
        guard !password.isEmpty else { throw .newPasswordMissing }
        guard !token.isEmpty else { throw .tokenMissing }
        if password.utf8.count > configuration.passwordPolicy.maximumBytes {
            throw .tooLong(field: "password", limit: "\(configuration.passwordPolicy.maximumBytes) bytes")
        }
        let digest = SHA256.digest(token)
        let time = timestamp()
        guard let (user, expiresAt) = try database({ () throws in try accounts.resetToken(digest: digest) }),
            Self.names(user, username)
        else { throw .invalidResetLink }
        guard expiresAt > time else { throw .resetLinkExpired }
        guard configuration.passwordPolicy.accepts(password) else { throw .weakPassword }
        if configuration.passwordPolicy.isCommon(password) { throw .commonPassword }
        let passwordHash = try hash(password)
        let updated = try database { () throws in
            try accounts.completeReset(
                digest: digest, userId: user.objectId, passwordHash: passwordHash, context: mailContext(time)
            ) { user in
                user.email.map { mail(.passwordChanged, to: $0, about: user, request: request, token: nil) }
            }
        }
        guard updated != nil else { throw .invalidResetLink }
        sessionCache?.invalidate(userId: user.objectId)
    }

    /// Marks the user's email verified with a verification token. Repeating it with the same
    /// token succeeds again while the token has not expired.
    public func verifyEmail(username: String, token: String, request: AuthRequest) throws(AuthError) {
        try limitAddress(ClientNetwork.key(of: request.clientAddress))
        guard !username.isEmpty else { throw .linkUsernameMissing }
        guard !token.isEmpty else { throw .tokenMissing }
        let digest = SHA256.digest(token)
        let time = timestamp()
        guard let userId = try database({ () throws in try accounts.verifyEmail(digest: digest, name: username, now: time) }) else {
            throw .invalidVerificationLink
        }
        sessionCache?.invalidate(userId: userId)
    }

    /// Changes a user: its owner (`caller`) or the master key. A password change ends every other
    /// session of the user and keeps the caller's, and makes a guest (`anonymous`) a regular user;
    /// an email change unverifies the address. Both, and nothing else, need a recent
    /// authentication (``checkRecentAuthentication``); a user without a password (made by a
    /// provider) setting one has none to give, so needs a recent session. `authData` links
    /// providers after checking them (``verifiedLinks(_:)``) and unlinks them.
    public func updateUser(
        id: String, changes: UserChanges, currentPassword: String?, caller: SessionGrant?, request: AuthRequest
    ) throws(AuthError) -> User {
        let objectId = Self.objectId(id, type: "_User")
        guard request.isMaster || caller != nil else { throw .cannotModifyUser(objectId: objectId) }
        if !request.isMaster, caller?.user.objectId != objectId { throw .insufficientAuth }
        try FieldLimits.check(
            SignUpFields(username: changes.username, password: changes.password, email: changes.email, acl: changes.acl),
            request, maximumPasswordBytes: configuration.passwordPolicy.maximumBytes)
        let (links, unlinks) = try verifiedLinks(changes.authData)
        if changes.emailVerified != nil && !request.isMaster { throw .emailVerificationNotAllowed }
        if let username = changes.username, username.isEmpty || username.contains("\0") { throw .usernameMissing }
        if let password = changes.password {
            guard !password.isEmpty, configuration.passwordPolicy.accepts(password) else { throw .weakPassword }
            if configuration.passwordPolicy.isCommon(password) { throw .commonPassword }
        }
        if let email = changes.email, !Self.isValidEmail(email) { throw .invalidEmail }
        guard let (current, storedHash) = try database({ () throws in try accounts.user(objectId: objectId) }) else {
            throw request.isMaster ? .objectNotFound : .insufficientAuth
        }
        let emailChange = changes.email.map { $0.lowercased() != current.email?.lowercased() } ?? false
        if changes.password != nil || emailChange {
            try checkRecentAuthentication(caller, currentPassword, storedHash, current, request)
        }
        let passwordHash = try changes.password.map { password throws(AuthError) in try hash(password) }
        let time = timestamp()
        let verifyToken = SecureRandom.linkToken()
        let verification = AccountStore.NewToken(
            digest: SHA256.digest(verifyToken), expiresAt: time.addingTimeInterval(Double(configuration.accounts.verifyTokenLifetime)))
        let change = AccountStore.Change(
            username: changes.username, email: changes.email, passwordHash: passwordHash,
            emailVerified: changes.emailVerified, acl: changes.acl,
            keepSession: caller?.user.objectId == objectId ? caller?.session.objectId : nil, links: links, unlinks: unlinks)
        let updated = try database { () throws in
            try Self.identityConflicts { try Self.namesTaken {
                try accounts.update(userId: objectId, change: change, context: mailContext(time)) { old, new in
                    var messages: [OutboxStore.Message] = []
                    if passwordHash != nil, let email = new.email {
                        messages.append(mail(.passwordChanged, to: email, about: new, request: request, token: nil))
                    }
                    if emailChange, let oldEmail = old.email {
                        messages.append(mail(.emailChanged, to: oldEmail, about: new, request: request, token: nil))
                    }
                    if emailChange, configuration.accounts.verifyEmails != .off, let email = new.email {
                        messages.append(mail(.verifyEmail, to: email, about: new, request: request, token: verifyToken))
                    }
                    return (messages, verification)
                }
            } }
        }
        guard let updated else { throw request.isMaster ? .objectNotFound : .insufficientAuth }
        sessionCache?.invalidate(userId: objectId)
        return updated
    }

    /// Deletes a user with all their sessions, tokens and pending mail in one transaction, and
    /// sends the "account deleted" notice; returns the user as it was. The username and email are
    /// free again at once.
    public func deleteUser(id: String, currentPassword: String?, caller: SessionGrant?, request: AuthRequest) throws(AuthError) -> User {
        let objectId = Self.objectId(id, type: "_User")
        guard request.isMaster || caller != nil else { throw .cannotDeleteUser }
        if !request.isMaster, caller?.user.objectId != objectId { throw .insufficientAuth }
        guard let (current, storedHash) = try database({ () throws in try accounts.user(objectId: objectId) }) else {
            throw request.isMaster ? .objectNotFound : .insufficientAuth
        }
        try checkRecentAuthentication(caller, currentPassword, storedHash, current, request)
        let time = timestamp()
        let deleted = try database { () throws in
            try accounts.delete(userId: objectId, context: mailContext(time)) { user in
                user.email.map { mail(.accountDeleted, to: $0, about: user, request: request, token: nil) }
            }
        }
        guard let deleted else { throw request.isMaster ? .objectNotFound : .insufficientAuth }
        sessionCache?.invalidate(userId: objectId)
        return deleted
    }

    /// The user `id` (a global id or an objectId), to its owner or the master key; 101 for
    /// anyone else and for unknown ids (users are private, as in Parse 7).
    public func user(id: String, caller: SessionGrant?, request: AuthRequest) throws(AuthError) -> User {
        let objectId = Self.objectId(id, type: "_User")
        guard request.isMaster || caller?.user.objectId == objectId else { throw .objectNotFound }
        guard let (user, _) = try database({ () throws in try accounts.user(objectId: objectId) }) else { throw .objectNotFound }
        return user
    }

    // MARK: Helpers

    /// Password and email changes and deletion: the master key, a session created within
    /// `GATEHOUSE_RECENT_AUTH` seconds, or the right `currentPassword` (a wrong one counts as a
    /// failed log-in). A given `currentPassword` must be right even within the window.
    func checkRecentAuthentication(
        _ caller: SessionGrant?, _ currentPassword: String?, _ storedHash: String?, _ user: User, _ request: AuthRequest
    ) throws(AuthError) {
        if request.isMaster { return }
        if let currentPassword, !currentPassword.isEmpty {
            guard try verify(currentPassword, storedHash).isValid else {
                if let lockout = configuration.lockout {
                    let until = timestamp().addingTimeInterval(Double(lockout.durationMinutes) * 60)
                    try database { () throws in try store.recordFailedLogIn(userId: user.objectId, lockout: lockout, lockUntil: until) }
                }
                throw .invalidCredentials
            }
            return
        }
        let window = configuration.accounts.recentAuthentication
        guard window > 0 else { return }
        guard let caller, caller.session.createdAt.addingTimeInterval(Double(window)) >= now() else {
            throw .recentLoginRequired
        }
    }

    /// The outbox message of `kind` to `recipient` about `user`, in the request's language, with
    /// the link for `token` (verify and reset kinds).
    func mail(_ kind: MailKind, to recipient: String, about user: User, request: AuthRequest, token: String?) -> OutboxStore.Message {
        let link = token.map { token in
            let path = kind == .resetPassword ? "reset-password" : "verify-email"
            return "\(configuration.accounts.publicURL)/\(path)?token=\(Self.queryValue(token))&username=\(Self.queryValue(user.username))"
        }
        return OutboxStore.Message(
            kind: kind.rawValue, userId: user.objectId, recipient: recipient, username: user.username,
            language: MailLanguage(acceptLanguage: request.acceptLanguage).rawValue, link: link)
    }

    func mailContext(_ time: Date) -> AccountStore.MailContext {
        AccountStore.MailContext(
            perHour: configuration.accounts.messagesPerAddressPerHour, messageIdDomain: messageIdDomain, now: time)
    }

    /// The host of the public URL: the right-hand side of Message-IDs.
    private var messageIdDomain: String {
        URL(string: configuration.accounts.publicURL)?.host ?? "localhost"
    }

    /// A query value percent-encoded: everything but RFC 3986's unreserved characters.
    static func queryValue(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// The objectId of `id`: a Relay global id of `type`, else `id` itself.
    static func objectId(_ id: String, type: String) -> String {
        GlobalID.decode(id, type: type) ?? id
    }

    /// Whether `name` is the user's username or email (ignoring case).
    static func names(_ user: User, _ name: String) -> Bool {
        user.username.lowercased() == name.lowercased() || user.email?.lowercased() == name.lowercased()
    }
}

private extension String {
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
