import Foundation

/// The account's lifecycle: password reset, email verification, changes, deletion and the
/// signed-in devices (sessions).
///
/// ```swift
/// try await auth.sendPasswordReset(email: "alice@example.com")
/// try await auth.confirmPasswordReset(username: "alice", token: tokenFromTheLink, newPassword: "new password 1")
/// try await auth.updatePassword("new password 2", currentPassword: "new password 1")
/// for session in try await auth.sessions() where !session.isCurrent { try await auth.revokeSession(session) }
/// ```
///
/// Changing the password or email and deleting the account need a recent log-in on the server
/// (`GATEHOUSE_RECENT_AUTH`): pass `currentPassword`, or catch
/// ``GatehouseError/recentLoginRequired`` and ask for it then.
@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
extension GatehouseAuth {
    /// Asks the server to mail a password reset link to `email`. Succeeds whether or not an
    /// account uses the address: the server does not tell.
    ///
    /// - Throws: ``GatehouseError/rateLimited(retryAfter:)``, or a network or server error.
    public func sendPasswordReset(email: String) async throws(GatehouseError) {
        _ = try await transport.execute(
            "mutation ResetPassword($input: ResetPasswordInput!) { resetPassword(input: $input) { ok } }",
            variables: ["input": ["email": .string(email)]])
    }

    /// Sets a new password with the `username` and `token` of a reset link. The server then
    /// ends every session of the account, so a stored session of that account is cleared too.
    ///
    /// - Throws: ``GatehouseError/invalidLink``, ``GatehouseError/linkExpired``,
    ///   ``GatehouseError/weakPassword``, ``GatehouseError/commonPassword``, or a network,
    ///   storage or server error.
    public func confirmPasswordReset(username: String, token: String, newPassword: String) async throws(GatehouseError) {
        _ = try await transport.execute(
            "mutation ConfirmResetPassword($input: ConfirmResetPasswordInput!) { confirmResetPassword(input: $input) { ok } }",
            variables: ["input": ["username": .string(username), "token": .string(token), "password": .string(newPassword)]])
        if let session = state.current, session.user.isNamed(username) { try signOut(ifToken: session.sessionToken) }
    }

    /// Asks the server to mail a verification link to the signed-in user's email address. The
    /// server sends nothing when the address is verified already.
    ///
    /// - Throws: ``GatehouseError/noEmail`` when the stored user has no email,
    ///   ``GatehouseError/sessionInvalid`` when signed out, or a network or server error.
    public func sendEmailVerification() async throws(GatehouseError) {
        let session = try requireSession()
        guard let email = session.user.email, !email.isEmpty else { throw .noEmail }
        _ = try await transport.execute(
            "mutation SendVerificationEmail($input: SendVerificationEmailInput!) { sendVerificationEmail(input: $input) { ok } }",
            variables: ["input": ["email": .string(email)]])
    }

    /// Verifies an email address with the `username` and `token` of a verification link. When
    /// that user is signed in here, the stored user is refreshed (a failed refresh is ignored:
    /// the address is verified all the same).
    ///
    /// - Throws: ``GatehouseError/invalidLink``, or a network or server error.
    public func verifyEmail(username: String, token: String) async throws(GatehouseError) {
        _ = try await transport.execute(
            "mutation VerifyEmail($input: VerifyEmailInput!) { verifyEmail(input: $input) { ok } }",
            variables: ["input": ["username": .string(username), "token": .string(token)]])
        if let session = state.current, session.user.isNamed(username) { _ = try? await refreshCurrentUser() }
    }

    /// Changes the signed-in user's email address and stores the updated user. The new address
    /// is unverified; the server mails the old one that it changed.
    ///
    /// - Parameter currentPassword: proves a recent log-in; `nil` when the session is recent enough.
    /// - Throws: ``GatehouseError/recentLoginRequired``, ``GatehouseError/invalidCredentials(message:)``
    ///   (a wrong `currentPassword`), ``GatehouseError/invalidEmail``, ``GatehouseError/emailTaken``,
    ///   ``GatehouseError/sessionInvalid``, or a network, storage or server error.
    @discardableResult
    public func updateEmail(_ email: String, currentPassword: String? = nil) async throws(GatehouseError) -> User {
        try await updateUser(["email": .string(email)], currentPassword: currentPassword).user
    }

    /// Changes the signed-in user's password and stores the updated user. This session stays
    /// signed in; the server ends every other session of the account.
    ///
    /// - Parameter currentPassword: proves a recent log-in; `nil` when the session is recent enough.
    /// - Throws: ``GatehouseError/recentLoginRequired``, ``GatehouseError/invalidCredentials(message:)``
    ///   (a wrong `currentPassword`), ``GatehouseError/weakPassword``, ``GatehouseError/commonPassword``,
    ///   ``GatehouseError/sessionInvalid``, or a network, storage or server error.
    @discardableResult
    public func updatePassword(_ newPassword: String, currentPassword: String? = nil) async throws(GatehouseError) -> User {
        try await updateUser(["password": .string(newPassword)], currentPassword: currentPassword).user
    }

    /// Deletes the signed-in user's account with all its sessions, and clears the stored
    /// session (`nil` is yielded).
    ///
    /// - Parameter currentPassword: proves a recent log-in; `nil` when the session is recent enough.
    /// - Throws: ``GatehouseError/recentLoginRequired``, ``GatehouseError/invalidCredentials(message:)``
    ///   (a wrong `currentPassword`), ``GatehouseError/sessionInvalid``, or a network, storage or
    ///   server error.
    public func deleteAccount(currentPassword: String? = nil) async throws(GatehouseError) {
        let session = try requireSession()
        _ = try await authenticated(
            "mutation DeleteUser($input: DeleteUserInput!) { deleteUser(input: $input) { user { objectId } } }",
            variables: ["input": .object(userInput(session, currentPassword: currentPassword))], as: session)
        try signOut(ifToken: session.sessionToken)
    }

    /// The signed-in user's live sessions (devices and apps), newest first; this one has
    /// ``Session/isCurrent`` set.
    ///
    /// - Throws: ``GatehouseError/sessionInvalid``, or a network or server error.
    public func sessions() async throws(GatehouseError) -> [Session] {
        let session = try requireSession()
        let data = try await authenticated(
            "query Sessions { viewer { sessions { ...SessionFields } } } " + Session.fragment, as: session)
        guard let list = data["viewer"]?["sessions"]?.array else {
            throw .server(code: nil, message: "The server sent no sessions.")
        }
        return try list.map { json throws(GatehouseError) in try Session(json: json) }
    }

    /// Ends one of the signed-in user's sessions, on every server instance at once. Ending the
    /// current one signs out here too, as ``logOut()`` does.
    ///
    /// - Throws: ``GatehouseError/server(code:message:)`` 101 `Object not found.` when it is not
    ///   a live session of this user, ``GatehouseError/sessionInvalid``, or a network or server error.
    public func revokeSession(_ target: Session) async throws(GatehouseError) {
        let session = try requireSession()
        _ = try await authenticated(
            "mutation RevokeSession($input: RevokeSessionInput!) { revokeSession(input: $input) { ok } }",
            variables: ["input": ["id": .string(target.id)]], as: session)
        if target.isCurrent { try signOut(ifToken: session.sessionToken) }
    }

    /// Ends every session of the signed-in user but this one; returns how many ended.
    ///
    /// - Throws: ``GatehouseError/sessionInvalid``, or a network or server error.
    @discardableResult
    public func revokeOtherSessions() async throws(GatehouseError) -> Int {
        let session = try requireSession()
        let data = try await authenticated(
            "mutation RevokeOtherSessions { revokeOtherSessions(input: {}) { revoked } }", as: session)
        guard let revoked = data["revokeOtherSessions"]?["revoked"]?.int else {
            throw .server(code: nil, message: "The server sent no count.")
        }
        return revoked
    }

    /// `updateUser` of the signed-in user with `fields`; stores the updated user and returns it
    /// with the answer's `authDataResponse` (the recovery codes after a TOTP enrolment or
    /// regeneration, `null` otherwise).
    func updateUser(_ fields: [String: JSONValue], currentPassword: String?) async throws(GatehouseError)
        -> (user: User, authDataResponse: JSONValue?)
    {
        let session = try requireSession()
        var input = userInput(session, currentPassword: currentPassword)
        input["fields"] = .object(fields)
        let answer = try await withUserSelection { selection throws(GatehouseError) in
            let data = try await authenticated(
                "mutation UpdateUser($input: UpdateUserInput!) { updateUser(input: $input) { user { ...UserFields authDataResponse } } } "
                    + selection.fragment,
                variables: ["input": .object(input)], as: session)
            guard let json = data["updateUser"]?["user"] else { throw .server(code: nil, message: "The server sent no user.") }
            return (user: try selection.user(json), authDataResponse: json["authDataResponse"])
        }
        try keep(answer.user, of: session)
        return answer
    }

    /// The `id` and `currentPassword` of an `updateUser` or `deleteUser` input for the session's user.
    private func userInput(_ session: StoredSession, currentPassword: String?) -> [String: JSONValue] {
        var input: [String: JSONValue] = ["id": .string(session.user.id)]
        if let currentPassword { input["currentPassword"] = .string(currentPassword) }
        return input
    }
}

extension User {
    /// Whether a reset or verification link's `username` names this user (its username, or
    /// its email, compared case-insensitively as the server does).
    fileprivate func isNamed(_ name: String) -> Bool {
        let name = name.lowercased()
        return username?.lowercased() == name || email?.lowercased() == name
    }
}
