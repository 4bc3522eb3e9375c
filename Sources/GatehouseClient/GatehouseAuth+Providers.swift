import Foundation

/// A way to log in other than a password, as the server's `logInWith` and `authData` take it.
///
/// The token providers carry the ID token (a JWT) the provider's own sign-in gave the app. The
/// server checks it (signature, issuer, audience, expiry, nonce); it also requires the user id
/// sent beside it to equal the token's `sub` claim, so the SDK reads `sub` from the token's
/// payload (base64url JSON) without checking the token: that is the server's job.
public enum AuthProvider: Sendable, Hashable {
    /// Sign in with Apple: the identity token, and the raw nonce when the request set one.
    case apple(idToken: String, nonce: String?)
    /// Sign in with Google: the ID token.
    case google(idToken: String)
    /// Any OpenID Connect provider configured on the server under the name `provider`. The
    /// token is sent as `id_token`, the server's default `token_field`.
    case oidc(provider: String, idToken: String)
    /// A guest: an anonymous user, upgraded later by setting a username and password (or by
    /// linking a provider). The id is random, kept in the ``SessionStore`` so that the same
    /// guest comes back on this installation.
    case anonymous

    /// The name of the provider on the server (`authData`'s key): `apple`, `google`,
    /// `anonymous`, or the configured name of an OpenID Connect provider.
    public var name: String {
        switch self {
        case .apple: "apple"
        case .google: "google"
        case .oidc(let provider, _): provider
        case .anonymous: "anonymous"
        }
    }
}

/// Third-party log-in, guests, and linking providers to the signed-in user.
///
/// ```swift
/// try await auth.logIn(with: .anonymous)                            // a guest
/// try await auth.logIn(with: .apple(idToken: token, nonce: nonce))  // Sign in with Apple
/// try await auth.link(.google(idToken: googleToken))                // also log in with Google
/// try await auth.unlink(provider: "google")
/// ```
@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
extension GatehouseAuth {
    /// Logs in with a provider's token, or as this installation's guest, and stores the new
    /// session. The first log-in with a provider account creates a user; it is never joined
    /// to an existing account by a matching email.
    ///
    /// - Parameter totpCode: the TOTP or recovery code of a user with a second factor, who gets
    ///   ``GatehouseError/secondFactorRequired`` without it (as with a password).
    /// - Throws: ``GatehouseError/unsupportedProvider``, ``GatehouseError/invalidProviderToken(provider:)``,
    ///   ``GatehouseError/secondFactorRequired``, ``GatehouseError/invalidSecondFactorCode``,
    ///   ``GatehouseError/invalidRecoveryCode``, ``GatehouseError/emailNotVerified`` (the server
    ///   requires verified addresses, and the account's, or the one given for a new account, is
    ///   not yet), ``GatehouseError/rateLimited(retryAfter:)``, or a network, storage or server error.
    @discardableResult
    public func logIn(with provider: AuthProvider, totpCode: String? = nil) async throws(GatehouseError) -> User {
        var authData: [String: JSONValue] = [provider.name: try authData(provider)]
        if let totpCode { authData["mfa"] = ["token": .string(totpCode)] }
        return try await withUserSelection { selection throws(GatehouseError) in
            let data = try await transport.execute(
                "mutation LogInWith($input: LogInWithInput!) { logInWith(input: $input) { viewer { sessionToken user { ...UserFields } } } } "
                    + selection.fragment,
                variables: ["input": ["authData": .object(authData)]])
            return try signIn(data["logInWith"]?["viewer"], selection)
        }
    }

    /// Links a provider to the signed-in user, who can then log in with it too; returns the
    /// updated user. The server mails the account's owner about it, and a guest linking a
    /// provider stops being a guest (its anonymous id no longer logs in).
    ///
    /// - Parameter currentPassword: proves a recent log-in (linking needs one, like an email
    ///   change); `nil` when the session is recent enough.
    /// - Throws: ``GatehouseError/providerAlreadyLinked`` (it belongs to another user),
    ///   ``GatehouseError/invalidProviderToken(provider:)``, ``GatehouseError/unsupportedProvider``,
    ///   ``GatehouseError/recentLoginRequired``, ``GatehouseError/anonymousIdOfRegularUser``
    ///   (``AuthProvider/anonymous`` for a user who is no guest), ``GatehouseError/sessionInvalid``,
    ///   or a network, storage or server error.
    @discardableResult
    public func link(_ provider: AuthProvider, currentPassword: String? = nil) async throws(GatehouseError) -> User {
        try await updateUser(["authData": .object([provider.name: try authData(provider)])], currentPassword: currentPassword).user
    }

    /// Unlinks the provider named `provider` (see ``AuthProvider/name``) from the signed-in
    /// user; returns the updated user. The server mails the account's owner about it.
    ///
    /// - Parameter currentPassword: proves a recent log-in (unlinking needs one); `nil` when
    ///   the session is recent enough.
    /// - Throws: ``GatehouseError/lastLogInMethod`` (no password and no other provider would
    ///   remain), ``GatehouseError/recentLoginRequired``, ``GatehouseError/sessionInvalid``, or a
    ///   network, storage or server error.
    @discardableResult
    public func unlink(provider: String, currentPassword: String? = nil) async throws(GatehouseError) -> User {
        try await updateUser(["authData": .object([provider: .null])], currentPassword: currentPassword).user
    }

    /// The `authData.<name>` object of `provider`: its user id and token.
    private func authData(_ provider: AuthProvider) throws(GatehouseError) -> JSONValue {
        switch provider {
        case .apple(let token, let nonce):
            var data: [String: JSONValue] = ["id": .string(try Self.subject(of: token, provider: "apple")), "token": .string(token)]
            if let nonce { data["nonce"] = .string(nonce) }
            return .object(data)
        case .google(let token):
            return ["id": .string(try Self.subject(of: token, provider: "google")), "id_token": .string(token)]
        case .oidc(let name, let token):
            return ["id": .string(try Self.subject(of: token, provider: name)), "id_token": .string(token)]
        case .anonymous:
            return ["id": .string(try anonymousId())]
        }
    }

    /// This installation's guest id: the stored one, or a new random one, stored.
    private func anonymousId() throws(GatehouseError) -> String {
        do {
            if let data = try store.read(.anonymousId), let id = String(data: data, encoding: .utf8), !id.isEmpty {
                return id
            }
            let id = UUID().uuidString.lowercased()
            try store.write(Data(id.utf8), for: .anonymousId)
            return id
        } catch {
            throw .storage(String(describing: error))
        }
    }

    /// The `sub` claim of a JWT's payload, read without checking the token (the server does).
    static func subject(of token: String, provider: String) throws(GatehouseError) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .invalidProviderToken(provider: provider) }
        guard let payload = JSONValue.string(String(parts[1])).base64URLData,
            let claims = try? JSONDecoder().decode(JSONValue.self, from: payload),
            let subject = claims["sub"]?.string, !subject.isEmpty
        else { throw .invalidProviderToken(provider: provider) }
        return subject
    }
}
