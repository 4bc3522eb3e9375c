import Dispatch
import Foundation
import JSON
import Providers
import ServerTestSupport
import Synchronization
import Testing

/// A clock the test moves.
final class TestClock: Sendable {
    private let time = Mutex(Date())
    var now: Date { time.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
}

/// A started provider, and a registry on a test clock with the providers `acme` and `apple` served by it.
/// The caller stops the provider (a `defer` also keeps it alive to the end of the test).
func started(anonymous: Bool = true) throws -> (OIDCTestProvider, TestClock, ProviderRegistry) {
    let provider = try OIDCTestProvider.start()
    let clock = TestClock()
    do { return (provider, clock, try registry(provider, clock: clock, anonymous: anonymous)) } catch {
        provider.stop()
        throw error
    }
}

/// A registry with the providers `acme` and `apple` served by `provider`.
func registry(_ provider: OIDCTestProvider, clock: TestClock, anonymous: Bool) throws -> ProviderRegistry {
    let endpoints = #""issuer": "\#(provider.issuer)", "jwks_uri": "\#(provider.jwksURI)""#
    let configuration = try ProviderConfiguration.parse("""
        {"anonymous": {"enabled": \(anonymous)},
         "acme": {\(endpoints), "client_ids": ["other-app", "\(OIDCTestProvider.clientID)"]},
         "apple": {\(endpoints), "client_ids": ["\(OIDCTestProvider.clientID)"]}}
        """)
    return ProviderRegistry(configuration: configuration, now: { clock.now })
}

/// `{"acme": {"id": id, "id_token": token}}` (and `nonce` when given).
func authData(_ token: String, id: String = OIDCTestProvider.subject, nonce: String? = nil, provider: String = "acme", field: String = "id_token") -> JSONObject {
    var fields: JSONObject = ["id": .string(id), field: .string(token)]
    if let nonce { fields["nonce"] = .string(nonce) }
    return [provider: .object(fields)]
}

/// A token valid for a day, for tests that move the registry's clock by hours.
func dayLongToken(_ provider: OIDCTestProvider) throws -> String {
    try provider.mint(claims: ["exp": .int(Int(Date().timeIntervalSince1970) + 86_400)])
}

/// Expects `.invalid` (the detail is for logs; `detail` is part of it).
func expectInvalid(
    _ registry: ProviderRegistry, provider name: String = "acme", _ data: JSONObject, detail: String = "", label: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        let id = try registry.verify(name, data)
        Issue.record("\(label): accepted as \(id)", sourceLocation: sourceLocation)
    } catch {
        guard case .invalid(let text) = error else {
            Issue.record("\(label): \(error) instead of .invalid", sourceLocation: sourceLocation)
            return
        }
        #expect(detail.isEmpty || text.contains(detail), "\(label): \(text)", sourceLocation: sourceLocation)
    }
}

@Suite struct ProviderRegistryTests {
    @Test func rs256AndES256TokensAreAccepted() throws {
        let (provider, _, registry) = try started()
        defer { provider.stop() }
        #expect(try registry.verify("acme", authData(provider.mint(alg: "RS256"))) == OIDCTestProvider.subject)
        #expect(try registry.verify("acme", authData(provider.mint(alg: "ES256"))) == OIDCTestProvider.subject)
        // aud may be an array holding one of the client ids; a nonce given is checked.
        let token = try provider.mint(claims: ["aud": ["someone-else", "other-app"], "nonce": "n-1", "sub": "u-42"])
        #expect(try registry.verify("acme", authData(token, id: "u-42", nonce: "n-1")) == "u-42")
        // apple reads the token from `token`.
        #expect(try registry.verify("apple", authData(provider.mint(alg: "ES256"), provider: "apple", field: "token")) == OIDCTestProvider.subject)
        #expect(registry.keySetFetchCount("acme") == 1 && registry.keySetFetchCount("apple") == 1)
    }

    @Test func everyWrongTokenIsInvalid() throws {
        let (provider, _, registry) = try started()
        defer { provider.stop() }
        let now = Int(Date().timeIntervalSince1970)
        let keyIds = try provider.keyIds
        let cases: [(String, JSONObject, String)] = [
            ("signature", authData(try provider.mint(foreign: true)), "token: "),
            ("ES256 signature", authData(try provider.mint(alg: "ES256", foreign: true)), "token: "),
            ("issuer", authData(try provider.mint(claims: ["iss": "https://evil.example"])), "token: "),
            ("no issuer", authData(try provider.mint(claims: ["iss": .null])), "token: "),
            ("audience", authData(try provider.mint(claims: ["aud": "another-app"])), "token: "),
            ("audience array", authData(try provider.mint(claims: ["aud": ["a", "b"]])), "token: "),
            ("no audience", authData(try provider.mint(claims: ["aud": .null])), "token: "),
            ("expired", authData(try provider.mint(claims: ["exp": .int(now - 120)])), "token: "),
            ("no expiry", authData(try provider.mint(claims: ["exp": .null])), "token: "),
            ("issued in the future", authData(try provider.mint(claims: ["iat": .int(now + 120)])), "token: "),
            ("subject", authData(try provider.mint(claims: ["sub": "someone-else"])), "token: "),
            ("nonce", authData(try provider.mint(claims: ["nonce": "n-1"]), nonce: "n-2"), "token: "),
            ("nonce missing from the token", authData(try provider.mint(), nonce: "n-1"), "token: "),
            ("alg none", authData(try provider.mint(alg: "none")), "token"),
            ("HS256 with the public key", authData(try provider.mint(alg: "HS256")), "token"),
            ("RS256 kid on an ES256 token", authData(try provider.mint(alg: "ES256", kid: keyIds.rsa)), "token: "),
            ("ES256 kid on an RS256 token", authData(try provider.mint(alg: "RS256", kid: keyIds.ec)), "token: "),
            ("unknown kid", authData(try provider.mint(kid: "no-such-key")), #"no key with kid "no-such-key""#),
            ("no kid in a set of two", authData(try provider.mint(omitKid: true)), "no key with kid (none)"),
            ("not a JWT", authData("not.a.jwt"), "token: "),
            ("token in the wrong field", authData(try provider.mint(), field: "token"), "authData.acme.id_token is not a non-empty string"),
            ("empty token", authData(""), "authData.acme.id_token is not a non-empty string"),
            ("empty id", authData(try provider.mint(), id: ""), "authData.acme.id is not a non-empty string"),
            ("id not a string", ["acme": ["id": 1, "id_token": .string(try provider.mint())]], "authData.acme.id is not a non-empty string"),
            ("nonce not a string", ["acme": ["id": "user-1", "id_token": .string(try provider.mint()), "nonce": 5]], "authData.acme.nonce is not a string"),
            ("not an object", ["acme": "token"], "authData.acme is not an object"),
            ("absent", ["google": ["id": "user-1"]], "authData.acme is not an object"),
        ]
        for (name, data, detail) in cases {
            expectInvalid(registry, data, detail: detail, label: name)
        }
        #expect(registry.keySetFetchCount("acme") == 1, "forgeries and bad tokens fetch nothing more within the minute")
    }

    /// A token's alg is the client's text: the refusal, before any key look-up, quotes at most 64 bytes of it.
    @Test func aLongAlgorithmIsCutInTheRefusal() throws {
        let configuration = try ProviderConfiguration.parse(
            #"{"acme": {"issuer": "https://login.acme.example", "jwks_uri": "https://login.acme.example/jwks", "client_ids": ["app"]}}"#)
        let registry = ProviderRegistry(configuration: configuration)
        let header = JSON.object(["alg": .string("A" + String(repeating: "\u{301}", count: 1000))]).serialized()
        let token = Base64URL.encode(header) + "." + Base64URL.encode(Array("{}".utf8)) + ".AA"
        expectInvalid(
            registry, authData(token), detail: "token algorithm \"A" + String(repeating: "\u{301}", count: 31) + "\"… is not RS256 or ES256")
        #expect(registry.keySetFetchCount("acme") == 0)
    }

    @Test func unsupportedProviders() throws {
        let (provider, _, registry) = try started(anonymous: false)
        defer { provider.stop() }
        #expect(!registry.isSupported("anonymous") && !registry.isSupported("google") && registry.isSupported("acme"))
        #expect(throws: ProviderFailure.unsupported) { try registry.verify("google", authData("x", provider: "google")) }
        #expect(throws: ProviderFailure.unsupported) { try registry.verify("anonymous", ["anonymous": ["id": "guest"]]) }
    }

    @Test func anonymousIdsHoldOneTo128Characters() throws {
        let registry = ProviderRegistry(configuration: try ProviderConfiguration.parse(nil))
        #expect(registry.isSupported("anonymous") && !registry.isSupported("acme"))
        #expect(try registry.verify("anonymous", ["anonymous": ["id": "g"]]) == "g")
        let longest = String(repeating: "é", count: 128)
        #expect(try registry.verify("anonymous", ["anonymous": .object(["id": .string(longest)])]) == longest)
        expectInvalid(registry, provider: "anonymous", ["anonymous": .object(["id": .string(longest + "e")])], detail: "longer than 128 characters")
        expectInvalid(registry, provider: "anonymous", ["anonymous": ["id": ""]], detail: "authData.anonymous.id is not a non-empty string")
        expectInvalid(registry, provider: "anonymous", ["anonymous": [:]], detail: "authData.anonymous.id is not a non-empty string")
        expectInvalid(registry, provider: "anonymous", ["anonymous": .null], detail: "authData.anonymous is not an object")
        #expect(throws: ProviderFailure.unsupported) { try registry.verify("acme", ["acme": ["id": "x"]]) }
    }

    @Test func oneFetchForManyVerificationsAndConcurrentFirstUses() throws {
        let (provider, _, registry) = try started()
        defer { provider.stop() }
        let tokens = try (0..<4).map { _ in try provider.mint() } + (0..<4).map { _ in try provider.mint(alg: "ES256") }
        let accepted = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 32) { index in
            if (try? registry.verify("acme", authData(tokens[index % tokens.count]))) != nil { accepted.withLock { $0 += 1 } }
        }
        #expect(accepted.withLock { $0 } == 32)
        #expect(registry.keySetFetchCount("acme") == 1)
        #expect(try provider.fetchCount == 1)
    }

    @Test func cacheControlMaxAgeOrOneHour() throws {
        let (provider, clock, registry) = try started()
        defer { provider.stop() }
        let token = try dayLongToken(provider)
        _ = try registry.verify("acme", authData(token))
        clock.advance(3590)
        _ = try registry.verify("acme", authData(token))
        #expect(try provider.fetchCount == 1, "an hour without Cache-Control")
        try provider.setCacheControl("no-transform, max-age=120")
        clock.advance(20)
        _ = try registry.verify("acme", authData(token))
        #expect(try provider.fetchCount == 2)
        clock.advance(110)
        _ = try registry.verify("acme", authData(token))
        #expect(try provider.fetchCount == 2, "kept for max-age")
        clock.advance(20)
        _ = try registry.verify("acme", authData(token))
        #expect(try provider.fetchCount == 3)
    }

    @Test func aRotatedKeyIsPickedUpOnFirstUse() throws {
        let (provider, clock, registry) = try started()
        defer { provider.stop() }
        _ = try registry.verify("acme", authData(provider.mint()))
        try provider.rotate()
        clock.advance(61)
        #expect(try registry.verify("acme", authData(provider.mint())) == OIDCTestProvider.subject)
        #expect(try registry.verify("acme", authData(provider.mint(alg: "ES256"))) == OIDCTestProvider.subject)
        #expect(try provider.fetchCount == 2)
    }

    @Test func anUnknownKidIsFetchedAgainAtMostOnceAMinute() throws {
        let (provider, clock, registry) = try started()
        defer { provider.stop() }
        let unknown = authData(try provider.mint(kid: "unknown"))
        _ = try registry.verify("acme", authData(provider.mint()))
        clock.advance(30)
        expectInvalid(registry, unknown, detail: #"no key with kid "unknown" in the key set (fetched again at most once a minute)"#)
        #expect(registry.keySetFetchCount("acme") == 1)
        clock.advance(31)
        expectInvalid(registry, unknown, detail: #"no key with kid "unknown""#)
        #expect(registry.keySetFetchCount("acme") == 2)
        clock.advance(59)
        expectInvalid(registry, unknown)
        #expect(registry.keySetFetchCount("acme") == 2)
        clock.advance(1)
        expectInvalid(registry, unknown)
        #expect(registry.keySetFetchCount("acme") == 3)
        #expect(try provider.fetchCount == 3)
    }

    @Test func anUnreachableProviderKeepsWorkingFromCache() throws {
        let (provider, clock, registry) = try started()
        defer { provider.stop() }
        let token = try dayLongToken(provider)
        _ = try registry.verify("acme", authData(token))
        try provider.setUnreachable(true)
        clock.advance(7200)
        #expect(try registry.verify("acme", authData(token)) == OIDCTestProvider.subject, "the expired set is kept")
        #expect(registry.keySetFetchCount("acme") == 2, "a refresh was tried")
        clock.advance(30)
        #expect(try registry.verify("acme", authData(token)) == OIDCTestProvider.subject)
        #expect(registry.keySetFetchCount("acme") == 2, "and is tried again at most once a minute")
        try provider.setUnreachable(false)
        clock.advance(30)
        _ = try registry.verify("acme", authData(token))
        #expect(registry.keySetFetchCount("acme") == 3)
        #expect(try provider.fetchCount == 2, "served twice: the unanswered attempt is not counted by the provider")
    }

    @Test func anUnreachableProviderWithoutACachedSetIsInvalid() throws {
        let (provider, _, registry) = try started()
        defer { provider.stop() }
        let token = try provider.mint()
        try provider.setUnreachable(true)
        expectInvalid(registry, authData(token), detail: "key set fetch failed: http://127.0.0.1:\(provider.port): ")
    }
}
