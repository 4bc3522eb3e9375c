import Foundation
import Mail
import Postgres
import Sodium

/// The account lifecycle's statements: reset and verification tokens, changes and deletion of
/// users. Every mail is added to the outbox in the transaction of the change that causes it.
struct AccountStore: Sendable {
    let pool: Pool

    /// The public user columns of `u` (`UserStore.userColumns`, decoded by `UserStore.user`), then
    /// the password hash (at ``passwordHashColumn``).
    private static let userColumns: StaticString = """
        u.object_id, u.username, u.email, u.email_verified, u.acl::text, u.created_at, u.updated_at,
        u.display_name, u.photo_url, u.custom_fields::text, u.disabled_at IS NOT NULL, u.disabled_reason, u.password_hash
        """
    private static let passwordHashColumn = UserStore.userColumnCount

    /// A new link token: its digest and when it stops working.
    struct NewToken {
        var digest: [UInt8]
        var expiresAt: Date
    }

    /// What the outbox needs besides the message: the per-address limit, the Message-ID domain,
    /// the time, and the box that seals links.
    struct MailContext {
        var perHour: Int
        var messageIdDomain: String
        var now: Date
        var linkBox: SecretBox?
    }

    /// The user `objectId` and its password hash (nil: the user has no password).
    func user(objectId: String) throws -> (User, passwordHash: String?)? {
        try pool.withConnection(retry: .once) { connection in
            guard let row = try connection.queryFirst(
                "SELECT \(sql: Self.userColumns) FROM users u WHERE u.object_id = \(objectId)") else { return nil }
            return (try UserStore.user(row), try row.decode(String?.self, at: Self.passwordHashColumn))
        }
    }

    /// For the user whose email is `email` (ignoring case; `unverifiedOnly`: only if not yet
    /// verified), stores `token` of `kind` (a reset token replaces the user's previous one) and
    /// adds the message `mail` makes, unless the address had its hourly share of that kind.
    /// Whether a message was added.
    @discardableResult
    func sendLink(
        kind: String, email: String, unverifiedOnly: Bool, token: NewToken, context: MailContext,
        mail: (User) -> OutboxStore.Message
    ) throws -> Bool {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx -> Bool in
                guard let row = try tx.queryFirst("""
                    SELECT \(sql: Self.userColumns) FROM users u
                    WHERE lower(u.email) = lower(\(email)) AND NOT (\(unverifiedOnly) AND u.email_verified)
                    FOR UPDATE
                    """)
                else {
                    // Nobody to write to: the request is counted all the same (the same limit).
                    _ = try OutboxStore.admit(kind: kind, address: email, perHour: context.perHour, now: context.now, in: tx)
                    return false
                }
                let user = try UserStore.user(row)
                return try Self.send(mail(user), token: token, email: user.email, context: context, in: tx)
            }
        }
    }

    /// Adds `message` in `tx`, unless its recipient had the hourly share of its kind, and with it
    /// `token`, the token of the message's link (for the address `email`). Whether it was added.
    @discardableResult
    static func send(
        _ message: OutboxStore.Message, token: NewToken? = nil, email: String? = nil, context: MailContext, in tx: Transaction
    ) throws -> Bool {
        guard try OutboxStore.enqueue(
            message, perHour: context.perHour, messageIdDomain: context.messageIdDomain, now: context.now,
            linkBox: context.linkBox, in: tx)
        else { return false }
        if let token, let userId = message.userId {
            try insertToken(token, kind: message.kind, userId: userId, email: email, now: context.now, in: tx)
        }
        return true
    }

    /// Stores a link token (a reset token replaces the user's previous one).
    private static func insertToken(_ token: NewToken, kind: String, userId: String, email: String?, now: Date, in tx: Transaction) throws {
        if kind == MailKind.resetPassword.rawValue {
            try tx.execute("""
                INSERT INTO account_tokens (token_digest, user_id, kind, email, expires_at, created_at)
                VALUES (\(token.digest), \(userId), \(kind), \(email), \(token.expiresAt), \(now))
                ON CONFLICT (user_id) WHERE kind = 'reset_password'
                DO UPDATE SET token_digest = excluded.token_digest, email = excluded.email,
                              expires_at = excluded.expires_at, created_at = excluded.created_at
                """)
        } else {
            try tx.execute("""
                INSERT INTO account_tokens (token_digest, user_id, kind, email, expires_at, created_at)
                VALUES (\(token.digest), \(userId), \(kind), \(email), \(token.expiresAt), \(now))
                """)
        }
    }

    /// A reset token's user and expiry (nil: no such token, or the user's email is no longer
    /// the address the link was sent to).
    func resetToken(digest: [UInt8]) throws -> (User, expiresAt: Date)? {
        try pool.withConnection(retry: .once) { connection in
            guard let row = try connection.queryFirst("""
                SELECT \(sql: Self.userColumns), t.expires_at
                FROM account_tokens t JOIN users u ON u.object_id = t.user_id
                WHERE t.token_digest = \(digest) AND t.kind = 'reset_password' AND lower(t.email) = lower(u.email)
                """) else { return nil }
            return (try UserStore.user(row), try row.decode(Date.self, at: Self.passwordHashColumn + 1))
        }
    }

    /// What a reset removed besides the sessions: the ways in of an account whose address it
    /// confirmed for the first time.
    struct ResetRemoval {
        /// Whether the reset confirmed the address (it was not verified): every other way in was removed.
        var confirmedAddress = false
        /// The linked providers removed, by name (`anonymous` among them).
        var providers: [String] = []
        /// How many passkeys were removed.
        var passkeys = 0
        /// Whether the user keeps TOTP (never removed: a mailbox is not a second factor).
        var keptTOTP = false
    }

    /// Uses up the reset token and sets the password: clears failed log-ins, lockout and log-in
    /// counts, ends every session and forgets the user's installations, and adds the notices
    /// `notice` gives. The token works only while the user's email is the address it was sent
    /// to, so the reset proves that mailbox and marks the email verified. The guest
    /// (`anonymous`) link goes, as with any password set. A reset that confirms an address that
    /// was not verified also removes every linked provider and passkey: they were added while
    /// nobody had shown the mailbox was the account's, so they may be someone else's (account
    /// pre-hijacking); TOTP stays, since a mailbox alone must not pass a second factor. Nil when
    /// the token was used (or expired, or the address changed) meanwhile: of two concurrent uses, one wins.
    func completeReset(
        digest: [UInt8], userId: String, passwordHash: String, context: MailContext,
        events: EventLog = EventLog(), notice: (User, ResetRemoval) -> [OutboxStore.Message]
    ) throws -> User? {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx -> User? in
                // The user's row first, as an email change locks it: the address compared below
                // cannot change before this commits.
                guard let current = try tx.queryFirst("SELECT email_verified FROM users WHERE object_id = \(userId) FOR UPDATE"),
                    try tx.queryFirst("""
                        DELETE FROM account_tokens t USING users u
                        WHERE t.token_digest = \(digest) AND t.kind = 'reset_password' AND t.user_id = \(userId)
                          AND t.expires_at > \(context.now) AND u.object_id = t.user_id AND lower(t.email) = lower(u.email)
                        RETURNING 1
                        """) != nil
                else { return nil }
                var removal = ResetRemoval(confirmedAddress: !(try current.decode(Bool.self, at: 0)))
                guard let row = try tx.queryFirst("""
                    UPDATE users u SET password_hash = \(passwordHash), failed_login_count = 0, lockout_until = NULL,
                        email_verified = true, updated_at = \(context.now)
                    WHERE u.object_id = \(userId)
                    RETURNING \(sql: Self.userColumns)
                    """) else { return nil }
                let user = try UserStore.user(row)
                let now = context.now
                var happened: [AuthEvent] = [.passwordChanged(userId: userId, via: .reset, at: now)]
                if removal.confirmedAddress { happened.append(.emailVerified(userId: userId, email: user.email, at: now)) }
                for ended in try tx.query("DELETE FROM sessions WHERE user_id = \(userId) RETURNING object_id") {
                    happened.append(.sessionEnded(sessionId: try ended.decode(String.self, at: 0), userId: userId, reason: .passwordChanged, at: now))
                }
                try tx.execute("DELETE FROM known_installations WHERE user_id = \(userId)")
                try tx.execute("DELETE FROM login_attempts WHERE user_id = \(userId)")
                // The grants went with the sessions; the apps' consents go too.
                try OAuthStore.endGrants(userId: userId, in: tx)
                if removal.confirmedAddress {
                    removal.providers = try UserStore.unlinkAll(userId: userId, in: tx)
                    let passkeys = try tx.query("DELETE FROM passkeys WHERE user_id = \(userId) RETURNING object_id, name")
                    removal.passkeys = passkeys.count
                    for passkey in passkeys {
                        happened.append(.passkey(
                            added: false, passkeyId: try passkey.decode(String.self, at: 0), name: try passkey.decode(String.self, at: 1),
                            userId: userId, at: now))
                    }
                    removal.keptTOTP = try tx.queryFirst("SELECT 1 FROM user_totp WHERE user_id = \(userId)") != nil
                } else {
                    try UserStore.endGuestAccess(userId: userId, in: tx)
                }
                try events.record(happened, in: tx)
                for message in notice(user, removal) { try Self.send(message, context: context, in: tx) }
                return user
            }
        }
    }

    /// Marks verified the email of the user `name` (username or email, ignoring case) proves with
    /// the verification token, if the token has not expired and is for the address the user has
    /// now: the user's objectId, nil when the token does not.
    /// A first verification of the address goes into `events` (`user.email_verified`) with the change.
    func verifyEmail(digest: [UInt8], name: String, now: Date, events: EventLog = EventLog()) throws -> String? {
        try pool.withConnection(retry: .once) { connection in
            guard let row = try connection.queryFirst("""
                SELECT u.object_id, u.email_verified
                FROM account_tokens t JOIN users u ON u.object_id = t.user_id
                WHERE t.token_digest = \(digest) AND t.kind = 'verify_email' AND t.expires_at > \(now)
                  AND lower(t.email) = lower(u.email)
                  AND (lower(u.username) = lower(\(name)) OR lower(u.email) = lower(\(name)))
                """) else { return nil }
            let userId = try row.decode(String.self, at: 0)
            if try row.decode(Bool.self, at: 1) { return userId }
            let statement: PostgresQuery = """
                UPDATE users SET email_verified = true, updated_at = \(now) WHERE object_id = \(userId) AND NOT email_verified
                RETURNING email
                """
            guard events.records(.userEmailVerified) else {
                _ = try connection.execute(statement)
                return userId
            }
            try connection.transaction { tx in
                if let verified = try tx.queryFirst(statement) {
                    try events.record(.emailVerified(userId: userId, email: try verified.decode(String?.self, at: 0), at: now), in: tx)
                }
            }
            return userId
        }
    }

    /// What updateUser changes, checked and hashed already.
    struct Change {
        var username: String?
        var email: String?
        var passwordHash: String?
        var emailVerified: Bool?
        var acl: ACL?
        /// With a password change: the session to keep (the caller's).
        var keepSession: String?
        /// Provider ids to link (verified already), by provider name.
        var links: [String: String] = [:]
        /// Providers to unlink.
        var unlinks: [String] = []
        /// `displayName`, `photoURL` and declared fields, made on the user as the transaction
        /// finds it (the 64 KiB bound of declared fields is checked there).
        var profile = ProfileChange.none
    }

    /// Unlinking would leave the user no way to log in.
    struct LastWayToLogIn: Error {}

    /// A guest (`anonymous`) id was to be linked to a user with another way to log in.
    struct GuestIdOfRegularUser: Error {}

    /// Applies `change` to the user `userId` in one transaction; `mail(old, new, signInChanges)`
    /// gives the notices and verification mail to add with it (and the verification token to
    /// store). Links and unlinks providers (``UserStore/IdentityTaken`` when another user has an
    /// id, ``LastWayToLogIn`` when an unlink leaves none, ``GuestIdOfRegularUser`` for an
    /// `anonymous` id linked to a user with another way in), reporting what they changed; a
    /// password or provider given to a guest removes its `anonymous` link. A password set ends the
    /// other sessions and forgets every installation but the kept session's. An email change voids
    /// the user's reset and verification tokens and drops their pending mail: those links were
    /// for the address the user no longer has. Nil when there is no such user.
    func update(
        userId: String, change: Change, context: MailContext, events: EventLog = EventLog(),
        mail: (_ old: User, _ new: User, _ signInChanges: [SignInChange]) -> (messages: [OutboxStore.Message], verification: NewToken?)
    ) throws -> User? {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx -> User? in
                let names = ([change.username, change.email].compactMap { $0?.lowercased() }).sorted()
                for name in Set(names).sorted() { try tx.execute("SELECT pg_advisory_xact_lock(hashtext(\(name)))") }
                guard let oldRow = try tx.queryFirst("SELECT \(sql: Self.userColumns) FROM users u WHERE u.object_id = \(userId) FOR UPDATE")
                else { return nil }
                let old = try UserStore.user(oldRow)
                let profiled = try change.profile.applied(to: old)
                // A log-in name means one account (as at sign-up): the indexes cover each column,
                // these checks the names across them.
                if let username = change.username, try tx.queryFirst("""
                    SELECT 1 FROM users WHERE object_id <> \(userId)
                      AND (lower(username) = lower(\(username)) OR lower(email) = lower(\(username)))
                    """) != nil { throw UserStore.NameConflict.username }
                if let email = change.email, try tx.queryFirst("""
                    SELECT 1 FROM users WHERE object_id <> \(userId)
                      AND (lower(email) = lower(\(email)) OR lower(username) = lower(\(email)))
                    """) != nil { throw UserStore.NameConflict.email }
                let emailChanged = change.email.map { $0.lowercased() != old.email?.lowercased() } ?? false
                let emailVerified = change.emailVerified ?? (emailChanged ? false : old.emailVerified)
                guard let row = try tx.queryFirst("""
                    UPDATE users u SET
                        username = coalesce(\(change.username), u.username),
                        email = coalesce(\(change.email), u.email),
                        email_verified = \(emailVerified),
                        password_hash = coalesce(\(change.passwordHash), u.password_hash),
                        acl = coalesce(\(change.acl?.withOwner(userId).jsonText)::jsonb, u.acl),
                        display_name = \(profiled.displayName), photo_url = \(profiled.photoURL),
                        custom_fields = \(UserStore.customFieldsJSON(profiled.fields)),
                        updated_at = \(context.now)
                    WHERE u.object_id = \(userId)
                    RETURNING \(sql: Self.userColumns)
                    """) else { return nil }
                let new = try UserStore.user(row)
                var signInChanges: [SignInChange] = []
                for (provider, id) in change.links.sorted(by: { $0.key < $1.key }) {
                    switch try UserStore.link(provider: provider, providerUserId: id, userId: userId, now: context.now, in: tx) {
                    case .added: signInChanges.append(.providerAdded(provider))
                    case .replaced: signInChanges.append(.providerReplaced(provider))
                    case .unchanged: break
                    }
                }
                var unlinked = false
                for provider in change.unlinks.sorted() {
                    guard try UserStore.unlink(provider: provider, userId: userId, in: tx) else { continue }
                    unlinked = true
                    signInChanges.append(provider == UserStore.anonymous ? .guestAccessRemoved : .providerRemoved(provider))
                }
                if unlinked, try !UserStore.hasWayToLogIn(userId: userId, in: tx) { throw LastWayToLogIn() }
                if change.links[UserStore.anonymous] != nil, try UserStore.hasWayToLogIn(userId: userId, in: tx) {
                    throw GuestIdOfRegularUser()
                }
                if change.passwordHash != nil || !change.links.isEmpty {
                    try UserStore.endGuestAccess(userId: userId, in: tx)
                }
                var happened: [AuthEvent] = []
                let changed = Self.changedFields(old, new, change, providersChanged: !signInChanges.isEmpty)
                if !changed.isEmpty { happened.append(.userUpdated(userId: userId, changed: changed, at: context.now)) }
                if change.passwordHash != nil {
                    happened.append(.passwordChanged(userId: userId, via: .update, at: context.now))
                    // Whoever knew the old password keeps no session and no device's exemption.
                    let ended = try SessionStore.endSessions(.init(keeping: change.keepSession), userId: userId, now: context.now, in: tx)
                    happened += ended.map { .sessionEnded(sessionId: $0, userId: userId, reason: .passwordChanged, at: context.now) }
                    // Nor does any app it let in: the grants of the kept session end too.
                    try OAuthStore.endGrants(userId: userId, in: tx)
                    try tx.execute("DELETE FROM account_tokens WHERE user_id = \(userId) AND kind = 'reset_password'")
                }
                try events.record(happened, in: tx)
                if emailChanged {
                    try tx.execute("DELETE FROM account_tokens WHERE user_id = \(userId)")
                    try tx.execute("""
                        DELETE FROM mail_outbox
                        WHERE user_id = \(userId) AND state = 'pending' AND kind IN ('reset_password', 'verify_email')
                        """)
                }
                let (messages, verification) = mail(old, new, signInChanges)
                for message in messages {
                    let link = message.kind == MailKind.verifyEmail.rawValue ? verification : nil
                    try Self.send(message, token: link, email: new.email, context: context, in: tx)
                }
                return new
            }
        }
    }

    /// Deletes the user with its sessions, tokens, installations, log-in counts and pending mail,
    /// and adds `notice` (the "account deleted" mail), in one transaction, with `session.ended`
    /// for each session and `user.deleted` in `events`. Nil when there is no such user.
    func delete(
        userId: String, context: MailContext, events: EventLog = EventLog(), notice: (User) -> OutboxStore.Message?
    ) throws -> User? {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { tx -> User? in
                // The sessions would go with the user (ON DELETE CASCADE); their ids are the events'.
                let sessions = events.records(.sessionEnded)
                    ? try tx.query("DELETE FROM sessions WHERE user_id = \(userId) RETURNING object_id").map { try $0.decode(String.self, at: 0) }
                    : []
                guard let row = try tx.queryFirst("DELETE FROM users u WHERE u.object_id = \(userId) RETURNING \(sql: Self.userColumns)")
                else { return nil }
                let user = try UserStore.user(row)
                try events.record(
                    sessions.map { .sessionEnded(sessionId: $0, userId: userId, reason: .userDeleted, at: context.now) }
                        + [.userDeleted(user, at: context.now)],
                    in: tx)
                // Sessions, tokens and installations go with the user (ON DELETE CASCADE).
                try tx.execute("DELETE FROM login_attempts WHERE user_id = \(userId)")
                try tx.execute("DELETE FROM mail_outbox WHERE user_id = \(userId) AND state = 'pending'")
                if let message = notice(user) { try Self.send(message, context: context, in: tx) }
                return user
            }
        }
    }

    /// The names of the fields an update changed (`user.updated`'s `changed`), as the API names
    /// them: never their values. `password` when one was set; `authData` when a provider was
    /// linked, replaced or unlinked.
    static func changedFields(_ old: User, _ new: User, _ change: Change, providersChanged: Bool) -> [String] {
        var changed: [String] = []
        if old.username != new.username { changed.append("username") }
        if old.email != new.email { changed.append("email") }
        if old.emailVerified != new.emailVerified { changed.append("emailVerified") }
        if change.passwordHash != nil { changed.append("password") }
        if old.acl != new.acl { changed.append("ACL") }
        if providersChanged { changed.append("authData") }
        if old.displayName != new.displayName { changed.append("displayName") }
        if old.photoURL != new.photoURL { changed.append("photoURL") }
        let names = Set(old.fields.keys).union(new.fields.keys)
        for name in names.sorted() where old.fields[name] != new.fields[name] { changed.append(name) }
        return changed
    }
}
