import Auth
import Foundation
import GraphQL
import JSON
import Testing

/// The built-in profile fields `displayName` and `photoURL` (contract: profiles.md): set by
/// signUp, logInWith and updateUser, read by viewer, user and node, checked with their messages.
@Suite struct ProfileTests {
    static let signUp = """
        mutation S($input: SignUpInput!) {
          signUp(input: $input) { viewer { sessionToken user { objectId displayName photoURL } } }
        }
        """
    static let update = """
        mutation U($input: UpdateUserInput!) { updateUser(input: $input) { user { objectId displayName photoURL } } }
        """
    static let viewer = "query { viewer { user { id objectId displayName photoURL } } }"

    static func signUp(_ h: Harness, _ fields: JSONObject) -> ExecutionResult {
        var all: JSONObject = ["username": "alice", "password": .string(Harness.password)]
        for (key, value) in zip(fields.keys, fields.values) { all[key] = value }
        return h.graphql(signUp, variables: ["input": ["fields": .object(all)]])
    }

    static func update(_ h: Harness, _ id: String, _ fields: JSONObject, token: String? = nil, master: Bool = false) -> ExecutionResult {
        h.graphql(
            update, variables: ["input": ["id": .string(id), "fields": .object(fields)]], token: token,
            master: master ? Harness.masterKey : nil)
    }

    static func error(_ result: ExecutionResult) -> String? { onlyError(result).map { "\($0.code!) \($0.message)" } }

    /// The viewer's user as the owner reads it.
    static func profile(_ h: Harness, _ token: String) -> JSON? { h.graphql(viewer, token: token).data?["viewer"]?["user"] }

    @Test func signUpSetsBothAndEveryReadShowsThem() throws {
        let h = try Harness()
        let result = Self.signUp(h, ["displayName": "  Alice Liddell \n", "photoURL": "https://example.com/alice.png"])
        let viewer = try #require(result.data?["signUp"]?["viewer"], "\(result.json)")
        #expect(viewer["user"]?["displayName"] == "Alice Liddell", "kept trimmed")
        #expect(viewer["user"]?["photoURL"] == "https://example.com/alice.png")
        let token = try #require(viewer["sessionToken"]?.stringValue)
        let user = try #require(Self.profile(h, token))
        #expect(user["displayName"] == "Alice Liddell")
        #expect(user["photoURL"] == "https://example.com/alice.png")
        let id = try #require(user["id"]?.stringValue)
        let byId = h.graphql("query($id: ID!) { user(id: $id) { displayName photoURL } }", variables: ["id": .string(id)], token: token)
        #expect(byId.data?["user"] == ["displayName": "Alice Liddell", "photoURL": "https://example.com/alice.png"], "\(byId.json)")
        let node = h.graphql(
            "query($id: ID!) { node(id: $id) { ... on User { displayName photoURL } } }", variables: ["id": .string(id)],
            master: Harness.masterKey)
        #expect(node.data?["node"] == ["displayName": "Alice Liddell", "photoURL": "https://example.com/alice.png"], "\(node.json)")
    }

    @Test func aUserWithoutThemHasNull() throws {
        let h = try Harness()
        let token = try #require(try h.signedUp("bob")["sessionToken"]?.stringValue)
        let user = try #require(Self.profile(h, token))
        #expect(user["displayName"] == .null)
        #expect(user["photoURL"] == .null)
    }

    @Test func updateUserSetsChangesAndClears() throws {
        let h = try Harness()
        let viewer = try h.signedUp("carol")
        let token = try #require(viewer["sessionToken"]?.stringValue)
        let id = try #require(viewer["user"]?["objectId"]?.stringValue)
        let set = Self.update(h, id, ["displayName": "Carol", "photoURL": "https://cdn.example.com/c.jpg"], token: token)
        #expect(set.errors.isEmpty, "\(set.json)")
        #expect(set.data?["updateUser"]?["user"]?["displayName"] == "Carol")
        #expect(Self.profile(h, token)?["photoURL"] == "https://cdn.example.com/c.jpg")
        // A field not named keeps its value.
        #expect(Self.update(h, id, ["displayName": "Caroline"], token: token).errors.isEmpty)
        #expect(Self.profile(h, token)?["displayName"] == "Caroline")
        #expect(Self.profile(h, token)?["photoURL"] == "https://cdn.example.com/c.jpg")
        // null clears.
        #expect(Self.update(h, id, ["photoURL": .null], token: token).errors.isEmpty)
        #expect(Self.profile(h, token)?["photoURL"] == .null)
        #expect(Self.profile(h, token)?["displayName"] == "Caroline")
        // The master key may change another's.
        #expect(Self.update(h, id, ["displayName": .null, "photoURL": "http://localhost:8080/me.png"], master: true).errors.isEmpty)
        #expect(Self.profile(h, token)?["displayName"] == .null)
        #expect(Self.profile(h, token)?["photoURL"] == "http://localhost:8080/me.png")
    }

    @Test func logInWithSetsThemOnTheNewUser() throws {
        let h = try Harness()
        let result = ProviderLogInTests.logInWith(
            h, ["anonymous": ["id": "device-9"]], fields: ["displayName": "Guest Nine", "photoURL": "https://example.com/9.png"])
        let token = try #require(result.data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue, "\(result.json)")
        #expect(Self.profile(h, token)?["displayName"] == "Guest Nine")
        #expect(Self.profile(h, token)?["photoURL"] == "https://example.com/9.png")
        let refused = ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-10"]], fields: ["displayName": " "])
        #expect(Self.error(refused) == "142 displayName must not be empty.")
        #expect(try h.count("SELECT count(*)::int FROM users") == 1, "no user made")
    }

    struct Case: Sendable {
        let name: String
        let fields: JSONObject
        /// "code message", or nil when accepted.
        let error: String?
        init(_ name: String, _ fields: JSONObject, _ error: String?) {
            self.name = name
            self.fields = fields
            self.error = error
        }
    }

    static let https = "142 photoURL must be an https URL."
    /// Each rule at its limit and one past it.
    static let cases: [Case] = [
        Case("displayName 256 characters", ["displayName": .string(String(repeating: "é", count: 256))], nil),
        Case("displayName 256 characters with spaces around", ["displayName": .string("  " + String(repeating: "a", count: 256) + "\t")], nil),
        Case("displayName 257 characters", ["displayName": .string(String(repeating: "é", count: 257))],
             "142 displayName is too long (at most 256 characters)."),
        Case("displayName 1 character", ["displayName": "x"], nil),
        Case("displayName empty", ["displayName": ""], "142 displayName must not be empty."),
        Case("displayName white space only", ["displayName": " \n\t "], "142 displayName must not be empty."),
        Case("displayName with a NUL", ["displayName": "a\u{0}b"], "142 displayName must not contain a NUL character."),
        Case("photoURL https", ["photoURL": "https://example.com/a.png?size=64#x"], nil),
        Case("photoURL HTTPS in capitals", ["photoURL": "HTTPS://EXAMPLE.COM/A.PNG"], nil),
        Case("photoURL http", ["photoURL": "http://example.com/a.png"], https),
        Case("photoURL http on localhost", ["photoURL": "http://localhost:8080/a.png"], nil),
        Case("photoURL http on 127.0.0.1", ["photoURL": "http://127.0.0.1/a.png"], nil),
        Case("photoURL http on ::1", ["photoURL": "http://[::1]:1337/a.png"], nil),
        Case("photoURL http on a host named like localhost", ["photoURL": "http://localhost.example.com/a.png"], https),
        Case("photoURL ftp", ["photoURL": "ftp://example.com/a.png"], https),
        Case("photoURL javascript", ["photoURL": "javascript:alert(1)"], https),
        Case("photoURL data", ["photoURL": "data:image/png;base64,AAAA"], https),
        Case("photoURL relative", ["photoURL": "/avatars/a.png"], https),
        Case("photoURL without a host", ["photoURL": "https:///a.png"], https),
        Case("photoURL with a space", ["photoURL": "https://example.com/a b.png"], https),
        Case("photoURL empty", ["photoURL": ""], https),
        Case("photoURL 2048 bytes", ["photoURL": .string("https://example.com/" + String(repeating: "a", count: 2048 - 20))], nil),
        Case("photoURL 2049 bytes", ["photoURL": .string("https://example.com/" + String(repeating: "a", count: 2049 - 20))],
             "142 photoURL is too long (at most 2048 bytes)."),
    ]

    /// One harness for every case (a database each would be dozens at once).
    @Test func signUpChecks() throws {
        let h = try Harness()
        for (index, test) in Self.cases.enumerated() {
            var fields = test.fields
            fields["username"] = .string("user\(index)")
            let result = Self.signUp(h, fields)
            #expect(Self.error(result) == test.error, "\(test.name): \(result.json)")
            #expect(try h.count("SELECT count(*)::int FROM users WHERE username = \("user\(index)")") == (test.error == nil ? 1 : 0),
                    "\(test.name)")
        }
    }

    @Test func updateUserChecks() throws {
        let h = try Harness()
        for (index, test) in Self.cases.enumerated() {
            let viewer = try h.signedUp("user\(index)")
            let token = try #require(viewer["sessionToken"]?.stringValue)
            let id = try #require(viewer["user"]?["objectId"]?.stringValue)
            #expect(Self.update(h, id, ["displayName": "Before", "photoURL": "https://example.com/before.png"], token: token).errors.isEmpty)
            let result = Self.update(h, id, test.fields, token: token)
            #expect(Self.error(result) == test.error, "\(test.name): \(result.json)")
            if test.error != nil {
                #expect(Self.profile(h, token)?["displayName"] == "Before", "\(test.name): nothing changed")
                #expect(Self.profile(h, token)?["photoURL"] == "https://example.com/before.png", "\(test.name): nothing changed")
            }
        }
    }

    /// A refused profile field refuses the whole update: the username beside it is not changed.
    @Test func aRefusedFieldChangesNothingElse() throws {
        let h = try Harness()
        let viewer = try h.signedUp("erin")
        let token = try #require(viewer["sessionToken"]?.stringValue)
        let id = try #require(viewer["user"]?["objectId"]?.stringValue)
        let result = Self.update(h, id, ["username": "erin2", "photoURL": "http://example.com/x.png"], token: token)
        #expect(Self.error(result) == Self.https)
        #expect(h.viewer(token: token).data?["viewer"]?["user"]?["username"] == "erin")
    }
}
