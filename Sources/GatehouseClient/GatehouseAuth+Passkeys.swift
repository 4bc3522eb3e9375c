import Foundation

/// Passkeys (WebAuthn): registration for the signed-in user, log-in without a password, the
/// list and removal. Options and credentials are the JSON forms of the WebAuthn structures
/// (binary fields in base64url) as ``JSONValue``, passed unchanged between the server and the
/// platform's passkey API; `JSONEncoder`/`JSONDecoder` give them as `Data` for a web view.
///
/// On Apple platforms (AuthenticationServices; the app's associated domain must be the
/// server's relying party id, `GATEHOUSE_WEBAUTHN_RP_ID`, and its origin `https://<that id>`
/// one of `GATEHOUSE_WEBAUTHN_ORIGINS`):
///
/// ```swift
/// // Register (signed in):
/// let options = try await auth.passkeyRegistrationOptions()
/// let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options["rp"]?["id"]?.string ?? "")
/// let request = provider.createCredentialRegistrationRequest(
///     challenge: options["challenge"]?.base64URLData ?? Data(), name: options["user"]?["name"]?.string ?? "",
///     userID: options["user"]?["id"]?.base64URLData ?? Data())
/// // … ASAuthorizationController(authorizationRequests: [request]); in its delegate:
/// let new = authorization.credential as! ASAuthorizationPlatformPublicKeyCredentialRegistration
/// try await auth.registerPasskey(credential: .passkeyRegistration(
///     credentialID: new.credentialID, clientDataJSON: new.rawClientDataJSON,
///     attestationObject: new.rawAttestationObject ?? Data()), name: "iPhone")
///
/// // Log in:
/// let login = try await auth.passkeyLoginOptions(username: nil)
/// let assertionRequest = provider.createCredentialAssertionRequest(challenge: login["challenge"]?.base64URLData ?? Data())
/// // … in the delegate:
/// let assertion = authorization.credential as! ASAuthorizationPlatformPublicKeyCredentialAssertion
/// try await auth.logIn(passkeyCredential: .passkeyAssertion(
///     credentialID: assertion.credentialID, clientDataJSON: assertion.rawClientDataJSON,
///     authenticatorData: assertion.rawAuthenticatorData, signature: assertion.signature, userHandle: assertion.userID))
/// ```
@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
extension GatehouseAuth {
    /// The `PublicKeyCredentialCreationOptionsJSON` for a new passkey of the signed-in user: `rp`
    /// (`id`, `name`), `user` (`id` base64url, `name`, `displayName`), `challenge` (base64url, valid
    /// five minutes, once), `pubKeyCredParams`, `excludeCredentials` (the user's passkeys), ….
    ///
    /// - Throws: ``GatehouseError/recentLoginRequired`` (log in again first),
    ///   ``GatehouseError/secondFactorLogInRequired`` (the account has a second factor and this
    ///   session was not made with it), ``GatehouseError/sessionInvalid``, or a network or server error.
    public func passkeyRegistrationOptions() async throws(GatehouseError) -> JSONValue {
        let session = try requireSession()
        let data = try await authenticated(
            "mutation PasskeyRegistrationOptions { passkeyRegistrationOptions(input: {}) { options } }", as: session)
        return try Self.options(data["passkeyRegistrationOptions"])
    }

    /// Registers the passkey the platform made for ``passkeyRegistrationOptions()``: `credential`
    /// is its `RegistrationResponseJSON` (a browser's `credential.toJSON()`, or
    /// ``JSONValue/passkeyRegistration(credentialID:clientDataJSON:attestationObject:)``).
    ///
    /// - Parameter name: what the list shows (e.g. the device's name); the server's default when `nil`.
    /// - Throws: ``GatehouseError/invalidPasskeyRegistration``, ``GatehouseError/recentLoginRequired``,
    ///   ``GatehouseError/secondFactorLogInRequired``, ``GatehouseError/sessionInvalid``, or a network
    ///   or server error.
    @discardableResult
    public func registerPasskey(credential: JSONValue, name: String? = nil) async throws(GatehouseError) -> Passkey {
        let session = try requireSession()
        var input: [String: JSONValue] = ["credential": credential]
        if let name { input["name"] = .string(name) }
        let data = try await authenticated(
            "mutation RegisterPasskey($input: RegisterPasskeyInput!) { registerPasskey(input: $input) { passkey { ...PasskeyFields } } } "
                + Passkey.fragment,
            variables: ["input": .object(input)], as: session)
        guard let json = data["registerPasskey"]?["passkey"] else { throw .server(code: nil, message: "The server sent no passkey.") }
        return try Passkey(json: json)
    }

    /// The `PublicKeyCredentialRequestOptionsJSON` for a passkey log-in: `challenge` (base64url,
    /// valid five minutes, once), `rpId`, and `allowCredentials` for `username` (empty without
    /// one: the platform offers the passkeys it has for the relying party).
    ///
    /// - Throws: ``GatehouseError/rateLimited(retryAfter:)``, or a network or server error.
    public func passkeyLoginOptions(username: String? = nil) async throws(GatehouseError) -> JSONValue {
        let input: JSONValue = username.map { ["username": .string($0)] } ?? [:]
        let data = try await transport.execute(
            "mutation PasskeyLoginOptions($input: PasskeyLoginOptionsInput!) { passkeyLoginOptions(input: $input) { options } }",
            variables: ["input": input])
        return try Self.options(data["passkeyLoginOptions"])
    }

    /// Logs in with a passkey and stores the new session (its ``Session/factors`` are
    /// `["passkey"]`, a second factor too). `credential` is the `AuthenticationResponseJSON` of
    /// an assertion for ``passkeyLoginOptions(username:)`` (a browser's `credential.toJSON()`, or
    /// ``JSONValue/passkeyAssertion(credentialID:clientDataJSON:authenticatorData:signature:userHandle:)``).
    ///
    /// - Throws: ``GatehouseError/invalidPasskey``, ``GatehouseError/emailNotVerified`` (the server
    ///   requires verified addresses), ``GatehouseError/rateLimited(retryAfter:)``, or a network,
    ///   storage or server error.
    @discardableResult
    public func logIn(passkeyCredential credential: JSONValue) async throws(GatehouseError) -> User {
        return try await withUserSelection { selection throws(GatehouseError) in
            let data = try await transport.execute(
                "mutation LogInWithPasskey($input: LogInWithPasskeyInput!) { logInWithPasskey(input: $input) { viewer { sessionToken user { ...UserFields } } } } "
                    + selection.fragment,
                variables: ["input": ["credential": credential]])
            return try signIn(data["logInWithPasskey"]?["viewer"], selection)
        }
    }

    /// The signed-in user's passkeys.
    ///
    /// - Throws: ``GatehouseError/sessionInvalid``, or a network or server error.
    public func passkeys() async throws(GatehouseError) -> [Passkey] {
        let session = try requireSession()
        let data = try await authenticated("query Passkeys { viewer { passkeys { ...PasskeyFields } } } " + Passkey.fragment, as: session)
        guard let list = data["viewer"]?["passkeys"]?.array else { throw .server(code: nil, message: "The server sent no passkeys.") }
        return try list.map { json throws(GatehouseError) in try Passkey(json: json) }
    }

    /// Removes one of the signed-in user's passkeys by its ``Passkey/id``. The passkey itself
    /// stays on the device (the platform's passkey manager deletes it there).
    ///
    /// - Throws: ``GatehouseError/server(code:message:)`` 101 `Object not found.` when it is not one
    ///   of the user's passkeys, ``GatehouseError/lastLogInMethod``, ``GatehouseError/recentLoginRequired``,
    ///   ``GatehouseError/secondFactorEnrollmentRequired`` (the server requires a second factor and
    ///   this session was made without one), ``GatehouseError/sessionInvalid``, or a network or server error.
    public func removePasskey(id: String) async throws(GatehouseError) {
        let session = try requireSession()
        _ = try await authenticated(
            "mutation RemovePasskey($input: RemovePasskeyInput!) { removePasskey(input: $input) { ok } }",
            variables: ["input": ["id": .string(id)]], as: session)
    }

    /// The `options` of a `PasskeyOptionsPayload`.
    private static func options(_ payload: JSONValue?) throws(GatehouseError) -> JSONValue {
        guard let options = payload?["options"], case .object = options else {
            throw .server(code: nil, message: "The server sent no passkey options.")
        }
        return options
    }
}
