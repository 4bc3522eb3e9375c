@testable import Auth
import Foundation
import JSON
import Mail
import Sodium
import Synchronization
import Testing

/// The OAuth provider's domain on a test clock (docs/oauth.md): codes live 60 seconds, the user's
/// apps are listed and removed, a first consent is told by mail, refresh tokens rotate in batches
/// with reuse detected within a batch, the janitor clears what codes and grants leave, and
/// `GATEHOUSE_OAUTH_CLIENTS` mistakes name their entry and field.
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

    static func signedUp(_ harness: Harness, email: String? = nil) throws -> SessionGrant {
        try harness.auth.sessions.signUp(
            SignUpFields(username: "ada", password: Harness.password, email: email), request: AuthRequest(clientAddress: "192.0.2.1"))
    }

    /// A refresh token of `grant`'s session for "cli" (an approved code, exchanged).
    static func refreshToken(_ harness: Harness, _ grant: SessionGrant) throws -> String {
        let oauth = harness.auth.oauth
        let (verifier, challenge) = pkce()
        let code = try oauth.decide(
            try request(harness, challenge: challenge), sessionToken: grant.sessionToken, approve: true,
            authRequest: AuthRequest(clientAddress: "192.0.2.1"))
        let client = try #require(try oauth.client(id: "cli"))
        return try #require(try oauth.exchangeCode(code, redirectURI: redirectURI, verifier: verifier, client: client).refreshToken)
    }

    /// One presentation of `token` by `clientId` waiting for a batch, with a new next token.
    static func presentation(_ harness: Harness, _ token: String, clientId: String = "cli") -> OAuthStore.RefreshRotation {
        let time = harness.clock.now()
        return OAuthStore.RefreshRotation(
            digest: SHA256.digest(token), clientId: clientId, next: SecureRandom.bytes(32), now: time,
            idleCutoff: harness.auth.sessions.idleCutoff(at: time))
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

    /// One refresh token presented twice in one batch (one statement): the earlier presentation
    /// rotates, the later is a reuse, which ends the session and so the token just issued.
    @Test func twoPresentationsInOneBatchAreAReuse() throws {
        let harness = try Self.harness()
        let grant = try Self.signedUp(harness)
        let token = try Self.refreshToken(harness, grant)
        let first = Self.presentation(harness, token), second = Self.presentation(harness, token)
        let outcomes = try harness.auth.oauth.store.rotate([first, second], useResolution: 0)
        guard case .rotated = outcomes[first] else { Issue.record("the first: \(String(describing: outcomes[first]))"); return }
        guard case .reused(let digest) = outcomes[second] else { Issue.record("the second: \(String(describing: outcomes[second]))"); return }
        #expect(digest == SHA256.digest(grant.sessionToken))
        #expect(throws: AuthError.invalidSession) { try harness.auth.sessions.viewer(token: grant.sessionToken) }
        #expect(try harness.count("SELECT count(*)::int FROM oauth_refresh_tokens") == 0, "the whole chain ended with its session")
    }

    /// One refresh token presented by many requests at once, through the batcher (in one batch or
    /// in several, as the threads happen to meet): exactly one gets a new pair, and the reuse ends
    /// the session.
    @Test func concurrentPresentationsOfOneTokenRotateOnce() throws {
        let harness = try Self.harness()
        let grant = try Self.signedUp(harness)
        let token = try Self.refreshToken(harness, grant)
        let client = try #require(try harness.auth.oauth.client(id: "cli"))
        let answered = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let rotated = (try? harness.auth.oauth.refresh(token, scope: nil, client: client)) != nil
            answered.withLock { $0.append(rotated) }
        }
        #expect(answered.withLock { $0.count(where: { $0 }) } == 1)
        #expect(throws: AuthError.invalidSession) { try harness.auth.sessions.viewer(token: grant.sessionToken) }
    }

    /// A presentation by another client uses nothing: the same token from its own client, later in
    /// the batch, still rotates (its next token stored unused); an unknown token is unknown.
    @Test func anotherClientsPresentationUsesNothing() throws {
        let harness = try Self.harness()
        let grant = try Self.signedUp(harness)
        let token = try Self.refreshToken(harness, grant)
        let stranger = Self.presentation(harness, token, clientId: "other"), owner = Self.presentation(harness, token)
        let unknown = Self.presentation(harness, "not a token")
        let outcomes = try harness.auth.oauth.store.rotate([stranger, owner, unknown], useResolution: 0)
        guard case .wrongClient = outcomes[stranger], case .rotated(let record) = outcomes[owner], case .unknown = outcomes[unknown] else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(record.user.objectId == grant.user.objectId && record.session.objectId == grant.session.objectId)
        #expect(try harness.count("SELECT count(*)::int FROM oauth_refresh_tokens WHERE token_digest = \(owner.next) AND used_at IS NULL") == 1)
    }

    /// Approving an app for the first time tells the user by mail, in the request's language,
    /// naming the app; approving it again does not, until the app is removed and let in anew.
    @Test func aFirstConsentIsToldByMail() throws {
        let harness = try Self.harness()
        let grant = try Self.signedUp(harness, email: "ada@example.com")
        let oauth = harness.auth.oauth
        let french = AuthRequest(clientAddress: "192.0.2.1", acceptLanguage: "fr-CA, en;q=0.5")
        func notices() throws -> [OutboxStore.StoredMessage] {
            try OutboxStore(pool: harness.pool).newest(limit: 50).map(\.message).filter { $0.kind == MailKind.appAuthorized.rawValue }
        }
        #expect(try notices().isEmpty)
        let request = try Self.request(harness, challenge: Self.pkce().challenge)
        _ = try oauth.decide(request, sessionToken: grant.sessionToken, approve: true, authRequest: french)
        let sent = try notices()
        #expect(sent.count == 1)
        #expect(sent.first?.recipient == "ada@example.com" && sent.first?.language == "fr")
        #expect(try SignInMethodTests.notice(harness, kind: MailKind.appAuthorized.rawValue)?.changes == [.appAuthorized("The CLI")])

        var again = request
        again.prompts = [.consent]
        _ = try oauth.decide(again, sessionToken: grant.sessionToken, approve: true, authRequest: french)
        _ = try oauth.decide(request, sessionToken: grant.sessionToken, approve: true, authRequest: AuthRequest(clientAddress: "192.0.2.1"))
        #expect(try notices().count == 1, "a consent given before is no news")

        try oauth.revokeAuthorizedApp(grant, clientId: "cli")
        _ = try oauth.decide(request, sessionToken: grant.sessionToken, approve: true, authRequest: AuthRequest(clientAddress: "192.0.2.1"))
        #expect(try notices().map(\.language) == ["en", "fr"], "let in anew after its removal")
    }

    /// The session janitor deletes, in bounded batches, codes past their life (exchanged or not)
    /// and the grants they leave with neither a code nor a refresh token; a grant with a refresh
    /// token stays and its token still works.
    @Test func theJanitorClearsExpiredCodesAndTheirGrants() throws {
        let harness = try Self.harness()
        let grant = try Self.signedUp(harness)
        let oauth = harness.auth.oauth
        let client = try #require(try oauth.client(id: "cli"))
        let authRequest = AuthRequest(clientAddress: "192.0.2.1")
        for _ in 0..<3 {  // never exchanged
            _ = try oauth.decide(
                try Self.request(harness, challenge: Self.pkce().challenge), sessionToken: grant.sessionToken, approve: true,
                authRequest: authRequest)
        }
        for _ in 0..<2 {  // exchanged, without offline_access: no refresh token
            let (verifier, challenge) = Self.pkce()
            let online = try oauth.authorizationRequest([
                ("response_type", "code"), ("client_id", "cli"), ("redirect_uri", Self.redirectURI), ("scope", "openid"),
                ("code_challenge", challenge), ("code_challenge_method", "S256"),
            ])
            let code = try oauth.decide(online, sessionToken: grant.sessionToken, approve: true, authRequest: authRequest)
            #expect(try oauth.exchangeCode(code, redirectURI: Self.redirectURI, verifier: verifier, client: client).refreshToken == nil)
        }
        let refresh = try Self.refreshToken(harness, grant)
        func rows() throws -> (codes: Int, grants: Int) {
            (try harness.count("SELECT count(*)::int FROM oauth_codes"), try harness.count("SELECT count(*)::int FROM oauth_grants"))
        }
        #expect(try rows() == (6, 6))
        let janitor = SessionJanitor(pool: harness.pool, batchSize: 2)
        #expect(try janitor.deleteExpired(now: harness.clock.now()).oauthRowsDeleted == 0)
        // Kept past a code's life and the longest access token of its grant.
        harness.clock.advance(by: OAuthStore.staleAfter + Double(OAuthPolicy.codeLifetime) - 1)
        #expect(try janitor.deleteExpired(now: harness.clock.now()).oauthRowsDeleted == 0)
        harness.clock.advance(by: 2)
        #expect(try janitor.deleteExpired(now: harness.clock.now()).oauthRowsDeleted == 6 + 5)
        #expect(try rows() == (0, 1))
        #expect(try oauth.refresh(refresh, scope: nil, client: client).refreshToken != nil)
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
