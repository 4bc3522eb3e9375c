import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Signatures
import Testing

/// Sessions: what is stored, expiry, stale tokens, logOut.
@Suite struct SessionTests {
    /// Only the SHA-256 digest of a token is stored: no column of any row holds the token.
    @Test func onlyTheDigestIsStored() throws {
        let h = try Harness()
        let signUpToken = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let logInToken = try h.loggedIn("alice", installationId: "device-1")
        let dump = try h.rows("SELECT row_to_json(s)::text FROM sessions s UNION ALL SELECT row_to_json(u)::text FROM users u")
            .map { try $0.decode(String.self, at: 0) }
        #expect(dump.count == 3)
        for token in [signUpToken, logInToken] {
            let hex = token.dropFirst(2)
            #expect(!dump.contains { $0.contains(token) || $0.contains(hex) })
            #expect(try h.count("SELECT count(*) FROM sessions WHERE token_digest = \(SHA256.digest(token))") == 1)
        }
        let digests = try h.rows("SELECT token_digest FROM sessions").map { try $0.decode([UInt8].self, at: 0) }
        #expect(Set(digests) == [SHA256.digest(signUpToken), SHA256.digest(logInToken)])
    }

    @Test func createdWithRecordsTheAction() throws {
        let h = try Harness()
        let signUpToken = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let logInToken = try h.loggedIn("alice")
        for (token, action) in [(signUpToken, "signup"), (logInToken, "login")] {
            let text = try #require(try h.rows("SELECT created_with::text FROM sessions WHERE token_digest = \(SHA256.digest(token))")
                .first?.decode(String.self, at: 0))
            let stored = try JSON.parse(text)
            #expect(stored.objectValue?.count == 3, "\(text)")
            #expect(stored["action"] == .string(action) && stored["authProvider"] == "password" && stored["factors"] == ["password"], "\(text)")
        }
    }

    @Test(arguments: [nil, 3600, 86_400 * 30] as [Int?])
    func expiresAtIsCreatedAtPlusTheSessionLength(_ length: Int?) throws {
        var configuration = AuthConfiguration()
        if let length { configuration.sessionLength = length }
        let h = try Harness(configuration: configuration)
        _ = try h.signedUp("alice")
        _ = try h.loggedIn("alice")
        let rows = try h.rows("SELECT created_at, expires_at, updated_at FROM sessions")
        #expect(rows.count == 2)
        for row in rows {
            let created = try row.decode(Date.self, at: 0), expires = try row.decode(Date.self, at: 1)
            #expect(expires.timeIntervalSince(created) == Double(length ?? 365 * 86_400))
            #expect(try row.decode(Date.self, at: 2) == created)
            #expect(abs(created.timeIntervalSinceNow) < 60)
        }
    }

    @Test func expiredByTheClock() throws {
        let h = try Harness(configuration: AuthConfiguration(sessionLength: 1))
        let token = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        #expect(h.viewer(token: token).errors.isEmpty)
        h.clock.advance(by: 2)
        let result = h.viewer(token: token)
        let error = try #require(onlyError(result), "\(result.json)")
        #expect(error.code == 209)
        #expect(error.message == "Session token is expired.")
    }

    @Test func expiredInTheTable() throws {
        let h = try Harness()
        let token = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let other = try h.loggedIn("alice")
        try h.execute("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE token_digest = \(SHA256.digest(token))")
        let result = h.viewer(token: token)
        #expect(onlyError(result)?.code == 209)
        #expect(onlyError(result)?.message == "Session token is expired.")
        #expect(h.viewer(token: other).errors.isEmpty)
    }

    enum Stale: String, Sendable, CaseIterable { case unknown, loggedOut, expired }
    enum Operation: String, Sendable, CaseIterable { case health, signUp, logIn, logOut }

    /// Better than Parse: a stale token fails only fields that need a session.
    @Test(arguments: Stale.allCases, Operation.allCases)
    func staleTokenDoesNotBreakOtherFields(_ stale: Stale, _ operation: Operation) throws {
        let h = try Harness(configuration: AuthConfiguration(sessionLength: 60))
        let token: String
        switch stale {
        case .unknown: token = "r:" + String(repeating: "ab", count: 16)
        case .loggedOut:
            token = try #require(try h.signedUp("old")["sessionToken"]?.stringValue)
            #expect(h.logOut(token: token).errors.isEmpty)
        case .expired:
            token = try #require(try h.signedUp("old")["sessionToken"]?.stringValue)
            h.clock.advance(by: 120)
        }
        _ = try h.signedUp("alice")
        let result: ExecutionResult
        switch operation {
        case .health: result = h.graphql("{ health }", token: token)
        case .signUp: result = h.signUp(["username": "bob", "password": "larch-ridge-11"], token: token)
        case .logIn: result = h.logIn("alice", Harness.password, token: token)
        case .logOut: result = h.logOut(token: token)
        }
        #expect(result.errors.isEmpty, "\(result.json)")
        switch operation {
        case .health: #expect(result.data == ["health": true])
        case .signUp: #expect(result.data?["signUp"]?["viewer"]?["user"]?["username"] == "bob")
        case .logIn: #expect(result.data?["logIn"]?["viewer"]?["user"]?["username"] == "alice")
        case .logOut: #expect(result.data == ["logOut": ["ok": true, "clientMutationId": .null]])
        }
        // The stale token itself still fails where a session is needed.
        #expect(onlyError(h.viewer(token: token))?.code == 209)
    }

    @Test func logOutDeletesOnlyTheCallersSession() throws {
        let h = try Harness()
        let first = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let second = try h.loggedIn("alice")
        let bob = try #require(try h.signedUp("bob")["sessionToken"]?.stringValue)
        let result = h.logOut(token: first)
        #expect(result.errors.isEmpty, "\(result.json)")
        #expect(result.data == ["logOut": ["ok": true, "clientMutationId": .null]])
        #expect(try h.count("SELECT count(*) FROM sessions") == 2)
        #expect(try h.count("SELECT count(*) FROM sessions WHERE token_digest = \(SHA256.digest(first))") == 0)
        let after = h.viewer(token: first)
        #expect(onlyError(after)?.code == 209)
        #expect(onlyError(after)?.message == "Invalid session token")
        #expect(h.viewer(token: second).errors.isEmpty)
        #expect(h.viewer(token: bob).errors.isEmpty)
        #expect(try h.count("SELECT count(*) FROM users") == 2)
    }

    @Test func logOutIsIdempotent() throws {
        let h = try Harness()
        let token = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let other = try h.loggedIn("alice")
        for _ in 0..<3 {
            let result = h.logOut(token: token)
            #expect(result.errors.isEmpty, "\(result.json)")
            #expect(result.data?["logOut"]?["ok"] == true)
        }
        #expect(try h.count("SELECT count(*) FROM sessions") == 1)
        #expect(h.viewer(token: other).errors.isEmpty)
    }

    @Test(arguments: [nil, ""] as [String?])
    func logOutWithoutATokenSucceedsAndDeletesNothing(_ token: String?) throws {
        let h = try Harness()
        let alice = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let result = h.logOut(token: token, clientMutationId: "x")
        #expect(result.errors.isEmpty, "\(result.json)")
        #expect(result.data == ["logOut": ["ok": true, "clientMutationId": "x"]])
        #expect(try h.count("SELECT count(*) FROM sessions") == 1)
        #expect(h.viewer(token: alice).errors.isEmpty)
    }
}
