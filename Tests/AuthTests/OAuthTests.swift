@testable import Auth
import Foundation
import JSON
import JWT
import Mail
import Sodium
import Signatures
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

    /// A code exchanged 60 seconds after it was made is refused with invalid_grant; one half a
    /// minute before then is not.
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
        // Half a minute before the end (the clock is real time plus an offset, and a slow machine
        // may take seconds between steps), then past it.
        harness.clock.advance(by: Double(OAuthPolicy.codeLifetime) - 30)
        let response = try oauth.exchangeCode(inTime, redirectURI: Self.redirectURI, verifier: verifier, client: client)
        #expect(response.refreshToken != nil && response.idToken != nil)
        harness.clock.advance(by: 30)
        #expect(throws: OAuthError(.invalidGrant, "The code has expired.")) {
            try oauth.exchangeCode(late, redirectURI: Self.redirectURI, verifier: verifier, client: client)
        }
    }

    /// Disabling the user ends what its apps hold: the refresh token and an unexchanged code are
    /// refused with invalid_grant (the sessions they came from are gone), and nothing more is issued.
    @Test func aDisabledUsersAppsGetNothingMore() throws {
        let harness = try Self.harness()
        let grant = try Self.signedUp(harness)
        let oauth = harness.auth.oauth
        let client = try #require(try oauth.client(id: "cli"))
        let refreshToken = try Self.refreshToken(harness, grant)
        let (verifier, challenge) = Self.pkce()
        let unexchanged = try oauth.decide(
            try Self.request(harness, challenge: challenge), sessionToken: grant.sessionToken, approve: true,
            authRequest: AuthRequest(clientAddress: "192.0.2.1"))

        _ = try harness.auth.operators.disableUser(
            id: grant.user.objectId, reason: "abuse", request: AuthRequest(clientAddress: "192.0.2.9", isMaster: true))

        #expect(throws: OAuthError(.invalidGrant, "The refresh token is unknown, revoked, or another client's.")) {
            try oauth.refresh(refreshToken, scope: nil, client: client)
        }
        #expect {
            try oauth.exchangeCode(unexchanged, redirectURI: Self.redirectURI, verifier: verifier, client: client)
        } throws: { error in (error as? OAuthError)?.code == .invalidGrant }
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

    // MARK: Security review

    static let api = "https://api.example"

    /// `cli` (no resources), `notes` (configured with the resource `api`) and `shop` (confidential),
    /// with `api` an audience of access tokens, registration on and `tokenRate` token requests a minute.
    static func reviewHarness(tokenRate: Int = 600) throws -> Harness {
        let cli = OAuthClient(
            clientId: "cli", secretDigest: nil, redirectURIs: [redirectURI], name: "The CLI", scopes: OAuthPolicy.knownScopes,
            firstParty: false)
        let notes = OAuthClient(
            clientId: "notes", secretDigest: nil, redirectURIs: [redirectURI], name: "Notes", scopes: OAuthPolicy.knownScopes,
            firstParty: false, resources: [api])
        let shop = OAuthClient(
            clientId: "shop", secretDigest: SHA256.digest("shop-secret-0123456789"), redirectURIs: [redirectURI], name: "Shop",
            scopes: OAuthPolicy.knownScopes, firstParty: false)
        return try Harness(configuration: AuthConfiguration(
            masterKey: Harness.masterKey, accessTokens: AccessTokenPolicy(audiences: [api]),
            oauth: OAuthPolicy(clients: [cli, notes, shop], dynamicRegistration: true, tokenRequestsPerMinute: tokenRate)))
    }

    static func parameters(client: String, challenge: String, _ extra: [(String, String)] = []) -> [(name: String, value: String)] {
        [
            ("response_type", "code"), ("client_id", client), ("redirect_uri", redirectURI), ("scope", "openid"),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ] + extra
    }

    /// H-1: a client may ask a token for a resource only when it is configured with it; one that
    /// is not gets invalid_target, even for an audience of the server's own access tokens. A
    /// consent without the resource does not cover a request with it. A token for the resource
    /// names the client that got it.
    @Test func aResourceMustBeOneTheClientIsConfiguredWith() throws {
        let harness = try Self.reviewHarness()
        let oauth = harness.auth.oauth
        let (verifier, challenge) = Self.pkce()
        do {
            _ = try oauth.authorizationRequest(Self.parameters(client: "cli", challenge: challenge, [("resource", Self.api)]))
            Issue.record("cli got the resource")
        } catch {
            guard case .redirect(let error, _, _) = error else { Issue.record("\(error)"); return }
            #expect(error.code == .invalidTarget)
        }

        let grant = try Self.signedUp(harness)
        let authRequest = AuthRequest(clientAddress: "192.0.2.1")
        let plain = try oauth.authorizationRequest(Self.parameters(client: "notes", challenge: challenge))
        _ = try oauth.decide(plain, sessionToken: grant.sessionToken, approve: true, authRequest: authRequest)
        #expect(try !oauth.needsConsent(plain, userId: grant.user.objectId))
        let withResource = try oauth.authorizationRequest(Self.parameters(client: "notes", challenge: challenge, [("resource", Self.api)]))
        #expect(try oauth.needsConsent(withResource, userId: grant.user.objectId), "the consent did not name the resource")
        var silent = withResource
        silent.prompts = [.none]
        #expect(throws: OAuthError(.consentRequired, "The user has not consented to these scopes for this app.")) {
            try oauth.decide(silent, sessionToken: grant.sessionToken, approve: true, authRequest: authRequest)
        }
        let code = try oauth.decide(withResource, sessionToken: grant.sessionToken, approve: true, authRequest: authRequest)
        let client = try #require(try oauth.client(id: "notes"))
        let token = try JSONWebToken(compact: try oauth.exchangeCode(code, redirectURI: Self.redirectURI, verifier: verifier, client: client).accessToken)
        #expect(token.claims["aud"]?.stringValue == Self.api && token.claims["client_id"]?.stringValue == "notes")
    }

    /// M-1: for a client that registered itself, a mistake after the client and redirect URI
    /// check is shown on the page, never redirected to its URI; a configured client's is redirected.
    @Test func aRegisteredClientsErrorsAreNotRedirected() throws {
        let harness = try Self.reviewHarness()
        let oauth = harness.auth.oauth
        let (client, _) = try oauth.register(
            .init(redirectURIs: ["https://phish.example/"], name: "Cool Notes", confidential: false),
            request: AuthRequest(clientAddress: "192.0.2.9"))
        #expect(client.registered && !client.firstParty && client.resources.isEmpty)
        #expect(try oauth.client(id: client.clientId)?.registered == true)
        let (_, challenge) = Self.pkce()
        for (registered, redirect) in [(client.clientId, "https://phish.example/"), ("cli", Self.redirectURI)] {
            var items = Self.parameters(client: registered, challenge: challenge, [("scope", "openid admin")])
            items = items.map { $0.name == "redirect_uri" ? ($0.name, redirect) : $0 }
            do {
                _ = try oauth.authorizationRequest(items)
                Issue.record("accepted an unknown scope")
            } catch {
                switch error {
                case .page: #expect(registered == client.clientId, "a configured client's error is redirected")
                case .redirect: #expect(registered == "cli", "a registered client's error is shown on the page")
                }
            }
        }
    }

    /// M-2: a password change or reset forgets the apps the user let in: they must be approved again.
    @Test func aPasswordChangeOrResetAsksForConsentAgain() throws {
        let harness = try Self.reviewHarness()
        let oauth = harness.auth.oauth
        let viewer = try harness.signedUp("ada", email: "ada@example.com")
        let token = try #require(viewer["sessionToken"]?.stringValue)
        let userId = try #require(viewer["user"]?["objectId"]?.stringValue)
        let (_, challenge) = Self.pkce()
        let request = try oauth.authorizationRequest(Self.parameters(client: "cli", challenge: challenge))
        func approve(_ session: String) throws {
            _ = try oauth.decide(request, sessionToken: session, approve: true, authRequest: AuthRequest(clientAddress: "192.0.2.1"))
            #expect(try !oauth.needsConsent(request, userId: userId))
        }

        try approve(token)
        let change = harness.graphql(
            "mutation U($id: ID!) { updateUser(input: {id: $id, fields: {password: \"birch-ridge-22\"}}) { user { objectId } } }",
            variables: ["id": .string(userId)], token: token)
        #expect(change.errors.isEmpty, "\(change.json)")
        #expect(try oauth.needsConsent(request, userId: userId), "a password change forgets the consent")

        try approve(token)
        #expect(PasswordResetTests.reset(harness, "ada@example.com").errors.isEmpty)
        let link = try #require(try OutboxRow.latest(harness, kind: "reset_password")?.link)
        let confirmed = PasswordResetTests.confirm(harness, "ada", "cedar-ridge-33", try #require(OutboxRow.token(in: link)))
        #expect(confirmed.errors.isEmpty, "\(confirmed.json)")
        #expect(try oauth.needsConsent(request, userId: userId), "a reset forgets the consent")
    }

    /// M-3: requests naming a confidential client that fail to authenticate as it count against
    /// their own network only, so they cannot use up the client's budget; the client's own
    /// requests count against it.
    @Test func onlyAnAuthenticatedClientUsesItsBudget() throws {
        let harness = try Self.reviewHarness(tokenRate: 2)
        let oauth = harness.auth.oauth
        let attacker = AuthRequest(clientAddress: "198.51.100.7")
        for _ in 0..<2 {
            #expect(throws: OAuthError(.invalidClient, "Client authentication failed.")) {
                try oauth.authenticateClient(basic: ("shop", "wrong-secret-000000"), clientId: nil, request: attacker)
            }
        }
        #expect(throws: OAuthError.self) {
            try oauth.authenticateClient(basic: ("shop", "wrong-secret-000000"), clientId: nil, request: attacker)
        }
        let backends = ["203.0.113.1", "203.0.113.2", "203.0.113.3"].map { AuthRequest(clientAddress: $0) }
        for backend in backends.prefix(2) {
            #expect(try oauth.authenticateClient(basic: ("shop", "shop-secret-0123456789"), clientId: nil, request: backend).clientId == "shop")
        }
        do {
            _ = try oauth.authenticateClient(basic: ("shop", "shop-secret-0123456789"), clientId: nil, request: backends[2])
            Issue.record("the client's third request in a minute was not limited")
        } catch {
            #expect(error.retryAfter != nil, "\(error)")
        }
    }

    /// L-5 and L-8: a redirect URI's host must be a plain DNS name or IP literal as written (the
    /// page's CSP names it); http only on 127.0.0.1 or [::1], not localhost.
    @Test(arguments: [
        ("https://app.example.com/cb", nil),
        ("https://app.example.com:8443/cb?x=1", nil),
        ("http://127.0.0.1:8765/callback", nil),
        ("http://[::1]:8765/callback", nil),
        ("http://localhost:8765/callback", "must use https (http only on a loopback address: 127.0.0.1 or [::1])."),
        ("https://a%0d%0ab/cb", "must have a plain host"),
        ("https://x%3B%20report-uri%20https://e.example/cb", "must have a plain host"),
        ("https://user@app.example.com/cb", "must have a plain host"),
        ("https://b\u{FC}cher.example/cb", "must have a plain host"),
    ] as [(String, String?)])
    func redirectHostsArePlain(_ uri: String, _ problem: String?) {
        let found = OAuthClient.redirectURIProblem(uri)
        if let problem {
            #expect(found?.hasPrefix(problem) == true, "\(uri): \(found ?? "accepted")")
        } else {
            #expect(found == nil, "\(uri): \(found ?? "")")
        }
    }

    /// L-5: the origin the page's CSP names is the redirect URI's scheme, host and port as written.
    @Test func theFormTargetIsTheOriginAsWritten() {
        #expect(OAuthClient.writtenOrigin("HTTPS://App.Example.com:8443/cb?x=1")?.origin == "HTTPS://App.Example.com:8443")
        #expect(OAuthClient.writtenOrigin("http://[::1]:9/cb")?.origin == "http://[::1]:9")
        #expect(OAuthClient.writtenOrigin("https://app.example.com?x=1")?.origin == "https://app.example.com")
        for uri in ["https://a%0d%0ab/cb", "https://a:b:c/cb", "https://a:/cb", "https://[zz::1]/cb", "https://a..b/cb", "ht;tp://a/cb"] {
            #expect(OAuthClient.writtenOrigin(uri) == nil, "\(uri)")
        }
    }

    /// H-1 at start-up: a client's resources must be audiences access tokens are issued for.
    @Test func aClientsResourcesMustBeAudiences() throws {
        let json = #"[{"client_id": "a", "redirect_uris": ["https://a.example/cb"], "name": "A", "resources": ["https://api.example"]}]"#
        #expect(try OAuthPolicy.parseClients(json, audiences: ["https://api.example"])[0].resources == ["https://api.example"])
        #expect(throws: OAuthClientsError(
            #"GATEHOUSE_OAUTH_CLIENTS[0].resources[0] "https://api.example" is not an audience access tokens are issued for (GATEHOUSE_ACCESS_TOKEN_AUDIENCES, or the issuer when unset)."#
        )) { try OAuthPolicy.parseClients(json, audiences: ["https://auth.example"]) }
        #expect(throws: OAuthClientsError.self) {
            try OAuthPolicy.parseClients(#"[{"client_id": "a", "redirect_uris": ["https://a.example/cb"], "name": "A", "resources": ["api#x"]}]"#)
        }
    }
}
