import Foundation
import GatehouseServer
import Testing
import ServerTestSupport
import TestSupport

/// Slow-loris (the contract's "Connections" row): one address trickling requests holds at most
/// its cap of connections, others are served meanwhile, and the trickling connections are closed
/// by the request deadline although they never go idle.
@Suite(.serialized) struct SlowLorisTests {
    static let cap = 6

    static func server() throws -> GatehouseServer {
        var settings = Settings()
        settings.databaseURL = try TestDatabase.create().connectionString
        settings.secretKey = InProcessServer.secretKey
        settings.port = 0
        settings.hashCost = "minimum"
        settings.maxConnectionsPerAddress = cap
        settings.requestTimeout = 2
        // Far beyond the test: what closes the trickling connections is the deadline, not idleness.
        settings.connectionTimeout = 60
        settings.logLevel = .error
        return try GatehouseServer(settings: settings, logger: Logger(level: .error, write: { _ in }))
    }

    static let health = Array(#"{"query":"{ health }"}"#.utf8)

    /// A request line and the start of a header, the rest to come a byte at a time.
    static let opening = "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Slow: "

    @Test func oneAddressTricklingCannotHoldTheServer() throws {
        let server = try Self.server()
        defer { server.stop() }
        let port = server.port

        // The attacker, 127.0.0.2, fills its cap with connections that send a header byte every 0.5 s.
        let attackers = try (0..<Self.cap).map { _ in
            try HTTPConnection(port: port, sourceHost: "127.0.0.2", timeoutSeconds: 20)
        }
        for attacker in attackers { try attacker.send(Self.opening) }
        #expect(eventually { server.openConnectionCount >= Self.cap })

        // (a) One more from the same address is closed before it is served.
        let extra = try HTTPConnection(port: port, sourceHost: "127.0.0.2", timeoutSeconds: 20)
        _ = try? extra.request("POST", "/graphql", headers: [("Content-Type", "application/json")], body: Self.health)
        #expect(extra.isClosedByPeer())
        #expect(server.refusedConnectionCount == 1)

        // (b) Another address is served while the cap is held, and a body trickled in well
        // within the deadline is answered once complete.
        let honest = try HTTPConnection(port: port, sourceHost: "127.0.0.1")
        let answer = try honest.request("POST", "/graphql", headers: [("Content-Type", "application/json")], body: Self.health)
        #expect(answer.text == #"{"data":{"health":true}}"#)
        try honest.send("POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(Self.health.count)\r\n\r\n")
        for byte in Self.health {
            try honest.send([byte])
            usleep(10_000)
        }
        #expect(try honest.readResponse().text == #"{"data":{"health":true}}"#)
        #expect(server.timedOutRequestCount == 0, "served while the trickling connections were open")

        // (c) The attackers keep trickling (never idle); the deadline closes every one of them.
        var open = Set(attackers.indices)
        let giveUp = ContinuousClock.now + .seconds(20)
        while !open.isEmpty && ContinuousClock.now < giveUp {
            for index in open {
                do { try attackers[index].send("a") } catch { open.remove(index) }
            }
            usleep(500_000)
        }
        #expect(open.isEmpty, "every trickling connection was closed")
        #expect(server.timedOutRequestCount == Self.cap)
        #expect(attackers.allSatisfy { $0.isClosedByPeer() })

        // Their slots are free again: the attacker's address is served like any other.
        #expect(eventually { server.openConnectionCount <= 1 })
        let again = try HTTPConnection(port: port, sourceHost: "127.0.0.2")
        #expect(try again.request("POST", "/graphql", headers: [("Content-Type", "application/json")], body: Self.health).status == 200)
        // The honest keep-alive connection, idle since its answers, was left alone.
        #expect(try honest.request("GET", "/health").status == 200)
        // An operator sees both kinds of closed connection in /metrics.
        let metrics = try honest.request("GET", "/metrics").text
        #expect(metrics.contains(#"gatehouse_http_connections_closed_total{reason="over_address_cap"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"gatehouse_http_connections_closed_total{reason="request_timeout"} \#(Self.cap)"#), "\(metrics)")
    }
}
