import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import ServerTestSupport
import Testing

/// logInWith and linking with ID tokens from a local OpenID Connect provider (contract: providers.md).
@Suite struct ProviderTokenTests {
    /// A harness whose `google` (RS256 tokens in `id_token`) and `apple` (ES256 in `token`) are `provider`.
    static func harness(_ provider: OIDCTestProvider) throws -> Harness {
        let endpoints = #""issuer": "\#(provider.issuer)", "jwks_uri": "\#(provider.jwksURI)", "client_ids": ["\#(OIDCTestProvider.clientID)"]"#
        return try Harness(providers: #"{"anonymous": {"enabled": true}, "google": {\#(endpoints)}, "apple": {\#(endpoints)}}"#)
    }

    /// `{"google": {"id", "id_token"}}` or `{"apple": {"id", "token"}}` with a token minted for `subject`.
    static func authData(_ provider: OIDCTestProvider, _ name: String = "google", subject: String = OIDCTestProvider.subject,
                         claims: JSONObject = [:], foreign: Bool = false) throws -> JSONObject {
        var claims = claims
        if claims["sub"] == nil { claims["sub"] = .string(subject) }
        let token = try provider.mint(claims: claims, alg: name == "apple" ? "ES256" : "RS256", foreign: foreign)
        return [name: ["id": .string(subject), name == "apple" ? "token" : "id_token": .string(token)]]
    }

    static func userId(_ result: ExecutionResult) -> String? {
        result.data?["logInWith"]?["viewer"]?["user"]?["objectId"]?.stringValue
    }

    @Test(arguments: ["google", "apple"])
    func aTokenCreatesTheUserOnceThenLogsIn(_ name: String) throws {
        let provider = try OIDCTestProvider.start()
        let h = try Self.harness(provider)
        let first = ProviderLogInTests.logInWith(h, try Self.authData(provider, name))
        let id = try #require(Self.userId(first), "\(first.json)")
        #expect(first.data?["logInWith"]?["viewer"]?["user"]?["authData"] == .object([name: ["id": .string(OIDCTestProvider.subject)]]))
        let token = try #require(first.data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue)
        #expect(ProviderLogInTests.createdWith(h, token) == ["action": "signup", "authProvider": .string(name), "factors": [.string(name)]])
        let again = ProviderLogInTests.logInWith(h, try Self.authData(provider, name))
        #expect(Self.userId(again) == id, "\(again.json)")
        let againToken = try #require(again.data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue)
        #expect(ProviderLogInTests.createdWith(h, againToken) == ["action": "login", "authProvider": .string(name), "factors": [.string(name)]])
        #expect(try h.count("SELECT count(*)::int FROM users") == 1)
        // The token is neither stored nor logged: only the id is kept.
        #expect(try h.count("SELECT count(*)::int FROM users WHERE auth_data IS NOT NULL") == 0)
        let minted = try #require(Self.authData(provider, name)[name]?.objectValue?.values.compactMap(\.stringValue).last)
        #expect(!h.capturedLogs.contains { $0.contains(minted.prefix(40)) })
    }

    @Test func aBadTokenIsRefusedWithTheProvidersName() throws {
        let provider = try OIDCTestProvider.start()
        let h = try Self.harness(provider)
        for authData in [
            try Self.authData(provider, foreign: true), try Self.authData(provider, claims: ["aud": "another-app"]),
            try Self.authData(provider, "apple", claims: ["iss": "https://evil.example"]),
        ] {
            let name = authData.keys[0]
            #expect(ProviderLogInTests.error(ProviderLogInTests.logInWith(h, authData)) == "101 Invalid authData for provider \(name).")
        }
        // The id must be the token's subject.
        var other = try Self.authData(provider)
        other["google"] = ["id": "someone-else", "id_token": other["google"]?["id_token"] ?? .null]
        #expect(ProviderLogInTests.error(ProviderLogInTests.logInWith(h, other)) == "101 Invalid authData for provider google.")
        #expect(try h.count("SELECT count(*)::int FROM users") == 0)
        #expect(h.capturedLogs.contains { $0.hasPrefix("invalid authData for provider google: ") })
    }

    @Test func aProviderUserCannotLogInWithAnyPassword() throws {
        let provider = try OIDCTestProvider.start()
        let h = try Self.harness(provider)
        let result = ProviderLogInTests.logInWith(h, try Self.authData(provider))
        let username = try #require(result.data?["logInWith"]?["viewer"]?["user"]?["username"]?.stringValue, "\(result.json)")
        for password in ["larch-ridge-11", "7654321z"] {
            #expect(ProviderLogInTests.error(h.logIn(username, password)) == "101 Invalid username/password.")
        }
    }

    @Test func linkUnlinkAndTheLastWayToLogIn() throws {
        let provider = try OIDCTestProvider.start()
        let h = try Self.harness(provider)
        // A password user links google, which then logs it in, and may unlink it (the password stays).
        let alice = try AccountChangeTests.account(h, "alice")
        let linked = ProviderLogInTests.update(h, alice.id, ["authData": .object(try Self.authData(provider, subject: "g-alice"))], token: alice.token)
        #expect(linked.data?["updateUser"]?["user"]?["authData"] == ["google": ["id": "g-alice"]], "\(linked.json)")
        #expect(Self.userId(ProviderLogInTests.logInWith(h, try Self.authData(provider, subject: "g-alice"))) == alice.id)
        // Another user cannot take that id.
        let bob = try AccountChangeTests.account(h, "bob")
        #expect(ProviderLogInTests.error(ProviderLogInTests.update(
            h, bob.id, ["authData": .object(try Self.authData(provider, subject: "g-alice"))], token: bob.token))
            == "208 this auth is already used")
        // A link is checked as logInWith checks.
        #expect(ProviderLogInTests.error(ProviderLogInTests.update(
            h, bob.id, ["authData": .object(try Self.authData(provider, subject: "g-bob", foreign: true))], token: bob.token))
            == "101 Invalid authData for provider google.")
        #expect(ProviderLogInTests.update(h, alice.id, ["authData": ["google": .null]], token: alice.token).errors.isEmpty)
        #expect(h.logIn("alice", Harness.password).errors.isEmpty)

        // A user made by google: apple linked, google may go; then apple is the last way.
        let carol = ProviderLogInTests.logInWith(h, try Self.authData(provider, subject: "g-carol"))
        let carolId = try #require(Self.userId(carol))
        let carolToken = try #require(carol.data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue)
        #expect(ProviderLogInTests.error(ProviderLogInTests.update(h, carolId, ["authData": ["google": .null]], token: carolToken))
            == "142 The last way to log in cannot be removed.")
        #expect(ProviderLogInTests.update(
            h, carolId, ["authData": .object(try Self.authData(provider, "apple", subject: "a-carol"))], token: carolToken).errors.isEmpty)
        #expect(ProviderLogInTests.update(h, carolId, ["authData": ["google": .null]], token: carolToken).errors.isEmpty)
        #expect(ProviderLogInTests.error(ProviderLogInTests.update(h, carolId, ["authData": ["apple": .null]], token: carolToken))
            == "142 The last way to log in cannot be removed.")
        #expect(Self.userId(ProviderLogInTests.logInWith(h, try Self.authData(provider, "apple", subject: "a-carol"))) == carolId)

        // A guest that links google keeps its account through google without the anonymous link.
        let guest = try ProviderLogInTests.guest(h, "device-1")
        #expect(ProviderLogInTests.update(
            h, guest.id, ["authData": .object(try Self.authData(provider, subject: "g-guest"))], token: guest.token).errors.isEmpty)
        #expect(ProviderLogInTests.update(h, guest.id, ["authData": ["anonymous": .null]], token: guest.token).errors.isEmpty)
        #expect(Self.userId(ProviderLogInTests.logInWith(h, try Self.authData(provider, subject: "g-guest"))) == guest.id)
    }
}
