import Auth
import Foundation
import GraphQL
import JSON
import JWT
import ServerTestSupport
import Testing

/// `Viewer.accessToken` (contract: tokens.md): every claim, audiences, sessions that may not have
/// a token, the size limit, and introspection. Tokens are checked by PyJWT and jwcrypto against
/// the key set the instance publishes, and by the JWT target's own verifier.
@Suite struct AccessTokenTests {
    static let accessToken = """
        query T($audience: String) {
          viewer { session { objectId createdAt } accessToken(audience: $audience) { token tokenType expiresAt audience } }
        }
        """

    /// The token of `session` for `audience` (nil: the default); the whole result.
    static func request(_ h: Harness, _ session: String, audience: String? = nil) -> ExecutionResult {
        h.graphql(accessToken, variables: audience.map { ["audience": .string($0)] } ?? [:], token: session)
    }

    /// The compact token of `session` (no errors expected).
    static func token(_ h: Harness, _ session: String, audience: String? = nil) throws -> String {
        let result = request(h, session, audience: audience)
        return try #require(result.data?["viewer"]?["accessToken"]?["token"]?.stringValue, "\(result.json)")
    }

    /// `tokens` checked by both libraries against the instance's key set, for `audience` (nil: the issuer).
    static func independently(_ h: Harness, _ tokens: [String], audience: String? = nil) throws -> [IndependentVerifiers.Verdicts] {
        try IndependentVerifiers.verify(
            tokens, keySet: .document(h.auth.tokens.keys.published.keySet), issuer: h.auth.tokens.issuer,
            audience: audience ?? h.auth.tokens.issuer)
    }

    static func error(_ result: ExecutionResult) -> String? { onlyError(result).map { "\($0.code ?? 0) \($0.message)" } }

    @Test func everyClaimOfAPasswordSession() throws {
        let h = try Harness()
        let viewer = try h.signedUp("alice", email: "alice@example.com")
        let session = try #require(viewer["sessionToken"]?.stringValue)
        let userId = try #require(viewer["user"]?["objectId"]?.stringValue)
        let before = Int(h.clock.now().timeIntervalSince1970.rounded(.down))
        let result = Self.request(h, session)
        let after = Int(h.clock.now().timeIntervalSince1970.rounded(.down))
        let answer = try #require(result.data?["viewer"], "\(result.json)")
        let compact = try #require(answer["accessToken"]?["token"]?.stringValue)
        #expect(answer["accessToken"]?["tokenType"] == "Bearer")
        #expect(answer["accessToken"]?["audience"] == .string(h.auth.tokens.issuer))

        let verdict = try #require(try Self.independently(h, [compact]).first)
        #expect(verdict.accepted, "\(verdict)")
        // Both libraries read the same claims; PyJWT's are compared in full.
        #expect(verdict.pyjwt.claims == verdict.jwcrypto.claims)
        let claims = verdict.pyjwt.claims
        #expect(claims.keys == [
            "iss", "sub", "aud", "iat", "nbf", "exp", "jti", "sid", "client_id", "auth_time", "amr", "email", "email_verified",
            "preferred_username",
        ])
        #expect(claims["iss"] == "http://127.0.0.1:1337")
        #expect(claims["sub"] == .string(userId))
        #expect(claims["aud"] == "http://127.0.0.1:1337")
        let issuedAt = try #require(claims["iat"]?.intValue)
        #expect((before...after).contains(issuedAt))
        #expect(claims["nbf"] == .int(issuedAt))
        #expect(claims["exp"] == .int(issuedAt + 300))
        #expect(answer["accessToken"]?["expiresAt"]?.stringValue?.hasSuffix(".000Z") == true)
        let jti = try #require(claims["jti"]?.stringValue)
        #expect(Base64URL.decode(jti)?.count == 16)
        #expect(claims["sid"] == answer["session"]?["objectId"])
        #expect(claims["client_id"] == "gatehouse")
        let created = try #require(answer["session"]?["createdAt"]?.stringValue.flatMap(Self.seconds))
        #expect(claims["auth_time"] == .int(created))
        #expect(claims["amr"] == ["pwd"])
        #expect(claims["email"] == "alice@example.com")
        #expect(claims["email_verified"] == false)
        #expect(claims["preferred_username"] == "alice")
        let token = try JSONWebToken(compact: compact)
        #expect(verdict.pyjwt.header == ["alg": "ES256", "typ": "at+jwt", "kid": .string(token.keyId ?? "")])

        // The JWT target's verifier agrees, with the published key of the header's kid.
        let keySet = try JSONWebKeySet(data: h.auth.tokens.keys.published.keySet)
        try token.verifySignature(with: #require(keySet.key(id: token.keyId)))

        // Every call signs a fresh token.
        let again = try Self.token(h, session)
        #expect(again != compact)
        #expect(try JSONWebToken(compact: again).claims["jti"] != claims["jti"])
    }

    /// Whole seconds since 1970 of a `Date` scalar's text.
    static func seconds(_ text: String) -> Int? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text).map { Int($0.timeIntervalSince1970.rounded(.down)) }
    }

    /// A user without an email: no `email` claims; a guest (`anonymous`): no username either.
    @Test func claimsOfAUserWithoutEmailAndOfAGuest() throws {
        let h = try Harness()
        let bob = try #require(try h.signedUp("bob")["sessionToken"]?.stringValue)
        let bobClaims = try JSONWebToken(compact: Self.token(h, bob)).claims
        #expect(bobClaims["email"] == nil && bobClaims["email_verified"] == nil)
        #expect(bobClaims["preferred_username"] == "bob")

        let guest = h.graphql(
            "mutation { logInWith(input: {authData: {anonymous: {id: \"2d4b0c4e-6c9a-4f0e-9a37-0d1f1b2c3d4e\"}}}) { viewer { sessionToken } } }")
        let guestSession = try #require(guest.data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue, "\(guest.json)")
        let guestToken = try Self.token(h, guestSession)
        let verdict = try #require(try Self.independently(h, [guestToken]).first)
        #expect(verdict.accepted, "\(verdict)")
        #expect(verdict.pyjwt.claims["amr"] == ["anonymous"])
        #expect(verdict.pyjwt.claims["preferred_username"] == nil)
        #expect(verdict.pyjwt.claims["email"] == nil)
    }

    @Test(arguments: [
        (["password"], ["pwd"]),
        (["password", "totp"], ["pwd", "otp", "mfa"]),
        (["passkey"], ["hwk"]),
        (["passkey-unverified"], ["hwk"]),
        (["google"], ["google"]),
        (["anonymous"], ["anonymous"]),
        (["oidc-corp", "totp"], ["oidc-corp", "otp", "mfa"]),
    ] as [([String], [String])])
    func authenticationMethods(_ factors: [String], _ amr: [String]) {
        #expect(AccessTokenClaims.amr(factors) == amr)
    }

    /// A log-in with TOTP: `amr` says both factors, and `mfa`.
    @Test func secondFactorSessionSaysSo() throws {
        let h = try Harness()
        let alice = try TOTPLogInTests.account(h)
        _ = try TOTPLogInTests.enrol(h, alice)
        h.clock.advance(by: 30)  // the next code's step: the enrolment's was used
        let session = try #require(TOTPLogInTests.sessionToken(TOTPLogInTests.logIn(h, alice.code(h))))
        #expect(try JSONWebToken(compact: Self.token(h, session)).claims["amr"] == ["pwd", "otp", "mfa"])
    }

    /// The first configured audience is the default; another configured one may be asked for;
    /// any other gets 142 (a token for one service is not replayed at another).
    @Test func audiences() throws {
        let h = try Harness(configuration: AuthConfiguration(
            masterKey: Harness.masterKey, accessTokens: AccessTokenPolicy(audiences: ["https://api.example.com", "billing"])))
        let session = try #require(try h.signedUp()["sessionToken"]?.stringValue)
        let first = try Self.token(h, session)
        let billing = try Self.token(h, session, audience: "billing")
        #expect(try JSONWebToken(compact: first).claims["aud"] == "https://api.example.com")
        #expect(try JSONWebToken(compact: billing).claims["aud"] == "billing")
        let verdicts = try Self.independently(h, [first, billing], audience: "billing")
        #expect(verdicts[0].refused, "a token for another audience: \(verdicts[0])")
        #expect(verdicts[1].accepted, "\(verdicts[1])")

        #expect(Self.error(Self.request(h, session, audience: "https://evil.example")) == "142 Unknown audience https://evil.example.")
        #expect(Self.error(Self.request(h, session, audience: "")) == "142 Unknown audience .")
        // A long audience is quoted in part.
        let long = String(repeating: "x", count: 5000)
        let message = try #require(Self.error(Self.request(h, session, audience: long)))
        #expect(message.utf8.count < 300, "\(message)")
    }

    /// `GATEHOUSE_MFA=required`: a session without a second factor gets 206, as everywhere but
    /// enrolment; once the session has shown one, it gets a token.
    @Test func aSessionWithoutTheRequiredSecondFactorGetsNoToken() throws {
        let h = try Harness(configuration: AuthConfiguration(masterKey: Harness.masterKey, mfa: .required))
        let alice = try TOTPLogInTests.account(h)
        #expect(Self.error(Self.request(h, alice.token)) == "206 Second factor enrolment required.")
        _ = try TOTPLogInTests.enrol(h, alice)
        #expect(try JSONWebToken(compact: Self.token(h, alice.token)).claims["amr"] == ["pwd", "otp", "mfa"])
    }

    /// `GATEHOUSE_VERIFY_EMAILS=required`: a session whose user's email is not verified (here:
    /// changed after sign-up) gets 205, the error its log-in would get.
    @Test func anUnverifiedEmailGetsNoTokenWhenVerificationIsRequired() throws {
        let h = try Harness(configuration: AuthConfiguration(
            masterKey: Harness.masterKey, accounts: AccountPolicy(verifyEmails: .required)))
        let viewer = try h.signedUp("carol")
        let session = try #require(viewer["sessionToken"]?.stringValue)
        _ = try Self.token(h, session)
        let change = h.graphql(
            "mutation U($id: ID!) { updateUser(input: {id: $id, fields: {email: \"carol@example.com\"}}) { user { emailVerified } } }",
            variables: ["id": viewer["user"]?["objectId"] ?? .null], token: session)
        #expect(change.data?["updateUser"]?["user"]?["emailVerified"] == false, "\(change.json)")
        #expect(Self.error(Self.request(h, session)) == "205 User email is not verified.")
    }

    /// Claims past 8 KiB get 142, not a truncated token.
    @Test func aTokenPastTheLimitIsRefused() throws {
        let h = try Harness(configuration: AuthConfiguration(
            masterKey: Harness.masterKey, accessTokens: AccessTokenPolicy(audiences: ["short", String(repeating: "a", count: 6000)])))
        let session = try #require(try h.signedUp()["sessionToken"]?.stringValue)
        #expect(Self.error(Self.request(h, session, audience: String(repeating: "a", count: 6000))) == "142 Access token too large.")
        let short = try Self.token(h, session)
        #expect(short.utf8.count < AccessTokenPolicy.maximumBytes)
    }

    @Test func withoutASessionThereIsNoToken() throws {
        let h = try Harness()
        #expect(Self.error(h.graphql(Self.accessToken)) == "209 Invalid session token")
        #expect(Self.error(Self.request(h, "r:00000000000000000000000000000000")) == "209 Invalid session token")
    }

    /// Introspection: active with the claims for a live token; inactive once it expires, once its
    /// session ends, for a forged one, and for garbage. A session token is introspected too.
    @Test func introspection() throws {
        let h = try Harness()
        let session = try #require(try h.signedUp("dave", email: "dave@example.com")["sessionToken"]?.stringValue)
        let compact = try Self.token(h, session)
        let live = try h.auth.tokens.introspect(compact)
        #expect(live["active"] == true)
        #expect(live["token_type"] == "Bearer")
        #expect(live["sub"] == (try JSONWebToken(compact: compact).claims["sub"]))
        #expect(live["preferred_username"] == "dave")

        let ofSession = try h.auth.tokens.introspect(session)
        #expect(ofSession["active"] == true && ofSession["sid"] == live["sid"] && ofSession["aud"] == nil, "\(ofSession)")

        // Forged: a claim changed under the signature; signed by another key under the same kid.
        let parts = compact.split(separator: ".").map(String.init)
        var claims = try JSONWebToken(compact: compact).claims
        claims["sub"] = "someoneElse"
        #expect(try h.auth.tokens.introspect(parts[0] + "." + Base64URL.encode(JSON.object(claims).serialized()) + "." + parts[2]) == ["active": false])
        let kid = try #require(try JSONWebToken(compact: compact).keyId)
        let foreign = try JSONWebSigningKey(generating: .es256) { _ in kid }
        #expect(try h.auth.tokens.introspect(JSONWebToken.sign(claims: JSONWebToken(compact: compact).claims, type: "at+jwt", with: foreign)) == ["active": false])
        for garbage in ["", "x", "a.b.c", "r:0123456789abcdef0123456789abcdef"] {
            #expect(try h.auth.tokens.introspect(garbage) == ["active": false], "\(garbage)")
        }

        // Expired: the same token 301 seconds on.
        let other = try Self.token(h, session)
        h.clock.advance(by: 301)
        #expect(try h.auth.tokens.introspect(other) == ["active": false])
        h.clock.advance(by: -301)
        #expect(try h.auth.tokens.introspect(other)["active"] == true)

        // The session ends: the token is inactive at once, though unexpired.
        #expect(h.logOut(token: session).errors.isEmpty)
        #expect(try h.auth.tokens.introspect(other) == ["active": false])
        #expect(try h.auth.tokens.introspect(session) == ["active": false])
    }

    /// Introspection reads the database, not this instance's session cache: a session ended
    /// elsewhere (here: its row deleted without this instance hearing of it) is inactive at once,
    /// though the cache still serves it to `viewer`.
    @Test func introspectionDoesNotTrustTheSessionCache() throws {
        let h = try Harness()
        let cache = SessionCache()
        cache.reset(live: true)
        let auth = AuthService(pool: h.pool, hashing: h.hashing, options: .init(sessionCache: cache, keyBox: h.keyBox))
        try auth.tokens.keys.refresh()
        let session = try #require(try h.signedUp()["sessionToken"]?.stringValue)
        let grant = try auth.sessions.viewer(token: session)
        let token = try auth.tokens.accessToken(for: grant, audience: nil, request: AuthRequest(clientAddress: "192.0.2.1"))
        #expect(try auth.tokens.introspect(session)["active"] == true)
        #expect(try auth.tokens.introspect(token.token)["active"] == true)

        try h.execute("DELETE FROM sessions")
        #expect((try? auth.sessions.viewer(token: session)) != nil, "the cache still has it")
        #expect(try auth.tokens.introspect(session) == ["active": false])
        #expect(try auth.tokens.introspect(token.token) == ["active": false])
    }
}
