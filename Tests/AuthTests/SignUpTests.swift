import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Testing

/// signUp through GraphQL: the token, the user fields, ACLs, emailVerified, uniqueness.
@Suite struct SignUpTests {
    static var isoMilliseconds: Regex<Substring> { #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/# }

    @Test func returnsATokenAndTheUser() throws {
        let h = try Harness()
        let before = Date().addingTimeInterval(-1)
        let result = h.signUp(["username": "Alice", "password": "larch-ridge-11", "email": "alice@example.com"])
        #expect(result.errors.isEmpty, "\(result.json)")
        let viewer = try #require(result.data?["signUp"]?["viewer"])
        let token = try #require(viewer["sessionToken"]?.stringValue)
        #expect(token.wholeMatch(of: #/r:[0-9a-f]{32}/#) != nil, "\(token)")
        let user = try #require(viewer["user"])
        let objectId = try #require(user["objectId"]?.stringValue)
        #expect(objectId.wholeMatch(of: #/[A-Za-z0-9]{10}/#) != nil, "\(objectId)")
        #expect(user["id"]?.stringValue == Data("_User:\(objectId)".utf8).base64EncodedString())
        #expect(user["username"] == "Alice")
        #expect(user["email"] == "alice@example.com")
        #expect(user["emailVerified"] == false)
        #expect(user["authData"] == .null)
        #expect(user["authDataResponse"] == .null)
        let createdAt = try #require(user["createdAt"]?.stringValue)
        #expect(createdAt.wholeMatch(of: Self.isoMilliseconds) != nil, "\(createdAt)")
        #expect(user["updatedAt"]?.stringValue == createdAt)
        let created = try #require(ISO8601DateFormatter.withMilliseconds.date(from: createdAt))
        #expect(created >= before && created <= Date().addingTimeInterval(1))
        // Default ACL: the user itself reads and writes; nothing for roles or the public.
        #expect(user["ACL"] == [
            "users": [["userId": user["id"]!, "read": true, "write": true]],
            "roles": .null, "public": .null,
        ])
        // What was stored reads back the same through viewer.
        let stored = h.viewer(token: token)
        #expect(stored.errors.isEmpty, "\(stored.json)")
        #expect(stored.data?["viewer"]?["user"] == user)
        #expect(stored.data?["viewer"]?["sessionToken"]?.stringValue == token)
        let row = try #require(try h.rows("SELECT username, email, email_verified, acl::text FROM users").first)
        #expect(try row.decode(String.self, at: 0) == "Alice")
        #expect(try row.decode(Bool.self, at: 2) == false)
        #expect(try JSON.parse(try row.decode(String.self, at: 3)) == [objectId: ["read": true, "write": true]])
    }

    @Test func objectIdsAndTokensAreFreshForEachUser() throws {
        let h = try Harness()
        let a = try h.signedUp("a"), b = try h.signedUp("b")
        #expect(a["user"]?["objectId"] != b["user"]?["objectId"])
        #expect(a["sessionToken"] != b["sessionToken"])
    }

    struct ACLCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// `ACL` input; `OTHER_GID` / `OTHER_OID` stand for the other user's global / object id.
        let input: String
        /// Expected `ACL.users` besides the owner's read-write entry: (OTHER_GID, read, write).
        let others: [(read: Bool, write: Bool)]
        let roles: String
        let publicAccess: String
        var testDescription: String { name }
    }

    static let aclCases: [ACLCase] = [
        ACLCase(name: "empty ACL: default", input: "{}", others: [], roles: "null", publicAccess: "null"),
        ACLCase(name: "another user by global id", input: #"{"users":[{"userId":"OTHER_GID","read":true,"write":false}]}"#,
                others: [(true, false)], roles: "null", publicAccess: "null"),
        ACLCase(name: "another user by object id", input: #"{"users":[{"userId":"OTHER_OID","read":true,"write":true}]}"#,
                others: [(true, true)], roles: "null", publicAccess: "null"),
        ACLCase(name: "a role", input: #"{"roles":[{"roleName":"admin","read":true,"write":false}]}"#,
                others: [], roles: #"[{"roleName":"admin","read":true,"write":false}]"#, publicAccess: "null"),
        ACLCase(name: "public read", input: #"{"public":{"read":true,"write":false}}"#,
                others: [], roles: "null", publicAccess: #"{"read":true,"write":false}"#),
        ACLCase(name: "everything",
                input: #"{"users":[{"userId":"OTHER_GID","read":false,"write":true}],"roles":[{"roleName":"mods","read":true,"write":true}],"public":{"read":true,"write":true}}"#,
                others: [(false, true)], roles: #"[{"roleName":"mods","read":true,"write":true}]"#,
                publicAccess: #"{"read":true,"write":true}"#),
    ]

    /// A given ACL is stored with the owner's entry added; user ids come back as global ids.
    @Test(arguments: aclCases)
    func givenACL(_ row: ACLCase) throws {
        let h = try Harness()
        let other = try #require(try h.signedUp("other")["user"])
        let otherGID = try #require(other["id"]?.stringValue), otherOID = try #require(other["objectId"]?.stringValue)
        let input = try JSON.parse(row.input.replacingOccurrences(of: "OTHER_GID", with: otherGID)
            .replacingOccurrences(of: "OTHER_OID", with: otherOID))
        let result = h.signUp(["username": "bob", "password": "larch-ridge-11", "ACL": input])
        #expect(result.errors.isEmpty, "\(result.json)")
        let user = try #require(result.data?["signUp"]?["viewer"]?["user"])
        let token = try #require(result.data?["signUp"]?["viewer"]?["sessionToken"]?.stringValue)
        let selfGID = try #require(user["id"])
        var expectedUsers: [JSON] = [["userId": selfGID, "read": true, "write": true]]
        for access in row.others {
            expectedUsers.append(["userId": .string(otherGID), "read": .bool(access.read), "write": .bool(access.write)])
        }
        func sortedUsers(_ acl: JSON?) -> [JSON]? {
            acl?["users"]?.arrayValue?.sorted { ($0["userId"]?.stringValue ?? "") < ($1["userId"]?.stringValue ?? "") }
        }
        let expectedSorted = expectedUsers.sorted { ($0["userId"]?.stringValue ?? "") < ($1["userId"]?.stringValue ?? "") }
        let stored = h.viewer(token: token).data?["viewer"]?["user"]
        for (source, acl) in [("signUp", user["ACL"]), ("viewer", stored?["ACL"])] {
            #expect(sortedUsers(acl) == expectedSorted, "\(source): \(acl?.description ?? "nil")")
            #expect(acl?["roles"] == (try JSON.parse(row.roles)), "\(source)")
            #expect(acl?["public"] == (try JSON.parse(row.publicAccess)), "\(source)")
        }
    }

    /// Only the master key may set emailVerified, to either value.
    @Test(arguments: [true, false])
    func emailVerifiedWithTheMasterKey(_ verified: Bool) throws {
        let h = try Harness()
        let result = h.signUp(
            ["username": "bob", "password": "larch-ridge-11", "email": "bob@example.com", "emailVerified": .bool(verified)],
            master: Harness.masterKey)
        #expect(result.errors.isEmpty, "\(result.json)")
        #expect(result.data?["signUp"]?["viewer"]?["user"]?["emailVerified"] == .bool(verified))
        #expect(try h.rows("SELECT email_verified FROM users").first?.decode(Bool.self, at: 0) == verified)
    }

    /// The master key is not needed for sign-up itself, and presenting it without
    /// emailVerified still gives false.
    @Test func masterKeyWithoutEmailVerifiedGivesFalse() throws {
        let h = try Harness()
        let result = h.signUp(["username": "bob", "password": "larch-ridge-11"], master: Harness.masterKey)
        #expect(result.data?["signUp"]?["viewer"]?["user"]?["emailVerified"] == false, "\(result.json)")
    }

    /// No master key configured: any key is wrong.
    @Test func emailVerifiedWhenNoMasterKeyIsConfigured() throws {
        let h = try Harness(configuration: AuthConfiguration(masterKey: nil))
        let result = h.signUp(["username": "bob", "password": "larch-ridge-11", "emailVerified": true], master: "anything")
        #expect(onlyError(result)?.code == 119, "\(result.json)")
    }

    @Test(arguments: [("alice", "alice"), ("alice", "ALICE"), ("Alice", "aLiCe"), ("bob_1", "BOB_1")])
    func usernamesAreUniqueIgnoringCase(_ first: String, _ second: String) throws {
        let h = try Harness()
        let a = try h.signedUp(first)
        #expect(a["user"]?["username"] == .string(first))  // stored as given
        let result = h.signUp(["username": .string(second), "password": "larch-ridge-11"])
        #expect(onlyError(result)?.code == 202, "\(result.json)")
        #expect(try h.count("SELECT count(*) FROM users") == 1)
        #expect(try h.count("SELECT count(*) FROM sessions") == 1)
    }

    @Test(arguments: [("a@example.com", "a@example.com"), ("a@example.com", "A@EXAMPLE.COM"), ("Bob@Mail.Example", "bob@mail.example")])
    func emailsAreUniqueIgnoringCase(_ first: String, _ second: String) throws {
        let h = try Harness()
        let a = try h.signedUp("first", email: first)
        #expect(a["user"]?["email"] == .string(first))
        let result = h.signUp(["username": "second", "password": "larch-ridge-11", "email": .string(second)])
        #expect(onlyError(result)?.code == 203, "\(result.json)")
        #expect(try h.count("SELECT count(*) FROM users") == 1)
    }

    @Test func usersWithoutEmailDoNotCollide() throws {
        let h = try Harness()
        _ = try h.signedUp("first")
        _ = try h.signedUp("second")
        #expect(try h.count("SELECT count(*) FROM users WHERE email IS NULL") == 2)
    }

    enum Operation: String, Sendable, CaseIterable { case signUp, logIn, logOut }

    /// clientMutationId is echoed on every payload, and null when not given.
    @Test(arguments: Operation.allCases, ["cmid-42", nil] as [String?])
    func clientMutationIdIsEchoed(_ operation: Operation, _ id: String?) throws {
        let h = try Harness()
        let result: ExecutionResult
        switch operation {
        case .signUp: result = h.signUp(["username": "bob", "password": "larch-ridge-11"], clientMutationId: id)
        case .logIn:
            _ = try h.signedUp("bob")
            result = h.logIn("bob", Harness.password, clientMutationId: id)
        case .logOut:
            let token = try #require(try h.signedUp("bob")["sessionToken"]?.stringValue)
            result = h.logOut(token: token, clientMutationId: id)
        }
        #expect(result.errors.isEmpty, "\(result.json)")
        #expect(result.data?[operation.rawValue]?["clientMutationId"] == id.map(JSON.string) ?? .null, "\(result.json)")
    }
}

extension ISO8601DateFormatter {
    static var withMilliseconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
