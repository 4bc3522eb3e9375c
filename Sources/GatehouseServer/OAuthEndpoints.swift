import Auth
import Foundation
import HTTPServer
import JSON

/// The HTTP side of the OAuth 2.1 / OpenID Connect provider (docs/oauth.md): the authorization
/// page and its form, the token endpoint, userinfo, revocation, a client's introspection and
/// registration. Every answer from the token, revocation and registration endpoints carries
/// `Cache-Control: no-store`; their errors are RFC 6749 §5.2's JSON. Every method blocks on the
/// database.
final class OAuthEndpoints: Sendable {
    static let authorizePath = "/oauth/authorize"
    static let tokenPath = "/oauth/token"
    static let userinfoPath = "/oauth/userinfo"
    static let revocationPath = "/oauth/revoke"
    static let registrationPath = "/oauth/register"

    let auth: AuthService
    let pages: Pages
    /// Who is asking: as for a GraphQL request (the address through trusted proxies).
    let authRequest: @Sendable (HTTPRequest) -> AuthRequest

    init(auth: AuthService, pages: Pages, authRequest: @escaping @Sendable (HTTPRequest) -> AuthRequest) {
        self.auth = auth
        self.pages = pages
        self.authRequest = authRequest
    }

    // MARK: Authorization

    /// `GET /oauth/authorize`: the sign-in and consent page for a good request; a bad client or
    /// redirect URI as a 400 page; any other mistake sent back to the redirect URI (shown on the
    /// page for a registered client). The page names a registered client as unverified, with the
    /// host its answer goes to, and the resource asked for.
    func authorizePage(_ request: HTTPRequest) -> HTTPResponse {
        let parameters = request.queryItems.map { ($0.name, $0.value) }
        let authorization: OAuthService.AuthorizationRequest
        do throws(OAuthService.AuthorizationFailure) { authorization = try auth.oauth.authorizationRequest(parameters) } catch {
            return failure(error, request)
        }
        let client = authorization.client
        let details: JSONObject = [
            "clientId": .string(client.clientId), "clientName": .string(client.name), "firstParty": .bool(client.firstParty),
            "scopes": .array(authorization.scopes.map(JSON.string)),
            "prompt": .array(authorization.prompts.map(\.rawValue).sorted().map(JSON.string)),
            "registered": .bool(client.registered),
            "redirectHost": .string(OAuthClient.writtenOrigin(authorization.redirectURI)?.host ?? ""),
            "resource": authorization.resource.map(JSON.string) ?? .null,
            "params": .array(parameters.map { .array([.string($0.0), .string($0.1)]) }),
        ]
        return pages.authorize(
            details, formTarget: Self.origin(of: authorization.redirectURI), acceptLanguage: request.headers["Accept-Language"])
    }

    /// `POST /oauth/authorize`: the page's form (the request's parameters, `session_token` and
    /// `decision`), answered with a 303 to the redirect URI: a code, or the error. For a
    /// registered client, an error before the user has signed in (no decision, no usable
    /// session) is shown on the page instead: RFC 9700 §4.11.2.
    func authorizeForm(_ request: HTTPRequest) -> HTTPResponse {
        var parameters: [(name: String, value: String)] = []
        var sessionToken: String? = nil
        var decision: String? = nil
        for item in request.formItems {
            switch item.name {
            case "session_token": sessionToken = item.value
            case "decision": decision = item.value
            default: parameters.append((item.name, item.value))
            }
        }
        let authorization: OAuthService.AuthorizationRequest
        do throws(OAuthService.AuthorizationFailure) { authorization = try auth.oauth.authorizationRequest(parameters) } catch {
            return failure(error, request)
        }
        let back = { (items: [(String, String?)]) in
            Self.seeOther(OAuthService.redirect(
                authorization.redirectURI, items + [("state", authorization.state), ("iss", self.auth.oauth.issuer)]))
        }
        let registered = authorization.client.registered
        guard decision == "approve" || decision == "deny" else {
            let text = "decision must be approve or deny."
            if registered { return pages.authorizeError(text, acceptLanguage: request.headers["Accept-Language"]) }
            return back([("error", "invalid_request"), ("error_description", text)])
        }
        do throws(OAuthError) {
            let code = try auth.oauth.decide(
                authorization, sessionToken: sessionToken, approve: decision == "approve", authRequest: authRequest(request))
            return back([("code", code)])
        } catch {
            if registered && error.code == .loginRequired {
                return pages.authorizeError(error.description, acceptLanguage: request.headers["Accept-Language"])
            }
            return back([("error", error.code.rawValue), ("error_description", error.description)])
        }
    }

    private func failure(_ failure: OAuthService.AuthorizationFailure, _ request: HTTPRequest) -> HTTPResponse {
        switch failure {
        case .page(let message):
            return pages.authorizeError(message, acceptLanguage: request.headers["Accept-Language"])
        case .redirect(let error, let redirectURI, let state):
            return Self.seeOther(OAuthService.redirect(redirectURI, [
                ("error", error.code.rawValue), ("error_description", error.description), ("state", state), ("iss", auth.oauth.issuer),
            ]))
        }
    }

    private static func seeOther(_ location: String) -> HTTPResponse {
        HTTPResponse(status: 303, headers: ["Location": location, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"], body: [])
    }

    /// `scheme://host[:port]` of `uri` as written, for the page's `form-action` (browsers apply it
    /// to the redirect that follows the form's post); `'none'` when its host is not a plain name
    /// or IP literal, which registration refuses: nothing decoded reaches the header.
    static func origin(of uri: String) -> String {
        OAuthClient.writtenOrigin(uri)?.origin ?? "'none'"
    }

    // MARK: Token, revocation, introspection

    /// `POST /oauth/token`: the authorization code and refresh token grants.
    func token(_ request: HTTPRequest) -> HTTPResponse {
        answer { () throws(OAuthError) -> HTTPResponse in
            let form = try Self.form(request)
            let client = try client(request, form)
            switch form["grant_type"] {
            case nil:
                throw OAuthError(.invalidRequest, "grant_type is required.")
            case "authorization_code":
                guard let code = form["code"], !code.isEmpty else { throw OAuthError(.invalidRequest, "code is required.") }
                guard let redirectURI = form["redirect_uri"], !redirectURI.isEmpty else {
                    throw OAuthError(.invalidRequest, "redirect_uri is required.")
                }
                guard let verifier = form["code_verifier"], !verifier.isEmpty else {
                    throw OAuthError(.invalidRequest, "code_verifier is required (PKCE).")
                }
                return Self.json(try auth.oauth.exchangeCode(code, redirectURI: redirectURI, verifier: verifier, client: client).json)
            case "refresh_token":
                guard let token = form["refresh_token"], !token.isEmpty else {
                    throw OAuthError(.invalidRequest, "refresh_token is required.")
                }
                return Self.json(try auth.oauth.refresh(token, scope: form["scope"], client: client).json)
            case "client_credentials":
                throw OAuthError(.unauthorizedClient, "No client may use the client_credentials grant here.")
            case let other?:
                throw OAuthError(.unsupportedGrantType, "grant_type \"\(other.utf8Prefix(100))\" is not supported: use authorization_code or refresh_token.")
            }
        }
    }

    /// `POST /oauth/revoke` (RFC 7009): 200 whether or not the token was known.
    func revoke(_ request: HTTPRequest) -> HTTPResponse {
        answer { () throws(OAuthError) -> HTTPResponse in
            let form = try Self.form(request)
            let client = try client(request, form)
            guard let token = form["token"], !token.isEmpty else { throw OAuthError(.invalidRequest, "token is required.") }
            try auth.oauth.revoke(token, client: client)
            return Self.json([:])
        }
    }

    /// `POST /oauth/introspect` by a confidential client with its own credentials (RFC 7662).
    func introspect(_ request: HTTPRequest) -> HTTPResponse {
        answer { () throws(OAuthError) -> HTTPResponse in
            let form = try Self.form(request)
            let client = try client(request, form)
            guard client.isConfidential else { throw OAuthError(.invalidClient, "Introspection is for confidential clients.") }
            guard let token = form["token"], !token.isEmpty else { throw OAuthError(.invalidRequest, "token is required.") }
            return Self.json(try auth.oauth.introspect(token, client: client))
        }
    }

    /// Whether a request authenticates with `Authorization: Basic` (a client, not the master key).
    static func hasBasicCredentials(_ request: HTTPRequest) -> Bool {
        request.headers["Authorization"]?.lowercased().hasPrefix("basic ") ?? false
    }

    /// The authenticated client of a token-endpoint request (RFC 6749 §2.3.1: `client_secret_basic`
    /// with form-encoded id and secret; a public client names itself with `client_id`).
    private func client(_ request: HTTPRequest, _ form: [String: String]) throws(OAuthError) -> OAuthClient {
        var basic: (id: String, secret: String)? = nil
        if let authorization = request.headers["Authorization"] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "basic",
                let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
                let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":"),
                let id = String(text[..<colon]).removingPercentEncoding,
                let secret = String(text[text.index(after: colon)...]).removingPercentEncoding
            else { throw OAuthError(.invalidClient, "Authorization must be Basic with the client id and secret.") }
            basic = (id, secret)
        }
        if form["client_secret"] != nil {
            throw OAuthError(.invalidClient, "client_secret in the body is not supported: use HTTP Basic (client_secret_basic).")
        }
        return try auth.oauth.authenticateClient(basic: basic, clientId: form["client_id"], request: authRequest(request))
    }

    /// The form body's parameters, each at most once (RFC 6749 §3.2).
    private static func form(_ request: HTTPRequest) throws(OAuthError) -> [String: String] {
        let items = request.formItems
        guard !items.isEmpty else {
            throw OAuthError(.invalidRequest, "A form body (application/x-www-form-urlencoded) is required.")
        }
        var form: [String: String] = [:]
        for item in items {
            guard form.updateValue(item.value, forKey: item.name) == nil else {
                throw OAuthError(.invalidRequest, "The parameter \(item.name.utf8Prefix(100)) is given more than once.")
            }
        }
        return form
    }

    /// `body`'s answer, or its error as RFC 6749 §5.2 JSON (401 `invalid_client` with
    /// `WWW-Authenticate: Basic`), never cached.
    private func answer(_ body: () throws(OAuthError) -> HTTPResponse) -> HTTPResponse {
        var response: HTTPResponse
        do { response = try body() } catch {
            response = Self.json(["error": .string(error.code.rawValue), "error_description": .string(error.description)], status: error.status)
            if error.code == .invalidClient {
                response.headers.replaceOrAdd(name: "WWW-Authenticate", value: #"Basic realm="gatehouse""#)
            }
            if let retry = error.retryAfter { response.headers.replaceOrAdd(name: "Retry-After", value: String(retry)) }
        }
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        response.headers.replaceOrAdd(name: "Pragma", value: "no-cache")
        return response
    }

    // MARK: Userinfo

    /// `GET|POST /oauth/userinfo` (OpenID Connect Core §5.3) with `Authorization: Bearer` (or,
    /// in a form post, `access_token`, RFC 6750 §2.2); errors as RFC 6750 §3 says.
    func userinfo(_ request: HTTPRequest) -> HTTPResponse {
        let token = AccessTokenEndpoints.bearer(request) ?? request.formItems.first { $0.name == "access_token" }?.value
        var response: HTTPResponse
        do throws(OAuthError) {
            response = Self.json(try auth.oauth.userinfo(accessToken: token))
        } catch {
            response = Self.json(["error": .string(error.code.rawValue), "error_description": .string(error.description)], status: error.status)
            if error.status == 401 || error.status == 403 {
                let detail = token == nil ? "" : #", error="\#(error.code.rawValue)""#
                response.headers.replaceOrAdd(name: "WWW-Authenticate", value: #"Bearer realm="gatehouse""# + detail)
            }
        }
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    // MARK: Registration

    /// `POST /oauth/register` (RFC 7591): JSON metadata with `redirect_uris`, `client_name` and
    /// `token_endpoint_auth_method` (`client_secret_basic`, the default, or `none`) → 201 with the
    /// client's id (and secret). `GET` with the master key as `Authorization: Bearer` lists the
    /// registered clients (never their secrets).
    /// `DELETE /oauth/register/{client_id}` with the master key removes one (``deleteClient(_:)``).
    func register(_ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        do throws(OAuthError) {
            if request.method == "GET" {
                response = try registeredClients(request)
            } else {
                response = try registration(request)
            }
        } catch {
            response = Self.json(["error": .string(error.code.rawValue), "error_description": .string(error.description)], status: error.status)
            if let retry = error.retryAfter { response.headers.replaceOrAdd(name: "Retry-After", value: String(retry)) }
        }
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    private func registration(_ request: HTTPRequest) throws(OAuthError) -> HTTPResponse {
        guard let json = try? JSON.parse(bytes: request.body, maxDepth: 8), let metadata = json.objectValue else {
            throw OAuthError(.invalidClientMetadata, "The body must be a JSON object of client metadata.")
        }
        guard let uris = metadata["redirect_uris"]?.arrayValue, !uris.isEmpty, uris.count <= 10 else {
            throw OAuthError(.invalidRedirectURI, "redirect_uris must be an array of 1 to 10 URLs.")
        }
        var redirectURIs: [String] = []
        for uri in uris {
            guard let text = uri.stringValue else { throw OAuthError(.invalidRedirectURI, "Each redirect URI must be a string.") }
            if let problem = OAuthClient.redirectURIProblem(text) { throw OAuthError(.invalidRedirectURI, "A redirect URI \(problem)") }
            if !redirectURIs.contains(text) { redirectURIs.append(text) }
        }
        guard let name = metadata["client_name"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty,
            name.count <= 100
        else { throw OAuthError(.invalidClientMetadata, "client_name is required: the app's name (1 to 100 characters) users see.") }
        let method = metadata["token_endpoint_auth_method"]?.stringValue ?? "client_secret_basic"
        guard method == "none" || method == "client_secret_basic" else {
            throw OAuthError(.invalidClientMetadata, "token_endpoint_auth_method must be none or client_secret_basic.")
        }
        for (field, allowed) in [("grant_types", ["authorization_code", "refresh_token"]), ("response_types", ["code"])] {
            if let listed = metadata[field] {
                guard let values = listed.arrayValue?.compactMap(\.stringValue), values.allSatisfy(allowed.contains) else {
                    throw OAuthError(.invalidClientMetadata, "\(field) may only hold \(allowed.joined(separator: " and ")).")
                }
            }
        }
        let (client, secret) = try auth.oauth.register(
            .init(redirectURIs: redirectURIs, name: name, confidential: method != "none"), request: authRequest(request))
        var answer = Self.clientMetadata(client)
        answer["client_id_issued_at"] = .int(Int(Date().timeIntervalSince1970))
        if let secret {
            answer["client_secret"] = .string(secret)
            answer["client_secret_expires_at"] = 0
        }
        return Self.json(answer, status: 201)
    }

    /// `DELETE /oauth/register/{client_id}` with the master key as `Authorization: Bearer`: removes
    /// a registered client, ending its grants and forgetting users' consents to it. 204; 404 when
    /// no registered client has that id.
    func deleteClient(_ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        let clientId = String(request.path.dropFirst(Self.registrationPath.count + 1))
        if !auth.core.isMasterKey(AccessTokenEndpoints.bearer(request)) {
            response = Self.json(
                ["error": "invalid_client", "error_description": "Authorization: Bearer <master key> is required to remove a client."],
                status: 401)
        } else {
            do throws(AuthError) {
                if try auth.oauth.deleteRegisteredClient(id: clientId) {
                    response = HTTPResponse(status: 204, headers: [:], body: [])
                } else {
                    response = Self.json(
                        ["error": "invalid_request", "error_description": "No registered client has this id."], status: 404)
                }
            } catch {
                response = Self.json(["error": "server_error", "error_description": "Removing the client failed."], status: 503)
            }
        }
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }

    private func registeredClients(_ request: HTTPRequest) throws(OAuthError) -> HTTPResponse {
        guard auth.core.isMasterKey(AccessTokenEndpoints.bearer(request)) else {
            throw OAuthError(.invalidClient, "Authorization: Bearer <master key> is required to list clients.")
        }
        let clients: [(client: OAuthClient, createdAt: Date)]
        do { clients = try auth.oauth.registeredClients() } catch { throw OAuthError(.serverError, "Listing the clients failed.") }
        return Self.json(["clients": .array(clients.map { entry in
            var metadata = Self.clientMetadata(entry.client)
            metadata["client_id_issued_at"] = .int(Int(entry.createdAt.timeIntervalSince1970))
            return .object(metadata)
        })])
    }

    private static func clientMetadata(_ client: OAuthClient) -> JSONObject {
        [
            "client_id": .string(client.clientId), "client_name": .string(client.name),
            "redirect_uris": .array(client.redirectURIs.map(JSON.string)),
            "token_endpoint_auth_method": .string(client.isConfidential ? "client_secret_basic" : "none"),
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "scope": .string(client.scopes.joined(separator: " ")),
        ]
    }

    // MARK: Helpers

    static func json(_ object: JSONObject, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: JSON.object(object).serialized())
    }
}
