import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sign-up, log-in, log-out, the current user and their account on a Gatehouse server, with
/// the session kept in a ``SessionStore`` between launches.
///
/// ```swift
/// let auth = try GatehouseAuth(configuration: .init(serverURL: URL(string: "https://auth.example.com/graphql")!))
/// let user = try await auth.logIn(username: "alice", password: "password123")
/// for await user in auth.authStateChanges { … }
/// ```
///
/// The account's lifecycle (password reset, email verification, changes, deletion, signed-in
/// devices) is in `GatehouseAuth+Accounts.swift`.
///
/// All methods may be called from any task. A server answer of error 209 (invalid session)
/// to a call that uses the stored session clears it, and ``authStateChanges`` yields `nil`.
@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
public final class GatehouseAuth: Sendable {
    /// The configuration given at creation.
    public let configuration: GatehouseConfiguration
    /// The `X-Parse-Installation-Id` sent with every request: the configured one, or the one
    /// generated on first use and kept in the store.
    public let installationId: String
    let store: any SessionStore
    let transport: GraphQLTransport
    let state: AuthState
    let userSelections = UserSelections()
    /// Access tokens of the session, by audience (``accessToken(audience:)``).
    let accessTokens = AccessTokenCache()

    /// Creates the client and loads the stored session, if any.
    ///
    /// - Parameters:
    ///   - store: where the session lives; default: a ``FileSessionStore`` in the default
    ///     directory for the server URL.
    ///   - urlSession: the session requests go through.
    /// - Throws: ``GatehouseError/storage(_:)`` when the store cannot be read or written.
    public init(
        configuration: GatehouseConfiguration, store: (any SessionStore)? = nil, urlSession: URLSession = .shared
    ) throws(GatehouseError) {
        let store = store ?? FileSessionStore(serverURL: configuration.serverURL)
        self.configuration = configuration
        self.store = store
        let installationId: String
        do {
            if let configured = configuration.installationId {
                installationId = configured
            } else if let data = try store.read(.installationId), let stored = String(data: data, encoding: .utf8),
                !stored.isEmpty
            {
                installationId = stored
            } else {
                installationId = UUID().uuidString.lowercased()
                try store.write(Data(installationId.utf8), for: .installationId)
            }
        } catch {
            throw .storage(String(describing: error))
        }
        self.installationId = installationId
        let session: StoredSession?
        do {
            // An unreadable session (e.g. written by a future version) counts as signed out.
            session = try store.read(.session).flatMap { try? JSONDecoder().decode(StoredSession.self, from: $0) }
        } catch {
            throw .storage(String(describing: error))
        }
        state = AuthState(session: session)
        transport = GraphQLTransport(configuration: configuration, installationId: installationId, session: urlSession)
    }

    /// The signed-in user as last stored (no request is made); `nil` when signed out.
    /// ``refreshCurrentUser()`` asks the server.
    public var currentUser: User? { state.current?.user }

    /// The stored session token (`r:…`), for calls of your own to the server; `nil` when signed out.
    public var sessionToken: String? { state.current?.sessionToken }

    /// The signed-in user over time: a new stream that yields the current user (or `nil`) at
    /// once, then the user on every sign-up and log-in and whenever the stored user changes (a
    /// profile update, a refresh that finds a change), and `nil` on log-out and when the server
    /// reports the session invalid. Each access makes an independent stream.
    public var authStateChanges: AsyncStream<User?> { state.stream() }

    /// Creates an account, signs in as it and stores the session.
    ///
    /// - Throws: ``GatehouseError/usernameTaken``, ``GatehouseError/emailTaken``,
    ///   ``GatehouseError/invalidEmail``, ``GatehouseError/weakPassword``, ``GatehouseError/commonPassword``,
    ///   ``GatehouseError/rateLimited(retryAfter:)``, or a network, storage or server error.
    @discardableResult
    public func signUp(username: String, password: String, email: String? = nil) async throws(GatehouseError) -> User {
        var fields: [String: JSONValue] = ["username": .string(username), "password": .string(password)]
        if let email { fields["email"] = .string(email) }
        return try await withUserSelection { selection throws(GatehouseError) in
            let data = try await transport.execute(
                "mutation SignUp($input: SignUpInput!) { signUp(input: $input) { viewer { sessionToken user { ...UserFields } } } } "
                    + selection.fragment,
                variables: ["input": ["fields": .object(fields)]])
            return try signIn(data["signUp"]?["viewer"], selection)
        }
    }

    /// Logs in with a username or an email address and stores the new session.
    ///
    /// For an account with TOTP, the first try without `totpCode` throws
    /// ``GatehouseError/secondFactorRequired``: ask for the authenticator app's code (or a
    /// recovery code, which works once) and call again with it.
    ///
    /// ```swift
    /// do { try await auth.logIn(username: name, password: password) }
    /// catch .secondFactorRequired { try await auth.logIn(username: name, password: password, totpCode: askForCode()) }
    /// ```
    ///
    /// - Parameter totpCode: the current 6-digit code, or a recovery code (`abcde-23456`, in any
    ///   case, with or without the dash).
    /// - Throws: ``GatehouseError/invalidCredentials(message:)`` (also when the account is
    ///   locked: see ``GatehouseError/isAccountLocked``), ``GatehouseError/secondFactorRequired``,
    ///   ``GatehouseError/invalidSecondFactorCode``, ``GatehouseError/invalidRecoveryCode``,
    ///   ``GatehouseError/emailNotVerified``, ``GatehouseError/rateLimited(retryAfter:)``,
    ///   or a network, storage or server error.
    @discardableResult
    public func logIn(username: String, password: String, totpCode: String? = nil) async throws(GatehouseError) -> User {
        var input: [String: JSONValue] = ["username": .string(username), "password": .string(password)]
        if let totpCode { input["authData"] = ["mfa": ["token": .string(totpCode)]] }
        return try await withUserSelection { selection throws(GatehouseError) in
            let data = try await transport.execute(
                "mutation LogIn($input: LogInInput!) { logIn(input: $input) { viewer { sessionToken user { ...UserFields } } } } "
                    + selection.fragment,
                variables: ["input": .object(input)])
            return try signIn(data["logIn"]?["viewer"], selection)
        }
    }

    /// Ends the session on the server and clears it here.
    ///
    /// The stored session is cleared (and `nil` yielded) even when the server cannot be
    /// reached; the error is still thrown so the caller knows the token may remain valid there.
    /// Signed out already: does nothing.
    public func logOut() async throws(GatehouseError) {
        guard let token = state.current?.sessionToken else { return }
        var failure: GatehouseError? = nil
        do {
            _ = try await transport.execute(
                "mutation LogOut { logOut(input: {}) { ok } }", sessionToken: token)
        } catch {
            failure = error
        }
        try signOut(ifToken: token)
        if let failure { throw failure }
    }

    /// Asks the server who the stored session belongs to (`viewer`), stores the answer and
    /// returns it; `nil` when signed out (no request is made).
    ///
    /// - Throws: ``GatehouseError/sessionInvalid`` when the server no longer knows the session
    ///   (it is then cleared and `nil` yielded), or a network, storage or server error.
    @discardableResult
    public func refreshCurrentUser() async throws(GatehouseError) -> User? {
        guard let session = state.current else { return nil }
        let user = try await withUserSelection { selection throws(GatehouseError) in
            let data = try await authenticated("query Viewer { viewer { user { ...UserFields } } } " + selection.fragment, as: session)
            guard let user = data["viewer"]?["user"] else { throw .server(code: nil, message: "The server sent no user.") }
            return try selection.user(user)
        }
        try keep(user, of: session)
        return state.current?.user
    }

    /// The stored session, for a call that needs one; ``GatehouseError/sessionInvalid`` when signed out.
    func requireSession() throws(GatehouseError) -> StoredSession {
        guard let session = state.current else { throw .sessionInvalid }
        return session
    }

    /// Runs `query` with `session`'s token. A 209 answer clears the session (unless a newer
    /// log-in replaced it meanwhile) and is rethrown.
    func authenticated(_ query: String, variables: [String: JSONValue] = [:], as session: StoredSession)
        async throws(GatehouseError) -> JSONValue
    {
        do {
            return try await transport.execute(query, variables: variables, sessionToken: session.sessionToken)
        } catch .sessionInvalid {
            try signOut(ifToken: session.sessionToken)
            throw .sessionInvalid
        }
    }

    /// Stores `user` as the user of `session`, unless a log-in or log-out happened meanwhile.
    func keep(_ user: User, of session: StoredSession) throws(GatehouseError) {
        guard state.current?.sessionToken == session.sessionToken else { return }
        try save(StoredSession(sessionToken: session.sessionToken, user: user))
    }

    /// Clears the stored session if it still holds `token` (a newer log-in stays), and `nil`
    /// is yielded.
    func signOut(ifToken token: String) throws(GatehouseError) {
        guard state.clear(ifToken: token) else { return }
        do { try store.remove(.session) } catch { throw .storage(String(describing: error)) }
    }

    /// Stores the session of a sign-up's or log-in's `viewer`, whose user is of `selection`.
    func signIn(_ viewer: JSONValue?, _ selection: UserSelection) throws(GatehouseError) -> User {
        guard let viewer, let token = viewer["sessionToken"]?.string, let userJSON = viewer["user"] else {
            throw .server(code: nil, message: "The server sent no session.")
        }
        let session = StoredSession(sessionToken: token, user: try selection.user(userJSON))
        try save(session)
        return session.user
    }

    private func save(_ session: StoredSession) throws(GatehouseError) {
        do {
            try store.write(try JSONEncoder().encode(session), for: .session)
        } catch {
            throw .storage(String(describing: error))
        }
        state.set(session)
    }
}
