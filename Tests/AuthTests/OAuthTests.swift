import Auth
import Foundation
import JSON
import Sodium
import Testing

/// The OAuth provider's domain on a test clock (docs/oauth.md): codes live 60 seconds, the user's
/// apps are listed and removed, and `GATEHOUSE_OAUTH_CLIENTS` mistakes name their entry and field.
@Suite(.timeLimit(.minutes(2)))
struct OAuthTests {
    static let redirectURI = "http://127.0.0.1:9/callback"

    static func harness() throws -> Harness {
        let client = OAuthClient(
            clientId: "cli", secretDigest: nil, redirectURIs: [redirectURI], name: "The CLI", scopes: OAuthPolicy.knownScopes,
            firstParty: false)
        return try Harness(configuration: AuthConfiguration(masterKey: Harness.masterKey, oauth: OAuthPolicy(clients: [client])))
    }

    static func pkce() -> (verifier: String, challenge: String) {
        let verifier = Base64URL.encode(SecureRandom.bytes(32))
        return (verifier, Base64URL.encode(SHA256.digest(verifier)))
    }

    static func request(_ harness: Harness, challenge: String) throws -> OAuthService.AuthorizationRequest {
        try harness.auth.oauth.authorizationRequest([
            ("response_type", "code"), ("client_id", "cli"), ("redirect_uri", redirectURI), ("scope", "openid offline_access"),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ])
    }

    static func signedUp(_ harness: Harness) throws -> SessionGrant {
        try harness.auth.sessions.signUp(
            SignUpFields(username: "ada", password: Harness.password), request: AuthRequest(clientAddress: "192.0.2.1"))
    }

    /// A code exchanged 60 seconds after it was made is refused with invalid_grant; one a moment
    /// before then is not.
    @Test func aCodeLivesSixtySeconds() throws {
        let harness = try Self.harness()
        let grant = try Self.signedUp(harness)
        let oauth = harness.auth.oauth
        let client = try #require(try oauth.client(id: "cli"))
        let (verifier, challenge) = Self.pkce()
        let request = try Self.request(harness, challenge: challenge)
        let authRequest = AuthRequest(clientAddress: "192.0.2.1")

        let late = try oauth.decide(request, sessionToken: grant.sessionToken, approve: true, authRequest: authRequest)
        let inTime = try oauth.decide(request, sessionToken: grant.sessionToken, approve: true, authRequest: authRequest)
        harness.clock.advance(by: Double(OAuthPolicy.codeLifetime) - 1)
        let response = try oauth.exchangeCode(inTime, redirectURI: Self.redirectURI, verifier: verifier, client: client)
        #expect(response.refreshToken != nil && response.idToken != nil)
        harness.clock.advance(by: 1)
        #expect(throws: OAuthError(.invalidGrant, "The code has expired.")) {
            try oauth.exchangeCode(late, redirectURI: Self.redirectURI, verifier: verifier, client: client)
        }
    }

    /// The apps a user let in are listed with their scopes; removing one ends its refresh tokens
    /// and forgets the consent; removing one never let in is 101.
    @Test func theUsersAppsAreListedAndRemoved() throws {
        let harness = try Self.harness()
        let grant = try Self.signedUp(harness)
        let oauth = harness.auth.oauth
        let client = try #require(try oauth.client(id: "cli"))
        let (verifier, challenge) = Self.pkce()
        let request = try Self.request(harness, challenge: challenge)
        #expect(try oauth.needsConsent(request, userId: grant.user.objectId))
        let code = try oauth.decide(request, sessionToken: grant.sessionToken, approve: true, authRequest: AuthRequest(clientAddress: "192.0.2.1"))
        let tokens = try oauth.exchangeCode(code, redirectURI: Self.redirectURI, verifier: verifier, client: client)
        #expect(try !oauth.needsConsent(request, userId: grant.user.objectId), "the consent is remembered")

        let apps = try oauth.authorizedApps(grant)
        #expect(apps.map(\.clientId) == ["cli"] && apps.first?.name == "The CLI")
        #expect(apps.first?.scopes == ["openid", "offline_access"])

        try oauth.revokeAuthorizedApp(grant, clientId: "cli")
        #expect(try oauth.authorizedApps(grant).isEmpty)
        #expect(try oauth.needsConsent(request, userId: grant.user.objectId))
        #expect(throws: OAuthError.self) { try oauth.refresh(try #require(tokens.refreshToken), scope: nil, client: client) }
        #expect(throws: AuthError.objectNotFound) { try oauth.revokeAuthorizedApp(grant, clientId: "cli") }
    }

    /// Each mistake in `GATEHOUSE_OAUTH_CLIENTS` names the entry and the field.
    @Test(arguments: [
        (#"{"client_id": "a"}"#, "must be a JSON array"),
        (#"[{"client_id": "a b", "redirect_uris": ["https://a.example/cb"], "name": "A"}]"#, "GATEHOUSE_OAUTH_CLIENTS[0].client_id"),
        (#"[{"client_id": "a", "redirect_uris": [], "name": "A"}]"#, "GATEHOUSE_OAUTH_CLIENTS[0].redirect_uris must be"),
        (#"[{"client_id": "a", "redirect_uris": ["http://a.example/cb"], "name": "A"}]"#, "GATEHOUSE_OAUTH_CLIENTS[0].redirect_uris[0] must use https"),
        (#"[{"client_id": "a", "redirect_uris": ["https://a.example/cb#x"], "name": "A"}]"#, "redirect_uris[0] must not have a fragment"),
        (#"[{"client_id": "a", "redirect_uris": ["https://a.example/cb"]}]"#, "GATEHOUSE_OAUTH_CLIENTS[0].name"),
        (#"[{"client_id": "a", "redirect_uris": ["https://a.example/cb"], "name": "A", "client_secret": "short"}]"#, "[0].client_secret must be"),
        (#"[{"client_id": "a", "redirect_uris": ["https://a.example/cb"], "name": "A", "scopes": ["admin"]}]"#, "[0].scopes[0] must be one of"),
        (#"[{"client_id": "a", "redirect_uris": ["https://a.example/cb"], "name": "A", "first_party": "yes"}]"#, "[0].first_party must be"),
        (#"[{"client_id": "a", "redirect_uris": ["https://a.example/cb"], "name": "A"}, {"client_id": "a", "redirect_uris": ["https://a.example/cb"], "name": "B"}]"#, "GATEHOUSE_OAUTH_CLIENTS[1].client_id \"a\" is given twice"),
        (#"[{"client_id": "a", "redirect_uri": ["https://a.example/cb"], "name": "A"}]"#, "unknown field \"redirect_uri\""),
    ])
    func clientMistakesNameEntryAndField(_ json: String, _ expected: String) {
        do {
            _ = try OAuthPolicy.parseClients(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    /// A good entry: a confidential client keeps only its secret's digest.
    @Test func aConfiguredClientKeepsItsSecretsDigest() throws {
        let clients = try OAuthPolicy.parseClients(#"""
            [{"client_id": "shop", "client_secret": "0123456789abcdef0123", "redirect_uris": ["https://shop.example/cb", "http://127.0.0.1:8080/cb"],
              "name": "Shop", "scopes": ["openid", "email"], "first_party": true}]
            """#)
        #expect(clients.count == 1)
        #expect(clients[0].secretDigest == SHA256.digest("0123456789abcdef0123"))
        #expect(clients[0].accepts(secret: "0123456789abcdef0123") && !clients[0].accepts(secret: "0123456789abcdef0124"))
        #expect(clients[0].scopes == ["openid", "email"] && clients[0].firstParty)
    }
}
