import Auth
import Foundation
import HTTPServer
import JSON
import Threading

/// The HTTP side of access tokens (docs/tokens.md): the key set and the OpenID discovery document (every
/// endpoint of the OAuth provider, docs/oauth.md),
/// both answered from memory and cacheable for the key set's max-age, and RFC 7662 introspection
/// for the master key.
final class AccessTokenEndpoints: Sendable {
    /// `GET`: the JSON Web Key Set.
    static let keySetPath = "/.well-known/jwks.json"
    /// `GET`: the discovery document.
    static let discoveryPath = "/.well-known/openid-configuration"
    /// `POST`: introspection.
    static let introspectionPath = "/oauth/introspect"

    let auth: AuthService
    /// The responses made for the last key set seen: rebuilt only when the keys change.
    private let documents = Lock<(published: SigningKeys.Published, keySet: HTTPResponse, discovery: HTTPResponse)?>(nil)

    init(auth: AuthService) {
        self.auth = auth
    }

    /// `Cache-Control` of both documents: verifiers may keep them for the key set's max-age,
    /// which the key schedule allows for.
    static let cacheControl = "public, max-age=\(AccessTokenPolicy.keySetMaxAge)"

    /// The key set's response.
    var keySet: HTTPResponse { responses().keySet }

    /// The discovery document's response.
    var discovery: HTTPResponse { responses().discovery }

    private func responses() -> (keySet: HTTPResponse, discovery: HTTPResponse) {
        let published = auth.tokens.keys.published
        if let cached = documents.withLock({ $0 }), cached.published === published { return (cached.keySet, cached.discovery) }
        let issuer = auth.tokens.issuer
        var document: JSONObject = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + OAuthEndpoints.authorizePath),
            "token_endpoint": .string(issuer + OAuthEndpoints.tokenPath),
            "userinfo_endpoint": .string(issuer + OAuthEndpoints.userinfoPath),
            "revocation_endpoint": .string(issuer + OAuthEndpoints.revocationPath),
            "jwks_uri": .string(issuer + Self.keySetPath),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": .array(OAuthPolicy.knownScopes.map(JSON.string)),
            "claims_supported": [
                "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "amr", "sid", "azp", "email", "email_verified",
                "preferred_username", "name", "picture",
            ],
            "prompt_values_supported": ["none", "login", "consent"],
            "id_token_signing_alg_values_supported": .array(published.algorithms.map { .string($0.rawValue) }),
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
            "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
            "subject_types_supported": ["public"],
            "introspection_endpoint": .string(issuer + Self.introspectionPath),
            // RFC 8414 §2: an access token type may name the method; the master key is sent as a bearer token.
            "introspection_endpoint_auth_methods_supported": ["Bearer", "client_secret_basic"],
            "authorization_response_iss_parameter_supported": true,
            "request_parameter_supported": false,
            "claims_parameter_supported": false,
        ]
        if auth.oauth.registrationEnabled {
            document["registration_endpoint"] = .string(issuer + OAuthEndpoints.registrationPath)
        }
        let keySet = Self.cacheable(published.keySet)
        let discovery = Self.cacheable(JSON.object(document).serialized())
        documents.withLock { $0 = (published, keySet, discovery) }
        return (keySet, discovery)
    }

    private static func cacheable(_ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json", "Cache-Control": cacheControl], body: body)
    }

    /// `POST /oauth/introspect` (RFC 7662): `token` from a form body, the master key as
    /// `Authorization: Bearer`. 401 without it, 400 without a token; the answer is never cached.
    /// Blocks on the database.
    func introspect(_ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        if !auth.core.isMasterKey(Self.bearer(request)) {
            response = Self.json(["error": "invalid_client", "error_description": "Authorization: Bearer <master key> is required."], status: 401)
            response.headers.replaceOrAdd(name: "WWW-Authenticate", value: #"Bearer realm="gatehouse""#)
        } else if let token = request.formItems.first(where: { $0.name == "token" })?.value, !token.isEmpty {
            do throws(AuthError) {
                response = Self.json(try auth.tokens.introspect(token), status: 200)
            } catch {
                // The database funnel has logged the detail.
                let unavailable = error == .databaseUnavailable
                response = Self.json(["error": unavailable ? "temporarily_unavailable" : "server_error"], status: unavailable ? 503 : 500)
                if let retry = error.retryAfter { response.headers.replaceOrAdd(name: "Retry-After", value: String(retry)) }
            }
        } else {
            response = Self.json(
                ["error": "invalid_request", "error_description": "A form body (application/x-www-form-urlencoded) with token is required."],
                status: 400)
        }
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    /// The credentials of `Authorization: Bearer <credentials>` (the scheme in any case).
    static func bearer(_ request: HTTPRequest) -> String? {
        guard let authorization = request.headers["Authorization"] else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    private static func json(_ object: JSONObject, status: Int) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: JSON.object(object).serialized())
    }
}
