import Foundation
import GatehouseClient
import JSON
import ServerTestSupport
import Synchronization
import Testing
import TestSupport

/// The profile through GatehouseAuth: the display name and photo against an in-process server,
/// and how the SDK learns the fields an app declares, against a stand-in server
/// (``StandInGraphQLServer``) whose schema can change under it.
@Suite(.timeLimit(.minutes(2)))
struct GatehouseAuthProfileTests {
    func client(_ url: URL, store: any SessionStore = MemorySessionStore()) throws -> GatehouseAuth {
        try GatehouseAuth(configuration: GatehouseConfiguration(serverURL: url), store: store)
    }

    @Test func theDisplayNameAndPhotoAreSetKeptAndCleared() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let store = MemorySessionStore()
        let auth = try client(server.url, store: store)
        let signedUp = try await auth.signUp(username: "alice", password: "larch-ridge-11")
        #expect(signedUp.displayName == nil && signedUp.photoURL == nil && signedUp.fields.isEmpty)
        var changes = auth.authStateChanges.makeAsyncIterator()
        #expect(await changes.next() == .some(signedUp))

        let photo = try #require(URL(string: "https://example.com/alice.png"))
        let named = try await auth.updateProfile(displayName: "  Alice Liddell\n", photoURL: photo)
        #expect(named.displayName == "Alice Liddell")  // trimmed by the server
        #expect(named.photoURL == photo)
        #expect(await changes.next() == .some(named))
        #expect(auth.currentUser == named)

        // nil leaves a field as it is.
        let loopback = try #require(URL(string: "http://127.0.0.1:8080/alice.png"))
        let rePhotographed = try await auth.updateProfile(photoURL: loopback)
        #expect(rePhotographed.displayName == "Alice Liddell")
        #expect(rePhotographed.photoURL == loopback)
        #expect(await changes.next() == .some(rePhotographed))
        #expect(try await auth.updateProfile() == rePhotographed)

        // Kept on the server and in the store.
        #expect(try await client(server.url).logIn(username: "alice", password: "larch-ridge-11").displayName == "Alice Liddell")
        #expect(try client(server.url, store: store).currentUser == rePhotographed)

        let cleared = try await auth.clearProfile([.displayName])
        #expect(cleared.displayName == nil)
        #expect(cleared.photoURL == loopback)
        #expect(await changes.next() == .some(cleared))
        #expect(try await auth.clearProfile([.displayName, .photoURL]).photoURL == nil)
        #expect(try await auth.refreshCurrentUser() == auth.currentUser)
        #expect(auth.currentUser?.displayName == nil && auth.currentUser?.photoURL == nil)
    }

    @Test func valuesPastTheRulesAreRefusedWithTheirCases() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let auth = try client(server.url)
        await #expect(throws: GatehouseError.sessionInvalid) { try await auth.updateProfile(displayName: "Bob") }
        try await auth.signUp(username: "bob", password: "larch-ridge-11")
        let before = try #require(auth.currentUser)

        do {
            try await auth.updateProfile(photoURL: URL(string: "http://example.com/bob.png"))
            Issue.record("an http photo on another host was accepted")
        } catch {
            #expect(error == .invalidFieldValue(message: "photoURL must be an https URL."))
            #expect(error.code == 142)
            #expect(error.errorDescription == "The photo's address must start with https://.")
        }
        await #expect(throws: GatehouseError.invalidFieldValue(message: "displayName must not be empty.")) {
            try await auth.updateProfile(displayName: " \t ")
        }
        await #expect(throws: GatehouseError.fieldTooLong(message: "displayName is too long (at most 256 characters).")) {
            try await auth.updateProfile(displayName: String(repeating: "é", count: 257))
        }
        #expect(try await auth.updateProfile(displayName: String(repeating: "é", count: 256)).displayName?.count == 256)
        #expect(try await auth.refreshCurrentUser()?.photoURL == before.photoURL)

        // A server without declared fields: none are found, so the SDK's list of built-in fields
        // is the server's, and a name of the app's own is refused without a request.
        #expect(try await auth.userFieldNames() == [])
        await #expect(throws: GatehouseError.unknownUserField("bio")) { try await auth.update(fields: ["bio": "Hello"]) }
        await #expect(throws: GatehouseError.unknownUserField("password")) { try await auth.update(fields: ["password": "x"]) }
        #expect(auth.currentUser?.fields == [:])
    }

    @Test func aSessionStoredWithoutProfileFieldsStaysSignedIn() throws {
        let store = MemorySessionStore()
        // A user as stored before display names, photos and declared fields (dates as JSONEncoder writes them).
        store.write(Data(#"""
            {"sessionToken": "r:0123456789abcdef0123456789abcdef", "user": {"id": "X1VzZXI6YWJjZGVmZ2hpag==",
             "objectId": "abcdefghij", "username": "carol", "createdAt": 818150400, "updatedAt": 818150400}}
            """#.utf8), for: .session)
        let user = try #require(try client(URL(string: "http://127.0.0.1:9/graphql")!, store: store).currentUser)
        #expect(user.username == "carol")
        #expect(user.displayName == nil && user.photoURL == nil && user.fields == [:])

        var full = user
        full.displayName = "Carol"
        full.photoURL = URL(string: "https://example.com/c.png")
        full.fields = ["plan": "PRO", "colors": .array(["teal"]), "preferences": ["dark": .bool(true)]]
        #expect(try JSONDecoder().decode(User.self, from: JSONEncoder().encode(full)) == full)
    }

    /// A server with the app's fields of `user-fields.graphql` (`GATEHOUSE_USER_FIELDS`) and a master key.
    static func serverDeclaringFields() throws -> InProcessServer {
        let path = (TemporaryDirectory.make(prefix: "gh-fields") as NSString).appendingPathComponent("user-fields.graphql")
        try Data("""
            enum Plan { FREE PRO TEAM }
            extend type User {
              bio: String @maxLength(20)
              newsletter: Boolean
              age: Int
              favoriteColors: [String!] @maxItems(2)
              plan: Plan @serverOnly
              supportNotes: String @hidden
              preferences: Object @maxBytes(32)
            }
            """.utf8).write(to: URL(fileURLWithPath: path))
        return try InProcessServer {
            $0.userFields = "@" + path
            $0.masterKey = Self.masterKey
        }
    }

    static let masterKey = "master-key-of-the-profile-tests"

    @Test func theAppsDeclaredFieldsAreSetReadAndCleared() async throws {
        let server = try Self.serverDeclaringFields()
        defer { server.stop() }
        let store = MemorySessionStore()
        let auth = try client(server.url, store: store)
        let signedUp = try await auth.signUp(username: "erin", password: "larch-ridge-11")
        #expect(signedUp.fields == [:])
        #expect(try await auth.userFieldNames() == ["bio", "newsletter", "age", "favoriteColors", "plan", "supportNotes", "preferences"])
        var changes = auth.authStateChanges.makeAsyncIterator()
        #expect(await changes.next() == .some(signedUp))

        let values: [String: JSONValue] = [
            "bio": "Hello", "newsletter": .bool(true), "age": .number(30), "favoriteColors": .array(["teal", "amber"]),
            "preferences": ["dark": .bool(true)],
        ]
        let updated = try await auth.update(fields: values)
        #expect(updated.fields == values)
        #expect(await changes.next() == .some(updated))
        #expect(try client(server.url, store: store).currentUser?.fields == values)
        #expect(try await client(server.url).logIn(username: "erin", password: "larch-ridge-11").fields == values)

        let cleared = try await auth.update(fields: ["bio": .null, "favoriteColors": .null])
        #expect(cleared.fields == ["newsletter": .bool(true), "age": .number(30), "preferences": ["dark": .bool(true)]])
        #expect(await changes.next() == .some(cleared))

        // Past a limit, or only the server's to set: refused, nothing changed.
        await #expect(throws: GatehouseError.fieldTooLong(message: "bio is too long (at most 20 characters).")) {
            try await auth.update(fields: ["bio": .string(String(repeating: "b", count: 21))])
        }
        await #expect(throws: GatehouseError.invalidFieldValue(message: "favoriteColors has too many items (at most 2).")) {
            try await auth.update(fields: ["favoriteColors": .array(["a", "b", "c"])])
        }
        await #expect(throws: GatehouseError.invalidFieldValue(message: "preferences is too large (at most 32 bytes).")) {
            try await auth.update(fields: ["preferences": ["note": .string(String(repeating: "n", count: 32))]])
        }
        await #expect(throws: GatehouseError.fieldNotWritable(field: "plan")) { try await auth.update(fields: ["plan": "PRO", "bio": "x"]) }
        await #expect(throws: GatehouseError.fieldNotWritable(field: "supportNotes")) {
            try await auth.update(fields: ["supportNotes": "x"])
        }
        await #expect(throws: GatehouseError.self) { try await auth.update(fields: ["age": "thirty"]) }  // a coercion error
        #expect(try await auth.refreshCurrentUser()?.fields == cleared.fields)

        // Set by the server with the master key: the owner reads plan, never supportNotes.
        let id = try #require(auth.currentUser?.id)
        let answer = try HTTPConnection(port: server.server.port).graphQL(
            "mutation ($input: UpdateUserInput!) { updateUser(input: $input) { user { plan } } }",
            variables: ["input": ["id": .string(id), "fields": ["plan": "TEAM", "supportNotes": "Called on Monday."]]],
            headers: [("X-Parse-Master-Key", Self.masterKey)]
        ).json()
        #expect(answer["errors"] == nil, "\(answer)")
        let refreshed = try await auth.refreshCurrentUser()
        #expect(refreshed?.fields["plan"] == "TEAM")
        #expect(refreshed?.fields["supportNotes"] == nil)
        #expect(await changes.next() == .some(refreshed))
    }

    /// A user of the stand-in server as JSON, with `declared` values (JSON text) beside the built-in fields.
    static func user(_ declared: String = "") -> String {
        #"{"id": "X1VzZXI6YWJjZGVmZ2hpag==", "objectId": "abcdefghij", "username": "dora", "displayName": "Dora", "#
            + #""createdAt": "2026-12-01T08:00:00.000Z", "updatedAt": "2026-12-01T08:00:00.000Z"\#(declared)}"#
    }

    static func answer(_ operation: String, user: String) -> String {
        switch operation {
        case "LogIn":
            #"{"data": {"logIn": {"viewer": {"sessionToken": "r:0123456789abcdef0123456789abcdef", "user": \#(user)}}}}"#
        case "Viewer": #"{"data": {"viewer": {"user": \#(user)}}}"#
        default: #"{"data": {"updateUser": {"user": \#(user)}}}"#
        }
    }

    @Test func theDeclaredFieldsAreAskedForOnceAndReadWithTheUser() async throws {
        let canned = try StandInGraphQLServer { Self.answer($0, user: Self.user(#", "bio": "Hi", "plan": null"#)) }
        defer { canned.stop() }
        canned.declare(["bio", "plan"])
        let auth = try client(canned.url)
        let user = try await auth.logIn(username: "dora", password: "larch-ridge-11")
        #expect(user.displayName == "Dora")
        #expect(user.fields == ["bio": "Hi"])  // null: absent
        #expect(try await auth.refreshCurrentUser()?.fields == ["bio": "Hi"])
        #expect(try await auth.userFieldNames() == ["bio", "plan"])
        try await auth.update(fields: ["plan": .null, "bio": "Hello"])
        #expect(canned.userFieldQuestions == 1)
        #expect(canned.inputs.last == #"{"fields":{"bio":"Hello","plan":null},"id":"X1VzZXI6YWJjZGVmZ2hpag=="}"#)

        // Declared after this client asked: asked again once, then sent.
        canned.declare(["bio", "plan", "newsletter"])
        try await auth.update(fields: ["newsletter": .bool(true)])
        #expect(canned.userFieldQuestions == 2)
        #expect(canned.inputs.last == #"{"fields":{"newsletter":true},"id":"X1VzZXI6YWJjZGVmZ2hpag=="}"#)
        let sent = canned.inputs.count
        await #expect(throws: GatehouseError.unknownUserField("nickname")) {
            try await auth.update(fields: ["bio": "x", "nickname": "d"])
        }
        #expect(canned.userFieldQuestions == 3)
        #expect(canned.inputs.count == sent)
    }

    @Test func aFieldRemovedOnTheServerIsDroppedAndTheOperationRunsAgain() async throws {
        final class Refusals: Sendable { let left = Mutex(1) }
        let refusals = Refusals()
        let canned = try StandInGraphQLServer { operation in
            // The first read after the restart selects "plan", which the server no longer has.
            if operation == "Viewer", refusals.left.withLock({ left in
                defer { left -= 1 }
                return left > 0
            }) {
                return #"{"errors": [{"message": "Cannot query field \"plan\" on type \"User\". Did you mean \"photoURL\"?"}]}"#
            }
            return Self.answer(operation, user: Self.user(#", "bio": "Hi""#))
        }
        defer { canned.stop() }
        canned.declare(["bio", "plan"])
        let auth = try client(canned.url)
        try await auth.logIn(username: "dora", password: "larch-ridge-11")
        canned.declare(["bio"])
        #expect(try await auth.refreshCurrentUser()?.fields == ["bio": "Hi"])
        #expect(canned.userFieldQuestions == 2)
        #expect(try await auth.userFieldNames() == ["bio"])
    }

    @Test func aRefusalOfAnotherFieldIsNotRetried() async throws {
        let canned = try StandInGraphQLServer { operation in
            operation == "Viewer"
                ? #"{"errors": [{"message": "Cannot query field \"photoURL\" on type \"User\"."}]}"#
                : Self.answer(operation, user: Self.user())
        }
        defer { canned.stop() }
        let auth = try client(canned.url)
        try await auth.logIn(username: "dora", password: "larch-ridge-11")
        await #expect(throws: GatehouseError.server(code: nil, message: #"Cannot query field "photoURL" on type "User"."#)) {
            try await auth.refreshCurrentUser()
        }
        #expect(canned.userFieldQuestions == 1)
    }

    @Test func aFieldOnlyTheServerSetsIsNotWritable() async throws {
        let canned = try StandInGraphQLServer { operation in
            operation == "UpdateUser"
                ? StandInGraphQLServer.error(code: 119, message: "Permission denied to set plan.")
                : Self.answer(operation, user: Self.user())
        }
        defer { canned.stop() }
        canned.declare(["plan"])
        let auth = try client(canned.url)
        try await auth.logIn(username: "dora", password: "larch-ridge-11")
        do {
            try await auth.update(fields: ["plan": "PRO"])
            Issue.record("a server-only field was written")
        } catch {
            #expect(error == .fieldNotWritable(field: "plan"))
            #expect(error.code == 119)
            #expect(error.errorDescription == "Only the app's server can change plan.")
        }
    }
}
