import IPNetworks
import Auth
import Foundation
import GraphQL
import GraphQLHTTP
import JSON
import TestSupport
import HTTPServer
import Postgres
import Testing

@testable import AuthGraphQL
@testable import GatehouseServer

/// Contexts built from headers. The auth service never touches its database here
/// (the pool connects lazily), so no database is needed.
@Suite struct ContextTests {
    static func factory(masterKey: String? = "the-master-key", trustedProxies: [String] = []) -> ContextFactory {
        // PasswordHashingPool spelled through inference: this target does not import Sodium.
        let auth = AuthService(
            pool: Pool("host=/nonexistent dbname=none", size: 1),
            hashing: .init(hasher: try! .init(cost: .minimum), workers: 1, maxWait: 0),
            options: .init(configuration: AuthConfiguration(masterKey: masterKey)))
        return ContextFactory(auth: auth, proxies: TrustedProxies(trustedProxies.map { IPNetwork($0)! }))
    }

    static func request(_ headers: [(String, String)], peer: String = "198.51.100.9") -> HTTPRequest {
        HTTPRequest(method: "POST", path: "/graphql", headers: HTTPHeaders(headers), clientAddress: peer)
    }

    @Test(arguments: [
        ([("X-Parse-Session-Token", "r:abc")], "r:abc"),
        ([("x-parse-session-token", "r:abc")], "r:abc"),
        ([("Authorization", "Bearer r:def")], "r:def"),
        ([("Authorization", "bearer  r:def ")], "r:def"),
        ([("X-Parse-Session-Token", "r:abc"), ("Authorization", "Bearer r:def")], "r:abc"),
        ([("Authorization", "Bearer r:def"), ("X-Parse-Session-Token", "r:abc")], "r:abc"),
        ([("X-Parse-Session-Token", ""), ("Authorization", "Bearer r:def")], "r:def"),
        ([("X-Parse-Session-Token", "")], nil),
        ([("Authorization", "Bearer ")], nil),
        ([("Authorization", "Bearer")], nil),
        ([("Authorization", "Basic dXNlcjpwYXNz")], nil),
        ([], nil),
    ] as [([(String, String)], String?)])
    func sessionToken(_ headers: [(String, String)], _ expected: String?) {
        #expect(Self.factory().sessionToken(Self.request(headers)) == expected)
    }

    @Test(arguments: [
        ([("X-Parse-Installation-Id", "inst-1")], "inst-1"),
        ([("X-Parse-Installation-Id", "")], nil),
        ([], nil),
    ] as [([(String, String)], String?)])
    func installationId(_ headers: [(String, String)], _ expected: String?) {
        #expect(Self.factory().authRequest(Self.request(headers)).installationId == expected)
    }

    @Test(arguments: [
        ("the-master-key", "the-master-key", true),
        ("the-master-key", "the-master-kez", false),
        ("the-master-key", "the-master-key ", false),
        ("the-master-key", "", false),
        ("the-master-key", nil, false),
        (nil, "anything", false),
        (nil, nil, false),
    ] as [(String?, String?, Bool)])
    func masterKey(_ configured: String?, _ sent: String?, _ isMaster: Bool) {
        let headers = sent.map { [("X-Parse-Master-Key", $0)] } ?? []
        #expect(Self.factory(masterKey: configured).authRequest(Self.request(headers)).isMaster == isMaster)
    }

    /// The peer 198.51.100.9 is the load balancer; 10.0.0.0/8 and 2001:db8:1::/48 are inner proxies.
    static let proxies = ["198.51.100.9", "10.0.0.0/8", "2001:db8:1::/48"]

    @Test(arguments: [
        // No proxies configured, or a peer that is not one: the header is the client's own claim.
        ([], [("X-Forwarded-For", "203.0.113.7")], "198.51.100.9"),
        (["10.0.0.0/8"], [("X-Forwarded-For", "203.0.113.7")], "198.51.100.9"),
        (proxies, [], "198.51.100.9"),
        (proxies, [("X-Forwarded-For", "")], "198.51.100.9"),
        (proxies, [("X-Forwarded-For", "203.0.113.7")], "203.0.113.7"),
        (proxies, [("X-Forwarded-For", " 203.0.113.7 ")], "203.0.113.7"),
        // The load balancer appends the address it saw: entries before it are the
        // client's own claims, and would let a client pick its rate-limit bucket.
        (proxies, [("X-Forwarded-For", "6.6.6.6, 203.0.113.7")], "203.0.113.7"),
        (proxies, [("X-Forwarded-For", "6.6.6.6"), ("X-Forwarded-For", "203.0.113.7")], "203.0.113.7"),
        // Trusted hops are skipped from the right; the first untrusted entry is the client.
        (proxies, [("X-Forwarded-For", "6.6.6.6, 203.0.113.7, 10.1.2.3, 10.9.9.9")], "203.0.113.7"),
        (proxies, [("X-Forwarded-For", "6.6.6.6, 203.0.113.7"), ("X-Forwarded-For", "10.1.2.3")], "203.0.113.7"),
        // Every entry trusted: the left-most.
        (proxies, [("X-Forwarded-For", "10.0.0.5, 10.1.2.3")], "10.0.0.5"),
        // Ports are ignored; IPv6 with and without brackets; IPv4-mapped IPv6 is IPv4.
        (proxies, [("X-Forwarded-For", "203.0.113.7:5678")], "203.0.113.7"),
        (proxies, [("X-Forwarded-For", "[2001:db8::1]:443")], "2001:db8::1"),
        (proxies, [("X-Forwarded-For", "[2001:DB8::1]")], "2001:db8::1"),
        (proxies, [("X-Forwarded-For", "2001:db8::1")], "2001:db8::1"),
        (proxies, [("X-Forwarded-For", "2001:db8::7, [2001:db8:1::5]:80, 10.0.0.1:9")], "2001:db8::7"),
        (proxies, [("X-Forwarded-For", "::ffff:203.0.113.7")], "203.0.113.7"),
        (proxies, [("X-Forwarded-For", "::ffff:10.0.0.5, 10.0.0.6")], "10.0.0.5"),
        // A malformed entry stops the walk: the client is the last trusted hop before it.
        (proxies, [("X-Forwarded-For", "6.6.6.6, unknown")], "198.51.100.9"),
        (proxies, [("X-Forwarded-For", "6.6.6.6, unknown, 10.1.2.3")], "10.1.2.3"),
        (proxies, [("X-Forwarded-For", "203.0.113.7:99999")], "198.51.100.9"),
        (proxies, [("X-Forwarded-For", "[2001:db8::1")], "198.51.100.9"),
        (proxies, [("X-Forwarded-For", "203.0.113.7/24")], "198.51.100.9"),
        // Empty list elements are skipped.
        (proxies, [("X-Forwarded-For", "203.0.113.7, ,")], "203.0.113.7"),
    ] as [([String], [(String, String)], String)])
    func clientAddress(_ proxies: [String], _ headers: [(String, String)], _ expected: String) {
        #expect(Self.factory(trustedProxies: proxies).authRequest(Self.request(headers)).clientAddress == expected)
    }

    @Test func trustedIPv6PeerIsMatchedByNetwork() {
        let factory = Self.factory(trustedProxies: ["2001:db8:1::/48"])
        let request = Self.request([("X-Forwarded-For", "203.0.113.7")], peer: "2001:db8:1:ffff::2")
        #expect(factory.authRequest(request).clientAddress == "203.0.113.7")
        let outside = Self.request([("X-Forwarded-For", "203.0.113.7")], peer: "2001:db8:2::2")
        #expect(factory.authRequest(outside).clientAddress == "2001:db8:2::2")
    }

    // MARK: When the context is ready

    /// What the factory answers for `query` with these headers.
    static func readiness(_ query: String, _ headers: [(String, String)] = []) throws -> ContextReadiness<RequestContext> {
        let factory = Self.factory()
        let service = GraphQLService(executable: try AuthGraphQL.executableSchema(auth: factory.auth, schema: AuthGraphQL.schema()))
        let prepared = try service.prepare(query).get()
        return factory.context(for: Self.request(headers), prepared, service.operation(of: prepared, named: nil))
    }

    @Test func mutationsExecuteOnABlockingThread() throws {
        guard case .blocking(let context) = try Self.readiness("mutation { logOut(input: {}) { ok } }", [("X-Parse-Session-Token", "r:abc")]) else {
            Issue.record("expected .blocking")
            return
        }
        #expect(context.sessionToken == "r:abc")
    }

    @Test(arguments: [
        ("{ health }", [("X-Parse-Session-Token", "r:abc")], "notAsked"),
        ("{ health }", [], "notAsked"),
        ("{ viewer { sessionToken } }", [], "noToken"),
        ("{ ... on Query { viewer { sessionToken } } }", [("X-Parse-Session-Token", "")], "noToken"),
    ] as [(String, [(String, String)], String)])
    func queriesThatNeedNoLookupAreReadyNow(_ query: String, _ headers: [(String, String)], _ viewer: String) throws {
        guard case .now(let context) = try Self.readiness(query, headers) else {
            Issue.record("expected .now")
            return
        }
        #expect("\(context.viewer)" == viewer)
    }

    /// A token for a query that may select the viewer: its session is looked up first.
    @Test func aViewerWithATokenIsReadyLater() throws {
        guard case .later = try Self.readiness("{ me: viewer { sessionToken } }", [("Authorization", "Bearer r:abc")]) else {
            Issue.record("expected .later")
            return
        }
    }

    /// Fields whose resolvers read the database make the whole operation run where it may block,
    /// wherever they sit: under the viewer, in a fragment, in the mutation's payload.
    @Test(arguments: [
        "{ viewer { passkeys { id } } }",
        "{ viewer { sessions { id } } }",
        "{ viewer { user { authData } } }",
        "{ ...V } fragment V on Query { viewer { user { ... on User { authData } } } }",
        #"{ user(id: "x") { id } }"#,
        #"{ node(id: "x") { id } }"#,
    ])
    func fieldsThatReadTheDatabaseExecuteOnABlockingThread(_ query: String) throws {
        guard case .blocking = try Self.readiness(query, [("X-Parse-Session-Token", "r:abc")]) else {
            Issue.record("expected .blocking for \(query)")
            return
        }
    }

    /// Everything a viewer answers from its settled session waits for the session only.
    @Test func theViewersOwnFieldsWaitOnlyForTheSession() throws {
        let query = """
            { viewer { sessionToken session { id objectId createdAt updatedAt expiresAt lastUsedAt installationId
              createdWith userAgent current } user { id objectId createdAt updatedAt username email emailVerified
              authDataResponse ACL { public { read write } users { userId read write } } } } health __typename }
            """
        guard case .later = try Self.readiness(query, [("X-Parse-Session-Token", "r:abc")]) else {
            Issue.record("expected .later")
            return
        }
    }

    // MARK: finish: the HTTP status of refused requests

    static func finished(_ refusals: [RequestContext.Refusal], data: JSON?) -> HTTPResponse {
        let context = RequestContext(sessionToken: nil, request: AuthRequest(clientAddress: "127.0.0.1"))
        for refusal in refusals { context.record(refusal) }
        var response = HTTPResponse(status: 200)
        ContextFactory.finish(context, ExecutionResult(data: data, errors: []), &response)
        return response
    }

    @Test(arguments: [
        ([], JSON.object(["signUp": .null]), 200, nil),
        ([.rateLimited(retryAfter: 30)], .object(["signUp": .null]), 429, "30"),
        ([.rateLimited(retryAfter: 30), .rateLimited(retryAfter: 60)], .object(["a": .null, "b": .null]), 429, "60"),
        ([.rateLimited(retryAfter: 30)], nil, 429, "30"),
        ([.rateLimited(retryAfter: 30)], .object(["a": .object(["ok": true]), "b": .null]), 200, nil),
        ([.unavailable(retryAfter: 5)], .object(["viewer": .null]), 503, "5"),
        ([.unavailable(retryAfter: 5), .rateLimited(retryAfter: 9)], .object(["a": .null, "b": .null]), 429, "9"),
    ] as [([RequestContext.Refusal], JSON?, Int, String?)])
    func finish(_ refusals: [RequestContext.Refusal], _ data: JSON?, _ status: Int, _ retryAfter: String?) {
        let response = Self.finished(refusals, data: data)
        #expect(response.status == status)
        #expect(response.headers["Retry-After"] == retryAfter)
    }
}
