@testable import Auth
import Foundation
import GraphQL
import JSON
import Sodium
import Signatures
import TestSupport
import Testing

/// The sessions a user can see and end: `viewer { session, sessions }`, `node` for a Session,
/// `revokeSession`, `revokeOtherSessions` (contract: accounts.md).
@Suite struct UserSessionsTests {
    static let sessionFields = """
        id objectId createdAt updatedAt expiresAt lastUsedAt installationId createdWith userAgent current
        """
    static let sessions = """
        query Sessions { viewer { session { \(sessionFields) } sessions { \(sessionFields) } } }
        """
    static let node = """
        query Node($id: ID!) { node(id: $id) { id ... on Session { objectId current } } }
        """
    static let revokeSession = """
        mutation Revoke($input: RevokeSessionInput!) { revokeSession(input: $input) { ok clientMutationId } }
        """
    static let revokeOtherSessions = """
        mutation RevokeOthers($input: RevokeOtherSessionsInput!) { revokeOtherSessions(input: $input) { revoked clientMutationId } }
        """

    /// The objectId of the session of `token`.
    static func sessionId(_ h: Harness, _ token: String) throws -> String {
        let result = h.graphql("query { viewer { session { objectId } } }", token: token)
        return try #require(result.data?["viewer"]?["session"]?["objectId"]?.stringValue, "\(result.json)")
    }

    static func revoke(_ h: Harness, _ id: String, token: String?) -> ExecutionResult {
        h.graphql(revokeSession, variables: ["input": ["id": .string(id), "clientMutationId": "m1"]], token: token)
    }

    static func expire(_ h: Harness, _ token: String) throws {
        try h.execute("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE token_digest = \(SHA256.digest(token))")
    }

    // MARK: Listing

    /// Newest first, `current` only for the caller's, without other users' or expired sessions.
    @Test func listsTheUsersLiveSessionsNewestFirst() throws {
        let h = try Harness()
        let first = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        h.clock.advance(by: 1)
        let second = try h.loggedIn("alice", installationId: "phone")
        h.clock.advance(by: 1)
        let third = try h.loggedIn("alice")
        h.clock.advance(by: 1)
        let expired = try h.loggedIn("alice")
        try Self.expire(h, expired)
        _ = try h.signedUp("bob")

        let result = h.graphql(Self.sessions, token: second)
        #expect(result.errors.isEmpty, "\(result.json)")
        let list = try #require(result.data?["viewer"]?["sessions"]?.arrayValue)
        let ids = try [third, second, first].map { try Self.sessionId(h, $0) }
        #expect(list.map { $0["objectId"]?.stringValue } == ids)
        #expect(list.map { $0["current"] } == [false, true, false])
        #expect(list.map { $0["id"]?.stringValue } == ids.map { GlobalID.encode(type: "_Session", id: $0) })
        #expect(list.map { $0["installationId"] } == [.null, "phone", .null])
        #expect(list.map { $0["createdWith"] } == [
            ["action": "login", "authProvider": "password", "factors": ["password"]], ["action": "login", "authProvider": "password", "factors": ["password"]],
            ["action": "signup", "authProvider": "password", "factors": ["password"]],
        ])
        let own = try #require(result.data?["viewer"]?["session"])
        #expect(own == list[1], "viewer.session is the caller's entry of the list")
        for field in ["createdAt", "updatedAt", "expiresAt", "lastUsedAt"] {
            #expect(own[field]?.stringValue?.hasSuffix("Z") == true, "\(field): \(own)")
        }
    }

    @Test func sessionsNeedASession() throws {
        let h = try Harness()
        _ = try h.signedUp("alice")
        for token in [nil, "r:" + String(repeating: "0", count: 32)] as [String?] {
            let error = try #require(onlyError(h.graphql(Self.sessions, token: token)))
            #expect(error.code == 209 && error.message == "Invalid session token")
        }
    }

    /// The User-Agent of the request that created a session, cut to 256 characters.
    @Test(arguments: [nil, "Gatehouse-Test/1.0 (Linux)", String(repeating: "é", count: 300)] as [String?])
    func recordsTheUserAgent(_ userAgent: String?) throws {
        let h = try Harness()
        let request = AuthRequest(clientAddress: "192.0.2.1", userAgent: userAgent)
        let grant = try h.auth.sessions.signUp(SignUpFields(username: "alice", password: Harness.password), request: request)
        let expected = userAgent.map { String($0.prefix(Session.userAgentLimit)) }
        #expect(grant.session.userAgent == expected)
        let stored = try h.rows("SELECT user_agent FROM sessions").map { try $0.decode(String?.self, at: 0) }
        #expect(stored == [expected])
        let logIn = try h.auth.sessions.logIn(username: "alice", password: Harness.password, hasAuthData: false, request: request)
        #expect(try h.auth.sessions.sessions(of: logIn).map(\.userAgent) == [expected, expected])
        let listed = h.graphql(Self.sessions, token: logIn.sessionToken).data?["viewer"]?["sessions"]?.arrayValue
        #expect(listed?.map { $0["userAgent"] } == [expected.map(JSON.string) ?? .null, expected.map(JSON.string) ?? .null])
    }

    // MARK: node

    @Test func nodeResolvesTheUsersOwnSessionsOnly() throws {
        let h = try Harness()
        let mine = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let other = try h.loggedIn("alice")
        let expired = try h.loggedIn("alice")
        try Self.expire(h, expired)
        let bob = try #require(try h.signedUp("bob")["sessionToken"]?.stringValue)
        for (token, current) in [(mine, true), (other, false)] {
            let id = GlobalID.encode(type: "_Session", id: try Self.sessionId(h, token))
            let result = h.graphql(Self.node, variables: ["id": .string(id)], token: mine)
            #expect(result.errors.isEmpty, "\(result.json)")
            #expect(result.data?["node"] == ["id": .string(id), "objectId": .string(try Self.sessionId(h, token)), "current": .bool(current)])
        }
        let bobsId = GlobalID.encode(type: "_Session", id: try Self.sessionId(h, bob))
        let expiredId = try #require(try h.rows("SELECT object_id FROM sessions WHERE token_digest = \(SHA256.digest(expired))")
            .first?.decode(String.self, at: 0))
        for (id, token) in [
            (bobsId, mine), (GlobalID.encode(type: "_Session", id: expiredId), mine),
            (GlobalID.encode(type: "_Session", id: "aaaaaaaaaa"), mine), (bobsId, nil),
        ] as [(String, String?)] {
            let result = h.graphql(Self.node, variables: ["id": .string(id)], token: token)
            let error = try #require(onlyError(result), "\(result.json)")
            #expect(error.code == 101 && error.message == "Object not found.")
        }
    }

    // MARK: revokeSession

    /// Another device's session, by global id or objectId: its token answers 209 at once; the
    /// caller's and other users' sessions stay.
    @Test(arguments: [true, false])
    func revokeSessionEndsAnotherDevice(byGlobalId: Bool) throws {
        let h = try Harness()
        let mine = try #require(try h.signedUp("alice", installationId: "laptop")["sessionToken"]?.stringValue)
        let phone = try h.loggedIn("alice", installationId: "phone")
        let bob = try #require(try h.signedUp("bob")["sessionToken"]?.stringValue)
        let objectId = try Self.sessionId(h, phone)
        let result = Self.revoke(h, byGlobalId ? GlobalID.encode(type: "_Session", id: objectId) : objectId, token: mine)
        #expect(result.errors.isEmpty, "\(result.json)")
        #expect(result.data == ["revokeSession": ["ok": true, "clientMutationId": "m1"]])
        let ended = try #require(onlyError(h.viewer(token: phone)))
        #expect(ended.code == 209 && ended.message == "Invalid session token")
        #expect(h.viewer(token: mine).errors.isEmpty)
        #expect(h.viewer(token: bob).errors.isEmpty)
        #expect(try h.count("SELECT count(*) FROM sessions") == 2)
        // Revoking it again: no longer a live session.
        #expect(onlyError(Self.revoke(h, objectId, token: mine))?.code == 101)
        // The device's installation is forgotten (no more owner's exemption for it); the caller's stays known.
        #expect(try h.count("SELECT count(*) FROM known_installations WHERE installation_digest = \(SHA256.digest("phone"))") == 0)
        #expect(try h.count("SELECT count(*) FROM known_installations WHERE installation_digest = \(SHA256.digest("laptop"))") == 1)
    }

    @Test func revokeSessionMayEndTheCallersOwn() throws {
        let h = try Harness()
        let mine = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let other = try h.loggedIn("alice")
        let result = Self.revoke(h, GlobalID.encode(type: "_Session", id: try Self.sessionId(h, mine)), token: mine)
        #expect(result.data?["revokeSession"]?["ok"] == true, "\(result.json)")
        #expect(onlyError(h.viewer(token: mine))?.code == 209)
        #expect(h.viewer(token: other).errors.isEmpty)
    }

    /// Another user's session, an expired one, an unknown or malformed id, or a user's id: 101,
    /// and nothing is deleted.
    @Test func revokeSessionRefusesWhatIsNotALiveSessionOfTheCaller() throws {
        let h = try Harness()
        let aliceViewer = try h.signedUp("alice")
        let mine = try #require(aliceViewer["sessionToken"]?.stringValue)
        let expired = try h.loggedIn("alice")
        try Self.expire(h, expired)
        let bob = try #require(try h.signedUp("bob")["sessionToken"]?.stringValue)
        let expiredId = try #require(try h.rows("SELECT object_id FROM sessions WHERE token_digest = \(SHA256.digest(expired))")
            .first?.decode(String.self, at: 0))
        let bobsId = try Self.sessionId(h, bob)
        for id in [
            bobsId, GlobalID.encode(type: "_Session", id: bobsId), expiredId, "aaaaaaaaaa", "", "not base64 !",
            try #require(aliceViewer["user"]?["id"]?.stringValue),
        ] {
            let error = try #require(onlyError(Self.revoke(h, id, token: mine)), "\(id)")
            #expect(error.code == 101 && error.message == "Object not found.", "\(id)")
        }
        #expect(try h.count("SELECT count(*) FROM sessions") == 3)
        #expect(h.viewer(token: bob).errors.isEmpty)
    }

    @Test func revokeSessionNeedsASession() throws {
        let h = try Harness()
        let bob = try #require(try h.signedUp("bob")["sessionToken"]?.stringValue)
        let id = try Self.sessionId(h, bob)
        for token in [nil, "r:" + String(repeating: "0", count: 32)] as [String?] {
            let error = try #require(onlyError(Self.revoke(h, id, token: token)))
            #expect(error.code == 209 && error.message == "Invalid session token")
        }
        #expect(h.viewer(token: bob).errors.isEmpty)
    }

    // MARK: revokeOtherSessions

    /// Every other session of the user ends (expired ones are deleted, not counted); the caller's
    /// and other users' stay.
    @Test func revokeOtherSessionsEndsAllButTheCallers() throws {
        let h = try Harness()
        let first = try #require(try h.signedUp("alice")["sessionToken"]?.stringValue)
        let mine = try h.loggedIn("alice", installationId: "laptop")
        let third = try h.loggedIn("alice", installationId: "phone")
        let expired = try h.loggedIn("alice")
        try Self.expire(h, expired)
        let bob = try #require(try h.signedUp("bob")["sessionToken"]?.stringValue)
        let result = h.graphql(Self.revokeOtherSessions, variables: ["input": ["clientMutationId": "m2"]], token: mine)
        #expect(result.errors.isEmpty, "\(result.json)")
        #expect(result.data == ["revokeOtherSessions": ["revoked": 2, "clientMutationId": "m2"]])
        for token in [first, third, expired] { #expect(onlyError(h.viewer(token: token))?.code == 209) }
        #expect(h.viewer(token: mine).errors.isEmpty)
        #expect(h.viewer(token: bob).errors.isEmpty)
        #expect(try h.count("SELECT count(*) FROM sessions") == 2)
        let list = h.graphql(Self.sessions, token: mine).data?["viewer"]?["sessions"]?.arrayValue
        #expect(list?.map { $0["current"] } == [true])
        let again = h.graphql(Self.revokeOtherSessions, variables: ["input": [:]], token: mine)
        #expect(again.data == ["revokeOtherSessions": ["revoked": 0, "clientMutationId": .null]], "\(again.json)")
    }

    @Test func revokeOtherSessionsNeedsASession() throws {
        let h = try Harness()
        let bob = try #require(try h.signedUp("bob")["sessionToken"]?.stringValue)
        _ = try h.loggedIn("bob")
        for token in [nil, "r:" + String(repeating: "0", count: 32)] as [String?] {
            let error = try #require(onlyError(h.graphql(Self.revokeOtherSessions, variables: ["input": [:]], token: token)))
            #expect(error.code == 209 && error.message == "Invalid session token")
        }
        #expect(try h.count("SELECT count(*) FROM sessions") == 2)
        #expect(h.viewer(token: bob).errors.isEmpty)
    }
}
