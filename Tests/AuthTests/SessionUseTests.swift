@testable import Auth
import Foundation
import JSON
import Sodium
import Signatures
import TestSupport
import Testing

/// `lastUsedAt` without a write per request, and the idle timeout (contract: accounts.md,
/// "Idle sessions", `GATEHOUSE_SESSION_IDLE_TIMEOUT`).
@Suite struct SessionUseTests {
    /// Waits until the recorder has written everything noted; its stats then.
    static func settled(_ auth: AuthService) throws -> SessionUseRecorder.Stats {
        #expect(eventually { !auth.sessions.sessionUse.stats.busy })
        return auth.sessions.sessionUse.stats
    }

    static func lastUsedAt(_ h: Harness, _ token: String) throws -> Date {
        try #require(try h.rows("SELECT last_used_at FROM sessions WHERE token_digest = \(SHA256.digest(token))")
            .first?.decode(Date.self, at: 0))
    }

    /// Requests within five minutes of the last recorded use write nothing; the first request
    /// after that writes the session's row once, whatever the requests (viewer or a mutation).
    @Test func lastUsedAtIsWrittenAtMostOncePerFiveMinutes() throws {
        let h = try Harness()
        let token = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let created = try Self.lastUsedAt(h, token)
        for _ in 0..<10 { #expect(h.viewer(token: token).errors.isEmpty) }
        h.clock.advance(by: 299)
        for _ in 0..<10 { #expect(h.viewer(token: token).errors.isEmpty) }
        #expect(try Self.settled(h.auth).rowsWritten == 0)
        #expect(try Self.lastUsedAt(h, token) == created)

        h.clock.advance(by: 2)
        let usedAt = h.clock.now()
        for _ in 0..<10 { #expect(h.viewer(token: token).errors.isEmpty) }
        #expect(try Self.settled(h.auth).rowsWritten == 1)
        let written = try Self.lastUsedAt(h, token)
        #expect(written >= usedAt.addingTimeInterval(-1) && written <= h.clock.now())
        for _ in 0..<10 { #expect(h.viewer(token: token).errors.isEmpty) }
        #expect(try Self.settled(h.auth).rowsWritten == 1)

        // A mutation with a session is a use too.
        h.clock.advance(by: 301)
        let revoked = h.graphql("mutation { revokeOtherSessions(input: {}) { revoked } }", token: token)
        #expect(revoked.data?["revokeOtherSessions"]?["revoked"] == 0, "\(revoked.json)")
        #expect(try Self.settled(h.auth).rowsWritten == 2)
        #expect(try Self.lastUsedAt(h, token) > written.addingTimeInterval(300))
        #expect(try h.count("SELECT count(*) FROM sessions") == 1)
    }

    /// With the session cache, the cached entry carries the new `lastUsedAt`: one statement for
    /// many requests, and `viewer.session.lastUsedAt` shows the use.
    @Test func theCachedSessionCarriesTheRecordedUse() throws {
        let h = try Harness()
        let cache = SessionCache()
        cache.reset(live: true)
        let auth = AuthService(pool: h.pool, hashing: h.hashing, options: .init(sessionCache: cache, now: { h.clock.now() }))
        let grant = try auth.sessions.signUp(SignUpFields(username: "alice", password: Harness.password), request: AuthRequest(clientAddress: "192.0.2.1"))
        #expect(try auth.sessions.viewer(token: grant.sessionToken).session.lastUsedAt == grant.session.lastUsedAt)
        h.clock.advance(by: 301)
        let first = try auth.sessions.viewer(token: grant.sessionToken)
        #expect(first.session.lastUsedAt > grant.session.lastUsedAt.addingTimeInterval(300))
        for _ in 0..<20 { #expect(try auth.sessions.viewer(token: grant.sessionToken).session.lastUsedAt == first.session.lastUsedAt) }
        let stats = try Self.settled(auth)
        #expect(stats.statements == 1 && stats.rowsWritten == 1, "\(stats)")
        #expect(try Self.lastUsedAt(h, grant.sessionToken) == first.session.lastUsedAt)
    }

    /// An idle session answers 209 `Session token is expired.` and is deleted; one in use stays;
    /// idle sessions are not listed, nor found by node or revokeSession.
    @Test func idleSessionsExpire() throws {
        var configuration = AuthConfiguration()
        configuration.accounts.sessionIdleTimeout = 3600
        let h = try Harness(configuration: configuration)
        let used = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let idle = try h.loggedIn("alice")
        let idleId = try UserSessionsTests.sessionId(h, idle)
        h.clock.advance(by: 3000)
        #expect(h.viewer(token: used).errors.isEmpty)
        _ = try Self.settled(h.auth)
        h.clock.advance(by: 1000)

        let list = h.graphql(UserSessionsTests.sessions, token: used).data?["viewer"]?["sessions"]?.arrayValue
        #expect(list?.map { $0["current"] } == [true])
        let node = h.graphql(UserSessionsTests.node, variables: ["id": .string(GlobalID.encode(type: "_Session", id: idleId))], token: used)
        #expect(onlyError(node)?.code == 101)
        #expect(onlyError(UserSessionsTests.revoke(h, idleId, token: used))?.code == 101)
        #expect(try h.count("SELECT count(*) FROM sessions") == 2, "listing does not delete")

        let error = try #require(onlyError(h.viewer(token: idle)))
        #expect(error.code == 209 && error.message == "Session token is expired.")
        #expect(try h.count("SELECT count(*) FROM sessions WHERE object_id = \(idleId)") == 0)
        #expect(onlyError(h.viewer(token: idle))?.message == "Invalid session token")
        #expect(h.viewer(token: used).errors.isEmpty)
    }

    /// A timeout shorter than ten minutes records use every half timeout, so that a session in
    /// use never looks idle.
    @Test func aShortIdleTimeoutKeepsASessionInUseAlive() throws {
        var configuration = AuthConfiguration()
        configuration.accounts.sessionIdleTimeout = 60
        let h = try Harness(configuration: configuration)
        let token = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        for round in 1...5 {
            h.clock.advance(by: 40)
            #expect(h.viewer(token: token).errors.isEmpty, "round \(round)")
            #expect(try Self.settled(h.auth).rowsWritten == round)
        }
        h.clock.advance(by: 61)
        #expect(onlyError(h.viewer(token: token))?.message == "Session token is expired.")
    }

    /// Without an idle timeout, an unused session lives until it expires.
    @Test func withoutAnIdleTimeoutUnusedSessionsStay() throws {
        let h = try Harness()
        let token = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        h.clock.advance(by: 300 * 24 * 3600)
        #expect(h.viewer(token: token).errors.isEmpty)
    }
}
