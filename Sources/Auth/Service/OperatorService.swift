import Foundation
import Postgres

/// What the operators of a deployment do with the master keys (docs/operators.md): find users
/// (`users`), read any user's sessions and passkeys, disable and enable an account, end its
/// sessions, and log in as its user for support (`logInAs`). Reads take either master key;
/// changes take the full one (the GraphQL layer refuses every mutation sent with the read-only
/// key before it runs).
public final class OperatorService: Sendable {
    let core: AuthCore
    let search: UserSearchStore
    let store: OperatorStore
    let sessionStore: SessionStore
    let passkeyStore: PasskeyStore

    /// How long a `logInAs` session lasts, in seconds.
    public static let impersonationLength = 3600
    /// The longest reason kept for a disabled account or an impersonation, in characters.
    public static let reasonLimit = 1024

    init(core: AuthCore, pool: Pool) {
        self.core = core
        self.search = UserSearchStore(pool: pool)
        self.store = OperatorStore(pool: pool, events: core.events)
        self.sessionStore = SessionStore(pool: pool)
        self.passkeyStore = PasskeyStore(pool: pool)
    }

    // MARK: Keys

    /// 119 unless the request presented either master key.
    public func requireReader(_ request: AuthRequest) throws(AuthError) {
        if !request.readsAsMaster { throw .masterKeyRequired }
    }

    /// 119 unless the request presented the full master key.
    public func requireWriter(_ request: AuthRequest) throws(AuthError) {
        switch request.masterKey {
        case .master: return
        case .readOnly: throw .readOnlyMasterKey
        case nil: throw .masterKeyRequired
        }
    }

    // MARK: Reading

    /// One page of the users `search` finds (either master key). 142 for a `first` outside 1–100
    /// or an `after` that is not a cursor of the search's order.
    public func users(_ search: UserSearch, request: AuthRequest) throws(AuthError) -> UserPage {
        try requireReader(request)
        guard (1...UserSearch.maximumPageSize).contains(search.first) else {
            throw .invalidArgument("first must be between 1 and \(UserSearch.maximumPageSize).")
        }
        var cursor: UserSearchCursor? = nil
        if let after = search.after {
            guard let decoded = UserSearchCursor(after, order: search.order) else {
                throw .invalidArgument("after is not a cursor of this search's order.")
            }
            cursor = decoded
        }
        var search = search
        search.objectId = search.objectId.map { AuthCore.objectId($0, type: "_User") }
        let found = try core.database { () throws in try self.search.page(search, after: cursor) }
        return UserPage(
            edges: found.users.map { ($0.0, $0.1.encoded) }, hasNextPage: found.more, hasPreviousPage: cursor != nil)
    }

    /// How many users `search`'s conditions match (either master key).
    public func count(_ search: UserSearch, request: AuthRequest) throws(AuthError) -> Int {
        try requireReader(request)
        var search = search
        search.objectId = search.objectId.map { AuthCore.objectId($0, type: "_User") }
        return try core.database { () throws in try self.search.count(search) }
    }

    /// The user's live sessions, newest first, with their installation ids withheld (either master key).
    public func sessions(userId: String, request: AuthRequest) throws(AuthError) -> [Session] {
        try requireReader(request)
        let time = core.timestamp()
        let timeout = core.configuration.accounts.sessionIdleTimeout
        let idleCutoff = timeout > 0 ? time.addingTimeInterval(-Double(timeout)) : .distantPast
        return try core.database { () throws in
            try sessionStore.liveSessions(userId: userId, now: time, idleCutoff: idleCutoff)
        }.map { session in
            var shown = session
            shown.installationId = nil  // the device's secret (the owner's exemption from the log-in limits)
            return shown
        }
    }

    /// The user's passkeys, oldest first (either master key).
    public func passkeys(userId: String, request: AuthRequest) throws(AuthError) -> [Passkey] {
        try requireReader(request)
        return try core.database { () throws in try passkeyStore.passkeys(userId: userId) }.map(\.passkey)
    }

    // MARK: Acting

    /// Disables the account `id` (global id or object id): its sessions end at once on every
    /// instance and every later log-in that passes its checks is refused with 101 `This account
    /// has been disabled.`; the user is told by mail (a security notice). 101 when there is no
    /// such user.
    public func disableUser(id: String, reason: String?, request: AuthRequest) throws(AuthError) -> User {
        try requireWriter(request)
        let reason = try Self.checkedReason(reason, required: false)
        let objectId = AuthCore.objectId(id, type: "_User")
        let time = core.timestamp()
        let user = try core.database { () throws in
            try store.disable(userId: objectId, reason: reason, now: time) { user, tx in
                try core.notices.send(.accountDisabled, about: user, request: request, at: time, in: tx)
            }
        }
        guard let user else { throw .objectNotFound }
        core.sessionCache?.invalidate(userId: objectId)
        return user
    }

    /// Enables the account `id` again. 101 when there is no such user.
    public func enableUser(id: String, request: AuthRequest) throws(AuthError) -> User {
        try requireWriter(request)
        let objectId = AuthCore.objectId(id, type: "_User")
        let time = core.timestamp()
        guard let user = try core.database({ () throws in try store.enable(userId: objectId, now: time) }) else { throw .objectNotFound }
        return user
    }

    /// Ends every session of the user `id` on every instance at once; how many were live. 101
    /// when there is no such user.
    public func revokeUserSessions(id: String, request: AuthRequest) throws(AuthError) -> Int {
        try requireWriter(request)
        let objectId = AuthCore.objectId(id, type: "_User")
        let time = core.timestamp()
        let timeout = core.configuration.accounts.sessionIdleTimeout
        let idleCutoff = timeout > 0 ? time.addingTimeInterval(-Double(timeout)) : .distantPast
        guard let revoked = try core.database({ () throws in try store.endSessions(userId: objectId, now: time, idleCutoff: idleCutoff) })
        else { throw .objectNotFound }
        core.sessionCache?.invalidate(userId: objectId)
        return revoked
    }

    /// A session of the user `id` for support (Parse's `loginAs`): made with `createdWith
    /// {"action": "login", "authProvider": "masterkey"}`, for ``impersonationLength`` seconds,
    /// listed among the user's sessions with the operator's user agent and no installation (it
    /// replaces none of the user's). `reason` is required. 101 when there is no such user, and
    /// `This account has been disabled.` for a disabled one.
    public func logInAs(id: String, reason: String?, request: AuthRequest) throws(AuthError) -> SessionGrant {
        try requireWriter(request)
        let reason = try Self.checkedReason(reason, required: true)
        let objectId = AuthCore.objectId(id, type: "_User")
        let time = core.timestamp()
        var operatorRequest = request
        operatorRequest.installationId = nil
        var (token, session) = core.newSession(
            action: "login", authProvider: Self.impersonationProvider, request: operatorRequest, now: time)
        session.session.expiresAt = time.addingTimeInterval(Double(Self.impersonationLength))
        guard let user = try core.database({ () throws in try store.startSession(session, userId: objectId, reason: reason, request: request) }) else {
            throw .objectNotFound
        }
        try core.requireEnabled(user)
        return SessionGrant(sessionToken: token, user: user, session: session.session)
    }

    /// The `authProvider` of `logInAs` sessions.
    public static let impersonationProvider = "masterkey"

    /// A reason as stored: trimmed, nil when empty; 142 when longer than ``reasonLimit`` or
    /// missing where `required`.
    static func checkedReason(_ reason: String?, required: Bool) throws(AuthError) -> String? {
        let trimmed = reason?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if trimmed.isEmpty {
            if required { throw .invalidArgument("reason is required.") }
            return nil
        }
        if trimmed.count > reasonLimit { throw .tooLong(field: "reason", limit: "\(reasonLimit) characters") }
        if trimmed.contains("\0") { throw .nulCharacter(field: "reason") }
        return trimmed
    }
}
