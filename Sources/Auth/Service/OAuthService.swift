import Foundation
import JSON
import JWT
import Mail
import Postgres
import Sodium
import Signatures

/// Gatehouse as an OAuth 2.1 / OpenID Connect provider (docs/oauth.md): clients (configured and
/// registered), the authorization request's checks, codes bound to a session, the token
/// endpoint's two grants with rotating refresh tokens, ID tokens, userinfo, revocation, and the
/// apps a user has let in. Access and ID tokens are signed by ``AccessTokenService``'s keys.
/// Every method that reads or writes the database blocks its caller.
public final class OAuthService: Sendable {
    let core: AuthCore
    let sessions: SessionService
    let secondFactors: SecondFactorService
    let tokens: AccessTokenService
    let store: OAuthStore
    /// The notice of a user's first consent to an app.
    let mail: AccountMail
    /// Token-endpoint requests per client id and per client network.
    private let tokenLimiter: RateLimiter
    /// Refresh grants coalesced across request threads: one statement rotates the tokens of every
    /// refresh waiting (``OAuthStore/rotate(_:useResolution:)``).
    let refreshRotations: LookupBatcher<OAuthStore.RefreshRotation, OAuthStore.Rotation>

    init(core: AuthCore, sessions: SessionService, secondFactors: SecondFactorService, tokens: AccessTokenService, pool: Pool) {
        self.core = core
        self.sessions = sessions
        self.secondFactors = secondFactors
        self.tokens = tokens
        let store = OAuthStore(pool: pool, events: core.events)
        self.store = store
        self.mail = AccountMail(core.configuration.accounts, linkBox: core.linkBox)
        let now = core.now
        self.tokenLimiter = RateLimiter(window: 60, now: { now().timeIntervalSince1970 })
        self.refreshRotations = core.batcher { [useResolution = SessionService.useInterval(core.configuration)] in
            try store.rotate($0, useResolution: useResolution)
        }
    }

    var policy: OAuthPolicy { core.configuration.oauth }

    /// Whether clients may register themselves (`GATEHOUSE_OAUTH_DYNAMIC_REGISTRATION`).
    public var registrationEnabled: Bool { policy.dynamicRegistration }

    /// The issuer (`iss` of every token, RFC 9207's `iss` of every authorization response).
    public var issuer: String { tokens.issuer }

    // MARK: Clients

    /// The client `clientId`: a configured one, else a registered one; nil when there is none.
    public func client(id clientId: String) throws(AuthError) -> OAuthClient? {
        if let configured = policy.clients.first(where: { $0.clientId == clientId }) { return configured }
        guard policy.dynamicRegistration, OAuthClient.isValidId(clientId) else { return nil }
        return try core.database { () throws in try store.client(id: clientId) }
    }

    /// What RFC 7591 registration asks for.
    public struct Registration: Sendable {
        public var redirectURIs: [String]
        public var name: String
        /// `client_secret_basic` (a confidential client, given a secret) or `none` (public).
        public var confidential: Bool

        public init(redirectURIs: [String], name: String, confidential: Bool) {
            self.redirectURIs = redirectURIs
            self.name = name
            self.confidential = confidential
        }
    }

    /// Registers a client (RFC 7591), counted against the client's network as a sign-up is; the
    /// client and its secret (shown this once: only its digest is kept).
    public func register(_ registration: Registration, request: AuthRequest) throws(OAuthError) -> (OAuthClient, secret: String?) {
        guard policy.dynamicRegistration else { throw OAuthError(.accessDenied, "Dynamic registration is off on this server.") }
        do { try core.limitAddress(ClientNetwork.key(of: request.clientAddress)) } catch { throw OAuthError(error) }
        let secret = registration.confidential ? Base64URL.encode(SecureRandom.bytes(32)) : nil
        let client = OAuthClient(
            clientId: SecureRandom.string(length: 24, alphabet: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)),
            secretDigest: secret.map(SHA256.digest), redirectURIs: registration.redirectURIs, name: registration.name,
            scopes: OAuthPolicy.knownScopes, firstParty: false, registered: true)
        do { try core.database { () throws in try store.register(client, at: core.timestamp()) } } catch { throw OAuthError(error) }
        return (client, secret)
    }

    /// The registered clients with when each registered, for the master key.
    public func registeredClients() throws(AuthError) -> [(client: OAuthClient, createdAt: Date)] {
        try core.database { () throws in try store.clients() }
    }

    /// Removes the registered client `clientId`, for the master key: its grants end (refresh
    /// tokens, and access tokens as far as userinfo and introspection go) and users' consents to it
    /// are forgotten. False when no registered client has that id (a configured one is removed
    /// from `GATEHOUSE_OAUTH_CLIENTS`).
    public func deleteRegisteredClient(id clientId: String) throws(AuthError) -> Bool {
        try core.database { () throws in try store.deleteClient(id: clientId) }
    }

    /// The client a token-endpoint request authenticates as: `basic` (the decoded
    /// `Authorization: Basic` id and secret) for a confidential client, else `clientId` from the
    /// form for a public one. 401 `invalid_client` for an unknown client, a wrong secret, or a
    /// confidential client without its secret. Counted against the rate limit per network before
    /// any check, and per client once a confidential client's secret is right: client ids are
    /// public, so a request that has not proved to be the client never uses up its budget (a
    /// public client, which proves nothing here, is limited per network only).
    public func authenticateClient(
        basic: (id: String, secret: String)?, clientId: String?, request: AuthRequest
    ) throws(OAuthError) -> OAuthClient {
        let id = basic?.id ?? clientId
        let limit = policy.tokenRequestsPerMinute
        if let wait = tokenLimiter.attempt([(RateLimiter.Key("network " + ClientNetwork.key(of: request.clientAddress)), limit)]) {
            throw OAuthError(.rateLimited(retryAfter: wait))
        }
        guard let id, !id.isEmpty else { throw OAuthError(.invalidClient, "Client authentication is required: client_id, or HTTP Basic for a confidential client.") }
        let found: OAuthClient?
        do { found = try client(id: id) } catch { throw OAuthError(error) }
        guard let client = found else { throw OAuthError(.invalidClient, "Unknown client.") }
        if let basic {
            if let clientId, clientId != basic.id { throw OAuthError(.invalidClient, "client_id differs from the authenticated client.") }
            guard client.accepts(secret: basic.secret) else { throw OAuthError(.invalidClient, "Client authentication failed.") }
            if let wait = tokenLimiter.attempt([(RateLimiter.Key("client " + client.clientId), limit)]) {
                throw OAuthError(.rateLimited(retryAfter: wait))
            }
        } else if client.isConfidential {
            throw OAuthError(.invalidClient, "This client is confidential: authenticate with HTTP Basic (client_secret_basic).")
        }
        return client
    }

    // MARK: The authorization request

    /// `prompt` values (OpenID Connect Core §3.1.2.1).
    public enum Prompt: String, Sendable, Hashable {
        case login, consent, none
    }

    /// A checked authorization request.
    public struct AuthorizationRequest: Sendable {
        public var client: OAuthClient
        public var redirectURI: String
        public var scopes: [String]
        public var state: String?
        public var challenge: String
        public var nonce: String?
        public var resource: String?
        public var prompts: Set<Prompt>
    }

    /// Why an authorization request fails: shown on the page (the client or redirect URI cannot be
    /// trusted, or the client registered itself: RFC 9700 §4.11.2, no redirect to an unverified
    /// URI before the user signs in), or sent back to the redirect URI.
    public enum AuthorizationFailure: Error, Sendable {
        case page(String)
        case redirect(OAuthError, redirectURI: String, state: String?)
    }

    /// Checks an authorization request's parameters in the order RFC 6749 §4.1.2.1 sets: the
    /// client and the redirect URI first (a failure there is never redirected), then everything
    /// else (sent back to the redirect URI of a configured client; shown on the page for a
    /// registered one). A `resource` must be one the client is configured with
    /// (``OAuthClient/resources``) and an audience this server issues tokens for.
    public func authorizationRequest(_ parameters: [(name: String, value: String)]) throws(AuthorizationFailure) -> AuthorizationRequest {
        var values: [String: String] = [:]
        var repeated: String? = nil
        for (name, value) in parameters {
            if values.updateValue(value, forKey: name) != nil, repeated == nil { repeated = name }
        }
        guard let clientId = values["client_id"], !clientId.isEmpty else { throw .page("The request has no client_id.") }
        let found: OAuthClient?
        do { found = try client(id: clientId) } catch { throw .page("The server could not look the client up; try again.") }
        guard let client = found else { throw .page("The app asking (client_id \"\(clientId.utf8Prefix(100))\") is not known to this server.") }
        if repeated == "client_id" || repeated == "redirect_uri" { throw .page("The request repeats \(repeated!).") }
        guard let redirectURI = values["redirect_uri"], !redirectURI.isEmpty else { throw .page("The request has no redirect_uri.") }
        guard client.redirectURIs.contains(redirectURI) else {
            throw .page("The redirect_uri is not one registered for this app.")
        }
        let state = values["state"]
        func fail(_ code: OAuthError.Code, _ text: String) -> AuthorizationFailure {
            if client.registered { return .page(text) }
            return .redirect(OAuthError(code, text), redirectURI: redirectURI, state: state?.utf8Prefix(OAuthPolicy.parameterLimit))
        }
        if let repeated { throw fail(.invalidRequest, "The parameter \(repeated) is given more than once.") }
        for name in ["state", "nonce", "resource"] where (values[name]?.utf8.count ?? 0) > OAuthPolicy.parameterLimit {
            throw fail(.invalidRequest, "\(name) is longer than \(OAuthPolicy.parameterLimit) bytes.")
        }
        guard let responseType = values["response_type"], !responseType.isEmpty else {
            throw fail(.invalidRequest, "response_type is required.")
        }
        guard responseType == "code" else { throw fail(.unsupportedResponseType, "Only response_type=code is supported.") }
        guard let challenge = values["code_challenge"], !challenge.isEmpty else {
            throw fail(.invalidRequest, "code_challenge is required (PKCE with S256).")
        }
        guard values["code_challenge_method"] == "S256" else {
            throw fail(.invalidRequest, "code_challenge_method must be S256 (plain is not allowed).")
        }
        guard challenge.utf8.count == 43, Base64URL.decode(challenge)?.count == 32 else {
            throw fail(.invalidRequest, "code_challenge must be the base64url SHA-256 of the code verifier (43 characters).")
        }
        let scopes = Self.scopes(values["scope"] ?? "")
        guard !scopes.isEmpty else { throw fail(.invalidScope, "scope is required (for example: openid profile email).") }
        if let unknown = scopes.first(where: { !OAuthPolicy.knownScopes.contains($0) }) {
            throw fail(.invalidScope, "Unknown scope \"\(unknown.utf8Prefix(100))\".")
        }
        if let refused = scopes.first(where: { !client.scopes.contains($0) }) {
            throw fail(.invalidScope, "This app may not ask for the scope \"\(refused)\".")
        }
        var prompts = Set<Prompt>()
        for word in (values["prompt"] ?? "").split(separator: " ") {
            guard let prompt = Prompt(rawValue: String(word)) else {
                throw fail(.invalidRequest, "prompt must be login, consent or none.")
            }
            prompts.insert(prompt)
        }
        if prompts.contains(.none) && prompts.count > 1 { throw fail(.invalidRequest, "prompt=none cannot be combined with another prompt.") }
        let resource = values["resource"].flatMap { $0.isEmpty ? nil : $0 }
        if let resource {
            guard URLComponents(string: resource)?.scheme != nil, !resource.contains("#") else {
                throw fail(.invalidTarget, "resource must be an absolute URI without a fragment (RFC 8707).")
            }
            guard client.resources.contains(resource), tokens.audiences.contains(resource) else {
                throw fail(.invalidTarget, "resource is not one this app may ask tokens for.")
            }
        }
        return AuthorizationRequest(
            client: client, redirectURI: redirectURI, scopes: scopes, state: state, challenge: challenge,
            nonce: values["nonce"].flatMap { $0.isEmpty ? nil : $0 }, resource: resource, prompts: prompts)
    }

    /// The distinct scopes of a `scope` parameter, in their order.
    static func scopes(_ text: String) -> [String] {
        var scopes: [String] = []
        for word in text.split(separator: " ") where !scopes.contains(String(word)) { scopes.append(String(word)) }
        return scopes
    }

    /// Whether the user must be asked before `request` is granted: not for a first-party client,
    /// nor for scopes the user consented to before, unless `prompt=consent`. A stored consent
    /// covers requests without a `resource` only: access to a resource is asked for each time.
    public func needsConsent(_ request: AuthorizationRequest, userId: String) throws(AuthError) -> Bool {
        if request.prompts.contains(.consent) { return true }
        if request.client.firstParty { return false }
        if request.resource != nil { return true }
        let consented = try core.database { () throws in try store.consentedScopes(userId: userId, clientId: request.client.clientId) }
        return !request.scopes.allSatisfy(consented.contains)
    }

    /// The user's decision on the page's form (`POST /oauth/authorize`), with the session it signed
    /// in with: a code for `approve`, else `access_denied`. The session must be live and usable
    /// (a second factor where one is required, a verified email where that is required); with
    /// `prompt=login` made within `GATEHOUSE_RECENT_AUTH` seconds; with `prompt=none` and a
    /// consent still to give, `consent_required`. Approving records the consent; the user's first
    /// consent to the client sends them a notice naming the app, in the request's language.
    public func decide(
        _ request: AuthorizationRequest, sessionToken: String?, approve: Bool, authRequest: AuthRequest
    ) throws(OAuthError) -> String {
        let grant: SessionGrant
        do {
            grant = try sessions.viewer(token: sessionToken)
            try secondFactors.requireSecondFactor(grant, authRequest)
            try core.requireVerifiedEmail(grant.user)
        } catch .invalidSession, .sessionExpired {
            throw OAuthError(.loginRequired, "Sign in first: the session is missing, signed out or expired.")
        } catch { throw OAuthError(error) }
        guard approve else { throw OAuthError(.accessDenied, "The user denied the request.") }
        if request.prompts.contains(.login) {
            let window = max(core.configuration.accounts.recentAuthentication, 60)
            guard grant.session.createdAt.addingTimeInterval(Double(window)) >= core.now() else {
                throw OAuthError(.loginRequired, "prompt=login: the user must sign in again.")
            }
        }
        let consentNeeded: Bool
        do { consentNeeded = try needsConsent(request, userId: grant.user.objectId) } catch { throw OAuthError(error) }
        if request.prompts.contains(.none) && consentNeeded {
            throw OAuthError(.consentRequired, "The user has not consented to these scopes for this app.")
        }
        let code = Base64URL.encode(SecureRandom.bytes(32))
        let time = core.timestamp()
        let new = OAuthStore.NewCode(
            digest: SHA256.digest(code), grantId: SecureRandom.objectId(), clientId: request.client.clientId,
            userId: grant.user.objectId, sessionId: grant.session.objectId, scopes: request.scopes, resource: request.resource,
            redirectURI: request.redirectURI, challenge: request.challenge, nonce: request.nonce,
            expiresAt: time.addingTimeInterval(Double(OAuthPolicy.codeLifetime)),
            consent: request.client.firstParty ? nil : request.scopes,
            consentNotice: grant.user.email.map { email in
                mail.message(
                    .appAuthorized, to: email, about: grant.user, request: authRequest, token: nil,
                    signInChanges: [.appAuthorized(request.client.name)])
            })
        let stored: Bool
        do { stored = try core.database { () throws in try store.insert(new, at: time, mail: mail.context(time)) } } catch { throw OAuthError(error) }
        guard stored else { throw OAuthError(.loginRequired, "The session ended; sign in again.") }
        return code
    }

    /// `redirectURI` with `items` added to its query.
    public static func redirect(_ redirectURI: String, _ items: [(String, String?)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let query = items.compactMap { name, value in
            value.map { "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
        }.joined(separator: "&")
        return redirectURI + (redirectURI.contains("?") ? "&" : "?") + query
    }

    // MARK: The token endpoint

    /// What the token endpoint answers: RFC 6749 §5.1 with OpenID Connect's `id_token`.
    public struct TokenResponse: Sendable {
        public var accessToken: String
        public var expiresIn: Int
        public var scope: String
        public var idToken: String?
        public var refreshToken: String?

        public var json: JSONObject {
            var object: JSONObject = [
                "access_token": .string(accessToken), "token_type": "Bearer", "expires_in": .int(expiresIn), "scope": .string(scope),
            ]
            if let idToken { object["id_token"] = .string(idToken) }
            if let refreshToken { object["refresh_token"] = .string(refreshToken) }
            return object
        }
    }

    /// `grant_type=authorization_code`: the code for `client`, at `redirectURI`, with the PKCE
    /// `verifier` (RFC 7636 §4.6: its S256 must be the code's challenge). A refresh token comes with
    /// `offline_access`, or always for a first-party client.
    public func exchangeCode(_ code: String, redirectURI: String, verifier: String, client: OAuthClient) throws(OAuthError) -> TokenResponse {
        guard (43...128).contains(verifier.utf8.count), verifier.utf8.allSatisfy(Self.isUnreserved) else {
            throw OAuthError(.invalidGrant, "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.")
        }
        let challenge = Base64URL.encode(SHA256.digest(verifier))
        let time = core.timestamp()
        let refresh = Base64URL.encode(SecureRandom.bytes(32))
        let redemption: OAuthStore.Redemption
        do {
            redemption = try core.database { () throws in
                try store.redeem(
                    digest: SHA256.digest(code), clientId: client.clientId, redirectURI: redirectURI, challenge: challenge, now: time,
                    idleCutoff: sessions.idleCutoff(at: time)
                ) { record in
                    record.scopes.contains("offline_access") || client.firstParty ? SHA256.digest(refresh) : nil
                }
            }
        } catch { throw OAuthError(error) }
        switch redemption {
        case .refused(let reason): throw OAuthError(.invalidGrant, reason)
        case .reused: throw OAuthError(.invalidGrant, "The code was used before; what it issued is revoked.")
        case .sessionEnded: throw OAuthError(.invalidGrant, "The session the code came from has ended.")
        case .issued(let record):
            let refreshToken = record.scopes.contains("offline_access") || client.firstParty ? refresh : nil
            return try issue(record, client: client, scopes: record.scopes, refreshToken: refreshToken, nonce: record.nonce)
        }
    }

    /// `grant_type=refresh_token`: a new access token and the next refresh token for `client`;
    /// the presented one stops working. A used one presented again ends the session its grant came
    /// from and every token of it (reuse detection, OAuth 2.1 §4.3.1). `scope`, when given, may
    /// only narrow the access token's scopes.
    public func refresh(_ token: String, scope: String?, client: OAuthClient) throws(OAuthError) -> TokenResponse {
        let next = Base64URL.encode(SecureRandom.bytes(32))
        let time = core.timestamp()
        let rotation: OAuthStore.Rotation?
        do {
            let waiting = OAuthStore.RefreshRotation(
                digest: SHA256.digest(token), clientId: client.clientId, next: SHA256.digest(next), now: time,
                idleCutoff: sessions.idleCutoff(at: time))
            rotation = try core.database { () throws in try refreshRotations.lookup(waiting) }
        } catch { throw OAuthError(error) }
        switch rotation ?? .unknown {
        case .unknown, .wrongClient: throw OAuthError(.invalidGrant, "The refresh token is unknown, revoked, or another client's.")
        case .sessionEnded: throw OAuthError(.invalidGrant, "The session the refresh token came from has ended.")
        case .reused(let digest):
            if let digest { core.sessionCache?.invalidate(digest: digest) }
            throw OAuthError(.invalidGrant, "The refresh token was used before: the grant and its session have ended.")
        case .rotated(let record):
            var scopes = record.scopes
            if let scope {
                let asked = Self.scopes(scope)
                guard asked.allSatisfy(record.scopes.contains) else {
                    throw OAuthError(.invalidScope, "scope may only name scopes the grant has.")
                }
                scopes = asked
            }
            return try issue(record, client: client, scopes: scopes, refreshToken: next, nonce: nil)
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// The access token (and ID token, with `openid`) of a grant.
    private func issue(
        _ record: OAuthStore.GrantRecord, client: OAuthClient, scopes: [String], refreshToken: String?, nonce: String?
    ) throws(OAuthError) -> TokenResponse {
        let issuedAt = Int(core.now().timeIntervalSince1970.rounded(.down))
        let lifetime = core.configuration.accessTokens.lifetime
        do {
            let access = try tokens.sign(accessClaims(record, client: client, scopes: scopes, issuedAt: issuedAt, lifetime: lifetime))
            let id = scopes.contains("openid")
                ? try tokens.sign(idClaims(record, client: client, scopes: scopes, nonce: nonce, issuedAt: issuedAt, lifetime: lifetime),
                                  type: "JWT")
                : nil
            return TokenResponse(
                accessToken: access, expiresIn: lifetime, scope: scopes.joined(separator: " "), idToken: id, refreshToken: refreshToken)
        } catch { throw OAuthError(error) }
    }

    /// The claim naming the grant an access token was issued from: userinfo, introspection and
    /// revocation find the grant by it, and the token is good only while the grant lives.
    public static let grantClaim = "grant_id"

    /// An access token's claims (RFC 9068): `aud` the resource or else the client id, `scope`,
    /// `client_id`, the grant, and the user's claims the scopes allow.
    private func accessClaims(
        _ record: OAuthStore.GrantRecord, client: OAuthClient, scopes: [String], issuedAt: Int, lifetime: Int
    ) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(issuer), "sub": .string(record.user.objectId), "aud": .string(record.resource ?? client.clientId),
            "iat": .int(issuedAt), "nbf": .int(issuedAt), "exp": .int(issuedAt + lifetime),
            "jti": .string(Base64URL.encode(SecureRandom.bytes(16))), "sid": .string(record.session.objectId),
            "client_id": .string(client.clientId), "scope": .string(scopes.joined(separator: " ")),
            "auth_time": .int(Int(record.session.createdAt.timeIntervalSince1970.rounded(.down))),
            "amr": .array(AccessTokenClaims.amr(record.session.factors).map(JSON.string)),
            Self.grantClaim: .string(record.grantId),
        ]
        for (name, value) in userClaims(record, scopes: scopes) where claims[name] == nil { claims[name] = value }
        return claims
    }

    /// An ID token's claims (OpenID Connect Core §2): `aud` the client, `nonce` of the request,
    /// `auth_time`, `amr`, `sid`, and the user's claims the scopes allow.
    private func idClaims(
        _ record: OAuthStore.GrantRecord, client: OAuthClient, scopes: [String], nonce: String?, issuedAt: Int, lifetime: Int
    ) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(issuer), "sub": .string(record.user.objectId), "aud": .string(client.clientId),
            "exp": .int(issuedAt + lifetime), "iat": .int(issuedAt),
            "auth_time": .int(Int(record.session.createdAt.timeIntervalSince1970.rounded(.down))),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        claims["amr"] = .array(AccessTokenClaims.amr(record.session.factors).map(JSON.string))
        claims["sid"] = .string(record.session.objectId)
        claims["azp"] = .string(client.clientId)
        for (name, value) in userClaims(record, scopes: scopes) where claims[name] == nil { claims[name] = value }
        return claims
    }

    /// The user's claims that `scopes` allow: `email` and `email_verified` with `email`;
    /// `preferred_username`, `name`, `picture` and the declared `@claim` fields with `profile`.
    func userClaims(_ record: OAuthStore.GrantRecord, scopes: [String]) -> JSONObject {
        let all = AccessTokenClaims.userClaims(
            of: record.user, guest: AccessTokenClaims.isGuest(record.session), fields: core.configuration.userFields)
        var claims = JSONObject()
        for (name, value) in all {
            let isEmail = name == "email" || name == "email_verified"
            if isEmail ? scopes.contains("email") : scopes.contains("profile") { claims[name] = value }
        }
        return claims
    }

    // MARK: Tokens presented back

    /// The grant behind an access token this server issued to an OAuth client, while the token and
    /// its grant are good; nil otherwise (malformed, badly signed, expired, another issuer's, not
    /// an OAuth client's, or its grant ended).
    func grant(ofAccessToken compact: String) throws(AuthError) -> (claims: JSONObject, record: OAuthStore.GrantRecord)? {
        guard let token = try? JSONWebToken(compact: compact), token.header["typ"]?.stringValue == AccessTokenService.type,
            let keyId = token.keyId, let key = tokens.keys.verifier(keyId: keyId), (try? token.verifySignature(with: key)) != nil
        else { return nil }
        let claims = token.claims
        let time = core.timestamp()
        guard claims["iss"]?.stringValue == issuer, let expiry = claims["exp"]?.doubleValue, expiry > time.timeIntervalSince1970,
            let grantId = claims[Self.grantClaim]?.stringValue
        else { return nil }
        let record = try core.database { () throws in
            try store.liveGrant(id: grantId, now: time, idleCutoff: sessions.idleCutoff(at: time))
        }
        guard let record, record.clientId == claims["client_id"]?.stringValue else { return nil }
        return (claims, record)
    }

    /// OpenID Connect userinfo (Core §5.3) for an access token: `sub` and the claims its scopes
    /// allow. `invalid_token` for a token that is not good, `insufficient_scope` without `openid`.
    public func userinfo(accessToken: String?) throws(OAuthError) -> JSONObject {
        guard let accessToken, !accessToken.isEmpty else { throw OAuthError(.invalidToken, "An access token is required (Authorization: Bearer).") }
        let found: (claims: JSONObject, record: OAuthStore.GrantRecord)?
        do { found = try grant(ofAccessToken: accessToken) } catch { throw OAuthError(error) }
        guard let found else { throw OAuthError(.invalidToken, "The access token is not valid, expired, or revoked.") }
        let scopes = Self.scopes(found.claims["scope"]?.stringValue ?? "")
        guard scopes.contains("openid") else { throw OAuthError(.insufficientScope, "userinfo needs the openid scope.") }
        var answer: JSONObject = ["sub": .string(found.record.user.objectId)]
        for (name, value) in userClaims(found.record, scopes: scopes) { answer[name] = value }
        return answer
    }

    /// RFC 7009 revocation by `client`: a refresh token ends its grant; so does an access token
    /// (its grant, and every token of it). A token that is unknown, or another client's, changes nothing.
    public func revoke(_ token: String, client: OAuthClient) throws(OAuthError) {
        do {
            if token.utf8.contains(UInt8(ascii: ".")) {
                guard let found = try grant(ofAccessToken: token), found.record.clientId == client.clientId else { return }
                _ = try core.database { () throws in try store.revokeGrant(id: found.record.grantId, clientId: client.clientId) }
            } else {
                _ = try core.database { () throws in try store.revokeRefreshToken(digest: SHA256.digest(token), clientId: client.clientId) }
            }
        } catch { throw OAuthError(error) }
    }

    /// RFC 7662 introspection by `client`: its own access tokens while good, else `{"active": false}`.
    public func introspect(_ token: String, client: OAuthClient) throws(OAuthError) -> JSONObject {
        let found: (claims: JSONObject, record: OAuthStore.GrantRecord)?
        do { found = try grant(ofAccessToken: token) } catch { throw OAuthError(error) }
        guard let found, found.record.clientId == client.clientId else { return ["active": false] }
        var answer: JSONObject = ["active": true]
        for (name, value) in found.claims { answer[name] = value }
        answer["token_type"] = "Bearer"
        return answer
    }

    // MARK: The user's apps

    /// An app the user has let in.
    public struct AuthorizedApp: Sendable, Hashable {
        public var clientId: String
        public var name: String
        public var scopes: [String]
        public var grantedAt: Date
    }

    /// The apps the user of `caller` has let in, newest first (209 without a session).
    public func authorizedApps(_ caller: SessionGrant) throws(AuthError) -> [AuthorizedApp] {
        let rows = try core.database { () throws in try store.authorizedApps(userId: caller.user.objectId) }
        var apps: [AuthorizedApp] = []
        for row in rows {
            let name = try client(id: row.clientId)?.name ?? row.clientId
            let scopes = OAuthPolicy.knownScopes.filter(row.scopes.contains)
            apps.append(AuthorizedApp(clientId: row.clientId, name: name, scopes: scopes, grantedAt: row.grantedAt))
        }
        return apps
    }

    /// Removes an app the user let in: forgets the consent and ends every grant (refresh tokens,
    /// and the access tokens userinfo and introspection would accept). 101 when the user has none
    /// of that client.
    public func revokeAuthorizedApp(_ caller: SessionGrant, clientId: String) throws(AuthError) {
        let removed = try core.database { () throws in try store.revokeApp(userId: caller.user.objectId, clientId: clientId) }
        guard removed else { throw .objectNotFound }
    }
}
