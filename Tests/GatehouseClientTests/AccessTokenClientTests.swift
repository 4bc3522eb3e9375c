import Foundation
@testable import GatehouseClient
import ServerTestSupport
import Synchronization
import TestSupport
import Testing

/// `GatehouseAuth.accessToken(audience:)`: against a server, and its cache alone (kept until 30 s
/// before expiry, one request for concurrent callers).
@Suite(.timeLimit(.minutes(2)))
struct AccessTokenClientTests {
    @Test func aTokenFromTheServerVerifiesAndIsKept() async throws {
        let server = try InProcessServer { $0.accessTokenAudiences = ["api", "reports"] }
        defer { server.stop() }
        let auth = try GatehouseAuth(configuration: GatehouseConfiguration(serverURL: server.url), store: MemorySessionStore())
        await #expect(throws: GatehouseError.sessionInvalid) { try await auth.accessToken() }
        try await auth.signUp(username: "alice", password: "larch-ridge-123")

        let token = try await auth.accessToken()
        #expect(token.audience == "api")
        #expect(token.expiresAt.timeIntervalSinceNow > 250 && token.expiresAt.timeIntervalSinceNow <= 300)
        let verdicts = try IndependentVerifiers.verify(
            [token.token], keySet: .url(server.origin + "/.well-known/jwks.json"), issuer: server.server.publicURL, audience: "api")
        #expect(verdicts[0].accepted, "\(verdicts[0])")
        // The server signs a fresh token each time: the same one again is the cached one.
        #expect(try await auth.accessToken() == token)
        let reports = try await auth.accessToken(audience: "reports")
        #expect(reports.audience == "reports" && reports != token)
        await #expect(throws: GatehouseError.unknownAudience("billing")) { try await auth.accessToken(audience: "billing") }

        // A new sign-in: a new session's token.
        try await auth.logIn(username: "alice", password: "larch-ridge-123")
        #expect(try await auth.accessToken() != token)
        try await auth.logOut()
        await #expect(throws: GatehouseError.sessionInvalid) { try await auth.accessToken() }
    }

    static func token(_ name: String, expiresAt: Date) -> AccessToken {
        AccessToken(token: name, expiresAt: expiresAt, audience: "api")
    }

    /// Served until 30 seconds before expiry, then fetched again; per session and audience.
    @Test func keptUntilThirtySecondsBeforeExpiry() async throws {
        let cache = AccessTokenCache()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let fetched = Mutex(0)
        let fetch: @Sendable () async throws(GatehouseError) -> AccessToken = {
            let count = fetched.withLock { count in count += 1; return count }
            return Self.token("t\(count)", expiresAt: t0 + 300)
        }
        #expect(try await cache.token(sessionToken: "r:a", audience: nil, now: t0, fetch: fetch).token == "t1")
        #expect(try await cache.token(sessionToken: "r:a", audience: nil, now: t0 + 269, fetch: fetch).token == "t1")
        #expect(try await cache.token(sessionToken: "r:a", audience: nil, now: t0 + 270, fetch: fetch).token == "t2", "30 s left")
        #expect(try await cache.token(sessionToken: "r:a", audience: "other", now: t0, fetch: fetch).token == "t3")
        #expect(try await cache.token(sessionToken: "r:b", audience: nil, now: t0, fetch: fetch).token == "t4")
        // The first session's entries went with the new session.
        #expect(try await cache.token(sessionToken: "r:a", audience: nil, now: t0, fetch: fetch).token == "t5")
        #expect(cache.requestCounts.requests == 5)
    }

    /// A failed request keeps nothing: the next call asks again.
    @Test func aFailureIsNotKept() async throws {
        let cache = AccessTokenCache()
        let fail = Mutex(true)
        let fetch: @Sendable () async throws(GatehouseError) -> AccessToken = { () async throws(GatehouseError) -> AccessToken in
            if fail.withLock({ $0 }) { throw GatehouseError.network("down") }
            return Self.token("ok", expiresAt: Date() + 300)
        }
        await #expect(throws: GatehouseError.network("down")) { try await cache.token(sessionToken: "r:a", audience: nil, now: Date(), fetch: fetch) }
        fail.withLock { $0 = false }
        #expect(try await cache.token(sessionToken: "r:a", audience: nil, now: Date(), fetch: fetch).token == "ok")
    }

    /// Callers that ask while a token is being fetched all await that one request.
    @Test func concurrentCallersShareOneRequest() async throws {
        let cache = AccessTokenCache()
        let gate = JobGate()
        gate.shut()
        let fetch: @Sendable () async throws(GatehouseError) -> AccessToken = {
            // Held until every caller has joined; a thread of its own, so no task thread is blocked.
            await withCheckedContinuation { continuation in
                Thread { gate.pass(); continuation.resume() }.start()
            }
            return Self.token("shared", expiresAt: Date() - 1)  // expired: never served from the cache
        }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 {
                group.addTask { try await cache.token(sessionToken: "r:a", audience: nil, now: Date(), fetch: fetch).token }
            }
            while cache.requestCounts.requests + cache.requestCounts.joined < 10 { await Task.yield() }
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tokens == Array(repeating: "shared", count: 10))
        #expect(cache.requestCounts == (requests: 1, joined: 9))
        // Expired when it came: the next caller asks again.
        gate.open()
        _ = try await cache.token(sessionToken: "r:a", audience: nil, now: Date(), fetch: fetch)
        #expect(cache.requestCounts.requests == 2)
    }
}
