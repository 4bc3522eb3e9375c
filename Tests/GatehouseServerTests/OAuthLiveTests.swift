import Foundation
import GatehouseServer
import JSON
import ServerTestSupport
import Sodium
import Signatures
import TestSupport
import Testing

/// The OAuth 2.1 / OpenID Connect provider over HTTP (docs/oauth.md): Authlib as a stock relying
/// party end to end, and every error of RFC 6749 §4.1.2.1 and §5.2 with its status and where it goes.
@Suite(.timeLimit(.minutes(3)))
struct OAuthLiveTests {
    static let redirectURI = "http://127.0.0.1:9/callback"
    static let secret = "shop-secret-0123456789abcdef"
    static let clients = """
        [{"client_id": "cli", "redirect_uris": ["\(redirectURI)"], "name": "The CLI"},
         {"client_id": "shop", "client_secret": "\(secret)", "redirect_uris": ["\(redirectURI)"], "name": "Shop",
          "scopes": ["openid", "email", "offline_access"]}]
        """

    static func server(_ configure: @escaping (inout Settings) -> Void = { _ in }) throws -> LiveServer {
        try LiveServer {
            $0.oauthClients = clients
            $0.oauthDynamicRegistration = true
            configure(&$0)
        }
    }

    static let signUp = """
        mutation S($username: String!, $password: String!, $email: String) {
          signUp(input: {fields: {username: $username, password: $password, email: $email}}) { viewer { sessionToken user { objectId } } }
        }
        """
    static let logIn = "mutation L($u: String!, $p: String!) { logIn(input: {username: $u, password: $p}) { viewer { sessionToken } } }"

    /// A new user's first session token and objectId.
    static func user(_ live: LiveServer, _ name: String) throws -> (token: String, id: String) {
        let response = try live.graphQL(
            signUp, variables: ["username": .string(name), "password": "larch-ridge-11", "email": .string("\(name)@example.com")])
        let viewer = try #require(try response.json().at("data", "signUp", "viewer"), "\(response.text)")
        return (try #require(viewer["sessionToken"]?.stringValue), try #require(viewer.at("user", "objectId")?.stringValue))
    }

    /// Another session of `name`.
    static func session(_ live: LiveServer, _ name: String) throws -> String {
        let response = try live.graphQL(logIn, variables: ["u": .string(name), "p": "larch-ridge-11"])
        return try #require(try response.json().at("data", "logIn", "viewer", "sessionToken")?.stringValue, "\(response.text)")
    }

    static func viewerCode(_ live: LiveServer, _ token: String) throws -> Int? {
        let response = try live.graphQL("{ viewer { sessionToken } }", headers: [("X-Parse-Session-Token", token)])
        return try response.json()["errors"]?[0]?.at("extensions", "code")?.intValue
    }

    // MARK: A stock relying party

    /// Authlib, unchanged: discovery, registration, the code flow with PKCE, the ID token checked
    /// against the served keys, userinfo, two refreshes with rotation; the first refresh token
    /// again ends the chain and its session (a `session.ended`, revoked, for webhooks); revocation
    /// ends a grant and leaves its session be.
    @Test func authlibSignsInRefreshesAndRevokes() throws {
        let receiver = try WebhookReceiver(secret: WebhookTests.secret)
        let live = try Self.server { $0.webhooks = WebhookTests.webhooks(receiver, events: #"["session.created", "session.ended"]"#) }
        let (first, userId) = try Self.user(live, "alice")
        let second = try Self.session(live, "alice")
        let result = try StockRelyingParty.run(issuer: live.server.publicURL, sessions: [first, second])
        #expect(result["failed"] == nil, "\(result)")
        #expect(result["discovery"] == true)
        let idToken = try #require(result["id_token"]?.objectValue, "\(result)")
        #expect(idToken["sub"]?.stringValue == userId)
        #expect(idToken["aud"]?.stringValue == result["client_id"]?.stringValue)
        #expect(idToken["email"]?.stringValue == "alice@example.com")
        #expect(idToken["amr"] == ["pwd"])
        #expect(idToken["auth_time"]?.intValue != nil && idToken["sid"]?.stringValue != nil)
        #expect(result["scope"]?.stringValue == "openid profile email offline_access")
        #expect(result.at("userinfo", "sub")?.stringValue == userId)
        #expect(result.at("userinfo", "email")?.stringValue == "alice@example.com")
        #expect(result.at("userinfo", "preferred_username")?.stringValue == "alice")
        #expect(result["rotated"] == true)
        #expect(result.at("refreshed_userinfo", "sub")?.stringValue == userId)
        #expect(result["reuse_error"]?.stringValue == "invalid_grant")
        #expect(result["latest_after_reuse_error"]?.stringValue == "invalid_grant")
        #expect(result["userinfo_after_reuse_status"]?.intValue == 401)
        #expect(try Self.viewerCode(live, first) == 209, "reuse ends the session the grant came from")
        #expect(result["revocation_status"]?.intValue == 200)
        #expect(result["refresh_after_revocation_error"]?.stringValue == "invalid_grant")
        #expect(result["userinfo_after_revocation_status"]?.intValue == 401)
        #expect(try Self.viewerCode(live, second) == nil, "revoking a grant leaves its session")
        // The access token is the tokens issue's JWT, for the client (no resource asked).
        let access = try #require(result["access_token"]?.stringValue)
        let verdicts = try IndependentVerifiers.verify(
            [access], keySet: .url(live.server.publicURL + "/.well-known/jwks.json"), issuer: live.server.publicURL,
            audience: try #require(result["client_id"]?.stringValue))
        #expect(verdicts[0].pyjwt.accepted, "\(verdicts[0])")
        #expect(verdicts[0].pyjwt.claims["client_id"] == result["client_id"])
        #expect(verdicts[0].pyjwt.claims["scope"] == "openid profile email offline_access")
        // The session the reused token's grant came from (the sign-up's, the first) ended as revoked.
        #expect(eventually(timeout: .seconds(120)) { receiver.requests().contains { $0.type == "session.ended" } })
        let requests = receiver.requests()
        #expect(requests.allSatisfy { $0.verified })
        let firstSession = requests.first { $0.type == "session.created" }?.data["sessionId"]
        let ended = requests.filter { $0.type == "session.ended" }.map(\.data)
        #expect(ended == [["userId": .string(userId), "sessionId": try #require(firstSession), "reason": "revoked"]], "\(ended)")
    }

    // MARK: The flow by hand

    /// A PKCE pair: the verifier and its S256 challenge.
    static func pkce() -> (verifier: String, challenge: String) {
        let verifier = Base64URL.encode(SecureRandom.bytes(32))
        return (verifier, Base64URL.encode(SHA256.digest(verifier)))
    }

    static func query(_ items: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return items.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
    }

    /// The parameters of an authorization request by `client`, with `change` applied.
    static func authorization(
        client: String = "cli", challenge: String, scope: String = "openid email offline_access",
        _ change: (inout [(String, String)]) -> Void = { _ in }
    ) -> [(String, String)] {
        var items = [
            ("response_type", "code"), ("client_id", client), ("redirect_uri", redirectURI), ("scope", scope),
            ("state", "st-1"), ("code_challenge", challenge), ("code_challenge_method", "S256"), ("nonce", "n-1"),
        ]
        change(&items)
        return items
    }

    /// The query items of a redirect's `Location`, which must go to the client's redirect URI.
    static func redirected(_ response: RawResponse) throws -> [String: String] {
        #expect(response.status == 303, "\(response.status) \(response.text)")
        let location = try #require(response.header("Location"))
        #expect(location.hasPrefix(redirectURI + "?"), "\(location)")
        let items = URLComponents(string: location)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    static func post(_ live: LiveServer, _ path: String, _ items: [(String, String)], headers: [(String, String)] = []) throws -> RawResponse {
        try live.connect().request(
            "POST", path, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers, body: Array(query(items).utf8))
    }

    /// A code for `session`, approved on the form the page posts.
    static func code(
        _ live: LiveServer, session: String, client: String = "cli", challenge: String, scope: String = "openid email offline_access"
    ) throws -> String {
        let items = authorization(client: client, challenge: challenge, scope: scope) + [("session_token", session), ("decision", "approve")]
        let answer = try redirected(try post(live, "/oauth/authorize", items))
        #expect(answer["state"] == "st-1" && answer["iss"] == live.server.publicURL)
        return try #require(answer["code"], "\(answer)")
    }

    static let shopBasic = ("Authorization", "Basic " + Data("shop:\(secret)".utf8).base64EncodedString())

    static func exchange(
        _ live: LiveServer, code: String, verifier: String, client: String = "cli", headers: [(String, String)] = []
    ) throws -> RawResponse {
        var items = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)]
        if headers.isEmpty { items.append(("client_id", client)) }
        return try post(live, "/oauth/token", items, headers: headers)
    }

    static func refresh(_ live: LiveServer, _ token: String) throws -> RawResponse {
        try post(live, "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", "cli")])
    }

    /// The RFC 6749 §5.2 error of a token-endpoint answer, checked for `Cache-Control: no-store`.
    static func tokenError(_ response: RawResponse) throws -> (status: Int, error: String?) {
        #expect(response.header("Cache-Control") == "no-store")
        return (response.status, try JSONParser().parse(response.body)["error"]?.stringValue)
    }

    // MARK: RFC 6749 §4.1.2.1

    /// An unknown client or a redirect URI that is not registered exactly: a 400 page, never a redirect.
    @Test func untrustedRedirectsAreNeverFollowed() throws {
        let live = try Self.server()
        let (_, challenge) = Self.pkce()
        let cases: [[(String, String)]] = [
            Self.authorization(client: "nobody", challenge: challenge),
            Self.authorization(challenge: challenge) { $0[2].1 = "http://127.0.0.1:9/callback/other" },
            Self.authorization(challenge: challenge) { $0[2].1 = "http://127.0.0.1:9/Callback" },
            Self.authorization(challenge: challenge) { $0.remove(at: 2) },
            Self.authorization(challenge: challenge) { $0.append(("redirect_uri", "https://evil.example/")) },
        ]
        for items in cases {
            let response = try live.get("/oauth/authorize?" + Self.query(items))
            #expect(response.status == 400, "\(items)")
            #expect(response.header("Location") == nil)
            #expect(response.header("Content-Type")?.hasPrefix("text/html") == true)
            let posted = try Self.post(live, "/oauth/authorize", items + [("decision", "approve")])
            #expect(posted.status == 400 && posted.header("Location") == nil, "\(items)")
        }
    }

    /// Every other mistake goes back to the redirect URI with its error, the state and `iss`.
    @Test(arguments: [
        ("missing PKCE", "invalid_request"), ("plain PKCE", "invalid_request"), ("unknown scope", "invalid_scope"),
        ("scope the client may not have", "invalid_scope"), ("implicit", "unsupported_response_type"),
        ("no response type", "invalid_request"), ("bad prompt", "invalid_request"), ("unknown resource", "invalid_target"),
    ])
    func authorizationErrorsAreRedirected(_ mistake: String, _ error: String) throws {
        let live = try Self.server()
        let (_, challenge) = Self.pkce()
        let items = Self.authorization(client: mistake == "scope the client may not have" ? "shop" : "cli", challenge: challenge) { items in
            switch mistake {
            case "missing PKCE": items.removeAll { $0.0.hasPrefix("code_challenge") }
            case "plain PKCE": items[6].1 = "plain"
            case "unknown scope": items[3].1 = "openid admin"
            case "scope the client may not have": items[3].1 = "openid profile"
            case "implicit": items[0].1 = "token"
            case "no response type": items.remove(at: 0)
            case "bad prompt": items.append(("prompt", "select_account"))
            default: items.append(("resource", "https://elsewhere.example/api"))
            }
        }
        let answer = try Self.redirected(try live.get("/oauth/authorize?" + Self.query(items)))
        #expect(answer["error"] == error, "\(answer)")
        #expect(answer["state"] == "st-1" && answer["iss"] == live.server.publicURL)
        #expect(answer["error_description"]?.isEmpty == false)
    }

    /// Denying on the form, or a form without a session: access_denied and login_required.
    @Test func denialAndMissingSessionAreRedirected() throws {
        let live = try Self.server()
        let (session, _) = try Self.user(live, "dan")
        let (_, challenge) = Self.pkce()
        let items = Self.authorization(challenge: challenge)
        let denied = try Self.redirected(try Self.post(live, "/oauth/authorize", items + [("session_token", session), ("decision", "deny")]))
        #expect(denied["error"] == "access_denied" && denied["code"] == nil && denied["state"] == "st-1")
        let unsigned = try Self.redirected(try Self.post(live, "/oauth/authorize", items + [("decision", "approve")]))
        #expect(unsigned["error"] == "login_required")
        let none = try Self.redirected(try Self.post(
            live, "/oauth/authorize", Self.authorization(client: "shop", challenge: challenge) { $0.append(("prompt", "none")) }
                + [("session_token", session), ("decision", "approve")]))
        #expect(none["error"] == "consent_required", "prompt=none with a consent still to give")
    }

    // MARK: RFC 6749 §5.2

    /// Wrong verifier, code used twice (what the first use issued is revoked), a confidential
    /// client without or with a wrong secret, unsupported and unauthorized grants, missing parameters.
    @Test func tokenEndpointErrors() throws {
        let live = try Self.server()
        let (session, _) = try Self.user(live, "erin")
        let (verifier, challenge) = Self.pkce()

        let code = try Self.code(live, session: session, challenge: challenge)
        #expect(try Self.tokenError(try Self.exchange(live, code: code, verifier: Self.pkce().verifier)) == (400, "invalid_grant"))
        let good = try Self.exchange(live, code: code, verifier: verifier)
        #expect(good.status == 200 && good.header("Cache-Control") == "no-store", "\(good.text)")
        let refreshToken = try #require(try JSONParser().parse(good.body)["refresh_token"]?.stringValue)
        #expect(try Self.tokenError(try Self.exchange(live, code: code, verifier: verifier)) == (400, "invalid_grant"))
        #expect(try Self.tokenError(try Self.refresh(live, refreshToken)) == (400, "invalid_grant"), "the code's second use revoked its grant")
        #expect(try Self.viewerCode(live, session) == nil, "a code used twice ends its grant, not the session")

        let shopCode = try Self.code(live, session: session, client: "shop", challenge: challenge, scope: "openid email")
        let withoutSecret = try Self.exchange(live, code: shopCode, verifier: verifier, client: "shop")
        #expect(try Self.tokenError(withoutSecret) == (401, "invalid_client"))
        #expect(withoutSecret.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
        let wrongSecret = try Self.exchange(
            live, code: shopCode, verifier: verifier, headers: [("Authorization", "Basic " + Data("shop:not-the-secret".utf8).base64EncodedString())])
        #expect(try Self.tokenError(wrongSecret) == (401, "invalid_client"))
        let shop = try Self.exchange(live, code: shopCode, verifier: verifier, headers: [Self.shopBasic])
        #expect(shop.status == 200, "\(shop.text)")
        #expect(try JSONParser().parse(shop.body)["refresh_token"] == nil, "no refresh token without offline_access")

        for (items, expected) in [
            ([("grant_type", "password"), ("username", "erin"), ("password", "larch-ridge-11"), ("client_id", "cli")], (400, "unsupported_grant_type")),
            ([("grant_type", "client_credentials"), ("client_id", "cli")], (400, "unauthorized_client")),
            ([("client_id", "cli")], (400, "invalid_request")),
            ([("grant_type", "authorization_code"), ("client_id", "cli"), ("code", "x"), ("redirect_uri", Self.redirectURI)], (400, "invalid_request")),
            ([("grant_type", "refresh_token"), ("client_id", "nobody"), ("refresh_token", "x")], (401, "invalid_client")),
            ([("grant_type", "refresh_token"), ("client_id", "cli"), ("refresh_token", "x"), ("refresh_token", "y")], (400, "invalid_request")),
        ] as [([(String, String)], (Int, String))] {
            #expect(try Self.tokenError(try Self.post(live, "/oauth/token", items)) == (expected.0, Optional(expected.1)), "\(items)")
        }
    }

    /// A refresh grant with an unknown scope is refused; a code's refresh tokens end with a log-out
    /// of the session it came from, and with a password change even of the session kept.
    @Test func grantsEndWithTheirSession() throws {
        let live = try Self.server()
        let (session, userId) = try Self.user(live, "fay")
        let (verifier, challenge) = Self.pkce()
        func refreshToken(_ session: String) throws -> String {
            let response = try Self.exchange(live, code: try Self.code(live, session: session, challenge: challenge), verifier: verifier)
            return try #require(try JSONParser().parse(response.body)["refresh_token"]?.stringValue, "\(response.text)")
        }
        let token = try refreshToken(session)
        let narrowed = try Self.post(live, "/oauth/token", [
            ("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", "cli"), ("scope", "openid profile"),
        ])
        #expect(try Self.tokenError(narrowed) == (400, "invalid_scope"))

        let other = try Self.session(live, "fay")
        let fromOther = try refreshToken(other)
        _ = try live.graphQL("mutation { logOut(input: {}) { ok } }", headers: [("X-Parse-Session-Token", other)])
        #expect(try Self.tokenError(try Self.refresh(live, fromOther)) == (400, "invalid_grant"), "log-out ends the grant")

        let kept = try refreshToken(session)
        let change = try live.graphQL(
            "mutation { updateUser(input: {id: \"\(userId)\", fields: {password: \"birch-ridge-22\"}}) { user { objectId } } }",
            headers: [("X-Parse-Session-Token", session)])
        #expect(change.text.contains(userId) && !change.text.contains("errors"), "\(change.text)")
        #expect(try Self.viewerCode(live, session) == nil, "the password change keeps its session")
        #expect(try Self.tokenError(try Self.refresh(live, kept)) == (400, "invalid_grant"), "a password change ends every grant")
    }

    /// A mistake in `GATEHOUSE_OAUTH_CLIENTS`, inline or in a file, stops start-up naming the entry and field.
    @Test func aBadClientStopsStartUp() throws {
        let bad = #"[{"client_id": "a", "redirect_uris": ["https://a.example/cb"], "name": "A"}, {"client_id": "b", "redirect_uris": ["ftp://b"], "name": "B"}]"#
        let directory = TemporaryDirectory.make(prefix: "oauthclients")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try bad.write(toFile: directory + "/clients.json", atomically: true, encoding: .utf8)
        for value in [bad, "@" + directory + "/clients.json"] {
            do {
                _ = try InProcessServer { $0.oauthClients = value }
                Issue.record("started with \(value)")
            } catch {
                #expect("\(error)".contains("GATEHOUSE_OAUTH_CLIENTS[1].redirect_uris[0] must use https"), "\(error)")
            }
        }
    }

    // MARK: Registered clients

    static let masterKey = "oauth-master-key-0123456789"

    /// A public client registered over HTTP with `redirectURI`; its id.
    static func registered(_ live: LiveServer, name: String = "Cool Notes") throws -> String {
        let response = try live.connect().request(
            "POST", "/oauth/register", headers: [("Content-Type", "application/json")],
            body: Array(#"{"redirect_uris": ["\#(redirectURI)"], "client_name": "\#(name)", "token_endpoint_auth_method": "none"}"#.utf8))
        #expect(response.status == 201, "\(response.text)")
        return try #require(try JSONParser().parse(response.body)["client_id"]?.stringValue)
    }

    /// RFC 9700 §4.11.2: a registered client's mistakes, and a form posted without a usable
    /// session, are shown on the page and never redirected to its URI; once the user has signed
    /// in, the decision goes back to the app.
    @Test func aRegisteredClientIsNotRedirectedToBeforeSignIn() throws {
        let live = try Self.server()
        let clientId = try Self.registered(live)
        let (session, _) = try Self.user(live, "gus")
        let (_, challenge) = Self.pkce()
        let badScope = Self.authorization(client: clientId, challenge: challenge) { $0[3].1 = "openid admin" }
        let good = Self.authorization(client: clientId, challenge: challenge)
        for response in [
            try live.get("/oauth/authorize?" + Self.query(badScope)),
            try live.get("/oauth/authorize?" + Self.query(Self.authorization(client: clientId, challenge: challenge) { $0.remove(at: 0) })),
            try Self.post(live, "/oauth/authorize", badScope + [("session_token", session), ("decision", "approve")]),
            try Self.post(live, "/oauth/authorize", good + [("decision", "approve")]),
            try Self.post(live, "/oauth/authorize", good + [("session_token", "r:not-a-session"), ("decision", "deny")]),
            try Self.post(live, "/oauth/authorize", good + [("session_token", session)]),
        ] {
            #expect(response.status == 400 && response.header("Location") == nil, "\(response.status) \(response.text)")
            #expect(response.header("Content-Type")?.hasPrefix("text/html") == true)
        }
        let denied = try Self.redirected(try Self.post(live, "/oauth/authorize", good + [("session_token", session), ("decision", "deny")]))
        #expect(denied["error"] == "access_denied" && denied["state"] == "st-1")
    }

    /// The master key removes a registered client: its refresh tokens stop working, it is no longer
    /// listed or known to the authorization page; without the key, 401; an unknown id, 404. The
    /// page names a registered client as unverified, with its redirect host.
    @Test func theMasterKeyRemovesARegisteredClient() throws {
        let live = try Self.server { $0.masterKey = Self.masterKey }
        let clientId = try Self.registered(live)
        let (session, _) = try Self.user(live, "hal")
        let (verifier, challenge) = Self.pkce()
        let page = try live.get("/oauth/authorize?" + Self.query(Self.authorization(client: clientId, challenge: challenge)))
        #expect(page.status == 200)
        #expect(page.text.contains(#""registered":true"#) && page.text.contains(#""redirectHost":"127.0.0.1""#), "\(page.text)")
        let configured = try live.get("/oauth/authorize?" + Self.query(Self.authorization(challenge: challenge)))
        #expect(configured.text.contains(#""registered":false"#))

        let code = try Self.code(live, session: session, client: clientId, challenge: challenge)
        let tokens = try Self.exchange(live, code: code, verifier: verifier, client: clientId)
        let refreshToken = try #require(try JSONParser().parse(tokens.body)["refresh_token"]?.stringValue, "\(tokens.text)")

        let delete = { (id: String, key: String?) in
            try live.connect().request(
                "DELETE", "/oauth/register/" + id, headers: key.map { [("Authorization", "Bearer " + $0)] } ?? [], body: [])
        }
        #expect(try delete(clientId, nil).status == 401)
        #expect(try delete(clientId, "not-the-master-key").status == 401)
        #expect(try delete(clientId, Self.masterKey).status == 204)
        #expect(try delete(clientId, Self.masterKey).status == 404)
        #expect(try delete("cli", Self.masterKey).status == 404, "a configured client is removed from the setting")

        let refreshed = try Self.post(live, "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", clientId)])
        #expect(try Self.tokenError(refreshed) == (401, "invalid_client"))
        #expect(try live.get("/oauth/authorize?" + Self.query(Self.authorization(client: clientId, challenge: challenge))).status == 400)
        let list = try live.get("/oauth/register", headers: [("Authorization", "Bearer " + Self.masterKey)])
        #expect(list.status == 200 && !list.text.contains(clientId), "\(list.text)")
        let viewer = try live.graphQL(
            "{ viewer { authorizedApps { clientId } } }", headers: [("X-Parse-Session-Token", session)])
        #expect(!viewer.text.contains(clientId), "\(viewer.text)")
    }

    /// A configured client may not take the client_id of the server's own access tokens, which
    /// services tell them apart by.
    @Test func aClientMayNotTakeTheServersOwnClientId() throws {
        do {
            _ = try InProcessServer {
                $0.appId = "myapp"
                $0.oauthClients = #"[{"client_id": "myapp", "redirect_uris": ["https://a.example/cb"], "name": "A"}]"#
            }
            Issue.record("started")
        } catch {
            #expect("\(error)".contains("GATEHOUSE_OAUTH_CLIENTS[0].client_id \"myapp\" is the client_id of the server's own access tokens"), "\(error)")
        }
    }

    /// The discovery document names every endpoint and capability.
    @Test func discoveryListsEverything() throws {
        let live = try Self.server()
        let document = try live.get("/.well-known/openid-configuration").json()
        let issuer = live.server.publicURL
        #expect(document["authorization_endpoint"]?.stringValue == issuer + "/oauth/authorize")
        #expect(document["token_endpoint"]?.stringValue == issuer + "/oauth/token")
        #expect(document["userinfo_endpoint"]?.stringValue == issuer + "/oauth/userinfo")
        #expect(document["revocation_endpoint"]?.stringValue == issuer + "/oauth/revoke")
        #expect(document["registration_endpoint"]?.stringValue == issuer + "/oauth/register")
        #expect(document["code_challenge_methods_supported"] == ["S256"])
        #expect(document["response_types_supported"] == ["code"])
        #expect(document["grant_types_supported"] == ["authorization_code", "refresh_token"])
        #expect(document["authorization_response_iss_parameter_supported"] == true)
    }
}

/// Authlib (Debian's python3-authlib over python3-requests) as the relying party, run by
/// `scripts/oauth_relying_party.py` under Debian's /usr/bin/python3.
enum StockRelyingParty {
    static func run(issuer: String, sessions: [String]) throws -> JSON {
        let directory = TemporaryDirectory.make(prefix: "oauthrp")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outputPath = directory + "/output"
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw Failure("cannot open \(outputPath): errno \(errno)") }
        let pid: pid_t
        do {
            defer { close(output) }
            pid = try spawnChild(
                ["/usr/bin/python3", PackagePaths.root + "/scripts/oauth_relying_party.py", "--issuer", issuer]
                    + sessions.flatMap { ["--session", $0] },
                environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], output: output, errors: output)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = try String(contentsOfFile: outputPath, encoding: .utf8)
        guard status == 0, let line = text.split(separator: "\n").last, let json = try? JSONParser().parse(Array(line.utf8)) else {
            throw Failure("oauth_relying_party.py failed (python3-authlib and python3-requests: scripts/install-deps.sh --test): \(text)")
        }
        return json
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
