import Foundation
import GatehouseServer
import JSON
import ServerTestSupport
import TestSupport
import Testing

/// Signed-in devices over HTTP, on two servers sharing one database.
@Suite struct SessionsLiveTests {
    static let sessions = "query { viewer { sessions { id userAgent current } } }"
    static let revoke = "mutation Revoke($id: ID!) { revokeSession(input: {id: $id}) { ok } }"
    static let revokeOthers = "mutation { revokeOtherSessions(input: {}) { revoked } }"

    static func logIn(_ live: LiveServer, userAgent: String) throws -> String {
        let response = try live.graphQL(
            Documents.logIn, variables: Documents.credentials("alice", "larch-ridge-11"), headers: [("User-Agent", userAgent)])
        return try #require(try response.json().at("data", "logIn", "viewer", "sessionToken")?.stringValue, "\(response)")
    }

    /// The error code `viewer` answers `token` with on `live` (nil: none).
    static func viewerError(_ live: LiveServer, _ token: String) throws -> JSON? {
        try live.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", token)]).json()["errors"]?[0]?.at("extensions", "code")
    }

    @Test func devicesSeenAndEndedAcrossInstances() throws {
        let a = try LiveServer()
        let database = a.server.settings.databaseURL
        let b = try LiveServer { $0.databaseURL = database }
        let signUp = try a.graphQL(
            Documents.signUp, variables: Documents.credentials("alice", "larch-ridge-11"), headers: [("User-Agent", "Laptop/1.0")])
        let laptop = try #require(try signUp.json().at("data", "signUp", "viewer", "sessionToken")?.stringValue, "\(signUp)")
        let phone = try Self.logIn(b, userAgent: "Phone/2.0")
        let tablet = try Self.logIn(a, userAgent: String(repeating: "T", count: 300))

        // The list, newest first, with each request's User-Agent (cut to 256 characters).
        let listed = try b.graphQL(Self.sessions, headers: [("X-Parse-Session-Token", laptop)]).json()
        let list = try #require(listed.at("data", "viewer", "sessions")?.arrayValue, "\(listed)")
        #expect(list.map { $0["userAgent"] } == [.string(String(repeating: "T", count: 256)), "Phone/2.0", "Laptop/1.0"])
        #expect(list.map { $0["current"] } == [false, false, true])

        // Every instance has seen every token (cached), then a revocation on one ends it on both.
        for live in [a, b] {
            for token in [laptop, phone, tablet] { #expect(try Self.viewerError(live, token) == nil) }
        }
        let phoneId = try #require(list[1]["id"]?.stringValue)
        let revoked = try a.graphQL(Self.revoke, variables: ["id": .string(phoneId)], headers: [("X-Parse-Session-Token", laptop)])
        #expect(try revoked.json().at("data", "revokeSession", "ok") == true, "\(revoked)")
        #expect(try Self.viewerError(a, phone) == 209)
        #expect(try eventually { try Self.viewerError(b, phone) == 209 })

        let others = try b.graphQL(Self.revokeOthers, headers: [("X-Parse-Session-Token", laptop)])
        #expect(try others.json().at("data", "revokeOtherSessions", "revoked") == 1, "\(others)")
        #expect(try Self.viewerError(b, tablet) == 209)
        #expect(try eventually { try Self.viewerError(a, tablet) == 209 })
        for live in [a, b] { #expect(try Self.viewerError(live, laptop) == nil) }
    }
}
