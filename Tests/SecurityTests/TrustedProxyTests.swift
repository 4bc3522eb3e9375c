import Foundation
import GatehouseServer
import Testing
import ServerTestSupport
import TestSupport

/// `GATEHOUSE_TRUSTED_PROXIES` over real HTTP (the contract's "Proxies" row): the per-address rate
/// limit counts the client that the trusted proxy names, and only a trusted proxy can name one.
@Suite(.serialized) struct TrustedProxyTests {
    static func server(maxConnectionsPerAddress: Int = 32) throws -> GatehouseServer {
        var settings = try Settings.parse(arguments: [], environment: ["GATEHOUSE_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8"])
        settings.maxConnectionsPerAddress = maxConnectionsPerAddress
        settings.databaseURL = try TestDatabase.create().connectionString
        settings.secretKey = InProcessServer.secretKey
        settings.port = 0
        settings.hashCost = "minimum"
        settings.rateLimitPerAddress = 2
        settings.rateLimitPerAccount = 0
        settings.logLevel = .error
        return try GatehouseServer(settings: settings, logger: Logger(level: .error, write: { _ in }))
    }

    /// The HTTP status of one failed logIn sent from `source` with these X-Forwarded-For fields.
    static func logIn(_ server: GatehouseServer, from source: String, forwardedFor: [String]) throws -> Int {
        let connection = try HTTPConnection(port: server.port, sourceHost: source)
        let body = Array(#"{"query":"mutation { logIn(input: {username: \"nobody\", password: \"wrong-password\"}) { viewer { sessionToken } } }"}"#.utf8)
        let headers = [("Content-Type", "application/json")] + forwardedFor.map { ("X-Forwarded-For", $0) }
        return try connection.request("POST", "/graphql", headers: headers, body: body).status
    }

    @Test func rateLimitCountsTheClientTheProxyNames() throws {
        let server = try Self.server()
        defer { server.stop() }
        func attempts(_ count: Int, from source: String, _ forwardedFor: String...) throws -> [Int] {
            try (0..<count).map { _ in try Self.logIn(server, from: source, forwardedFor: forwardedFor) }
        }
        // Through the proxy 127.0.0.1: client 203.0.113.7 has two attempts a minute.
        #expect(try attempts(3, from: "127.0.0.1", "203.0.113.7") == [200, 200, 429])
        // Trusted hops to its right are skipped, a port is ignored, and a claim to its left is the
        // client's own: all still 203.0.113.7.
        #expect(try attempts(1, from: "127.0.0.1", "203.0.113.7:5555, 10.1.2.3") == [429])
        #expect(try attempts(1, from: "127.0.0.1", "198.51.100.1, 203.0.113.7") == [429])
        #expect(try attempts(1, from: "127.0.0.1", "198.51.100.1", "203.0.113.7") == [429])
        // Another client behind the same proxy has its own count.
        #expect(try attempts(1, from: "127.0.0.1", "203.0.113.9") == [200])
        // IPv6, with or without brackets and port.
        #expect(try ["2001:db8::1", "[2001:db8::1]:443", "[2001:DB8::1]"].map {
            try Self.logIn(server, from: "127.0.0.1", forwardedFor: [$0])
        } == [200, 200, 429])
        // An untrusted peer's header is ignored: 127.0.0.2 is counted as itself whatever it claims.
        #expect(try attempts(1, from: "127.0.0.2", "203.0.113.60") == [200])
        #expect(try attempts(1, from: "127.0.0.2", "203.0.113.61") == [200])
        #expect(try attempts(1, from: "127.0.0.2", "203.0.113.62") == [429])
        // ...and the proxy naming 127.0.0.2 reaches the same count.
        #expect(try attempts(1, from: "127.0.0.1", "127.0.0.2") == [429])
    }

    /// A load balancer carries many clients' connections: the per-address cap does not count a
    /// trusted proxy's.
    @Test func trustedProxiesAreNotCappedOthersAre() throws {
        let server = try Self.server(maxConnectionsPerAddress: 1)
        defer { server.stop() }
        let body = Array(#"{"query":"{ health }"}"#.utf8)
        func health(_ connection: HTTPConnection) throws -> Int {
            try connection.request("POST", "/graphql", headers: [("Content-Type", "application/json")], body: body).status
        }
        let proxied = try (0..<3).map { _ in try HTTPConnection(port: server.port, sourceHost: "127.0.0.1") }
        #expect(try proxied.map(health) == [200, 200, 200])
        let direct = try HTTPConnection(port: server.port, sourceHost: "127.0.0.2")
        #expect(try health(direct) == 200)
        let over = try HTTPConnection(port: server.port, sourceHost: "127.0.0.2")
        _ = try? health(over)
        #expect(over.isClosedByPeer())
        #expect(server.refusedConnectionCount == 1)
    }
}
